// Webhook review: signing and rotation, ordered at-least-once delivery, filters, pause, isolation and retries.
import { Webhook } from 'standardwebhooks';
import { AdminSession } from '../helpers/admin-client';
import { ApiClient, friendCid } from '../helpers/api-client';
import { sleep } from '../helpers/realtime';
import { TestApp, hostAuth } from '../helpers/test-app';
import { parsed, until, useWebhookApp } from './webhook-kit';

jest.setTimeout(240_000);

describe('host integration review: webhooks', () => {
  let t: TestApp;
  let api: ApiClient;
  let owner: AdminSession;
  let moderator: AdminSession;
  const { rx, freshPath, create, remove } = useWebhookApp((app) => ({ t, api, owner, moderator } = app));

  it('signs with the secret shown once; the secret appears in no later reply or audit row', async () => {
    const path = freshPath();
    const { id, secret, endpoint } = await create({ url: rx.base + path, description: 'sig' });
    expect(secret).toMatch(/^whsec_/);
    expect(JSON.stringify(endpoint)).not.toContain(secret.slice(6, 20));
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const sent = await api.send(a, friendCid(b), 'signed hello');
    const d = await until(() => rx.at(path).find((x) => x.body.includes(sent.event_id)), 'the message.new delivery');
    const payload = new Webhook(secret).verify(d.body, d.headers as Record<string, string>) as { event_id: string };
    expect(payload.event_id).toBe(sent.event_id);
    expect(d.headers['webhook-id']).toBe(sent.event_id);
    const ev = parsed(d);
    expect(Object.keys(ev).sort()).toEqual(['created_at', 'data', 'event_id', 'position', 'type']);
    expect(ev.type).toBe('message.new');
    expect(typeof ev.position).toBe('string');
    expect((ev.data.user_ids as string[]).sort()).toEqual([a.userId, b.userId].sort());
    expect(JSON.stringify(ev.data)).not.toMatch(/unread/i);

    const rotated = await owner.post('/app/admin/webhooks/rotate-secret', { id });
    expect(rotated.body.code).toBe(0);
    const secret2 = rotated.body.data.secret as string;
    expect(secret2).toMatch(/^whsec_/);
    expect(secret2).not.toBe(secret);
    const sent2 = await api.send(a, friendCid(b), 'after rotation');
    const d2 = await until(() => rx.at(path).find((x) => x.body.includes(sent2.event_id)), 'delivery after rotation');
    expect(String(d2.headers['webhook-signature']).split(' ')).toHaveLength(2);
    new Webhook(secret).verify(d2.body, d2.headers as Record<string, string>);
    new Webhook(secret2).verify(d2.body, d2.headers as Record<string, string>);

    const replies = [
      await owner.get('/app/admin/webhooks'),
      await moderator.get('/app/admin/webhooks'),
      await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id }),
      await owner.get('/app/admin/audit'),
      await owner.post('/app/admin/webhooks/update', { id, description: 'changed' }),
      await owner.post('/app/admin/webhooks/pause', { id }),
      await owner.post('/app/admin/webhooks/resume', { id }),
    ];
    for (const r of replies) {
      expect(r.body.code).toBe(0);
      const text = JSON.stringify(r.body);
      for (const s of [secret, secret2]) {
        expect(text).not.toContain(s.slice(6));
        expect(text).not.toContain(s.slice(6, 26));
      }
    }
    await remove(id);
  });

  it('delivers in position order per endpoint, at least once, through failures', async () => {
    const path = freshPath();
    let n = 0;
    rx.handlers.set(path, (_d, res) => {
      n += 1;
      res.writeHead(n % 3 === 0 ? 500 : 204);
      res.end();
    });
    const { id } = await create({ url: rx.base + path, event_types: ['message.new'] });
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const sent: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 6; i += 1) sent.push((await api.send(a, friendCid(b), `o ${w}-${i}`)).event_id);
      }),
    );
    const ok = () => {
      const seen = new Set<string>();
      // successful deliveries: we cannot see the status per request here, so count distinct ids
      for (const d of rx.at(path)) seen.add(parsed(d).event_id);
      return sent.every((e) => seen.has(e));
    };
    await until(ok, 'all 24 events', 90_000);
    // order: the first arrival of each event is in increasing position, and no event comes back
    // after a later one was first sent (only the failed request is repeated before moving on)
    const firsts: bigint[] = [];
    const seen = new Set<string>();
    let last = -1n;
    for (const d of rx.at(path)) {
      const ev = parsed(d);
      const pos = BigInt(ev.position);
      if (!seen.has(ev.event_id)) {
        firsts.push(pos);
        seen.add(ev.event_id);
      }
      expect(pos >= last).toBe(true);
      last = pos;
    }
    for (let i = 1; i < firsts.length; i += 1) expect(firsts[i] > firsts[i - 1]).toBe(true);
    expect(rx.maxInflight.get(path)).toBe(1);
    rx.handlers.delete(path);
    await remove(id);
  });

  it('the event-type filter: only the chosen types; per-user events never delivered', async () => {
    const path = freshPath();
    const all = freshPath();
    const { id } = await create({ url: rx.base + path, event_types: ['group.created'] });
    const { id: idAll } = await create({ url: rx.base + all });
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const sent = await api.send(a, friendCid(b), 'x');
    await api.read(b, friendCid(a), sent.message.conversation_seq);
    const gid = await api.createGroup(a, [b]);
    await until(() => rx.at(path).some((d) => d.body.includes(gid)), 'group.created');
    await until(() => rx.at(all).some((d) => d.body.includes(gid)), 'group.created on the all-types endpoint');
    expect(new Set(rx.at(path).map((d) => parsed(d).type))).toEqual(new Set(['group.created']));
    const types = new Set(rx.at(all).map((d) => parsed(d).type));
    for (const ty of ['conversation.read', 'conversation.peer_read', 'conversation.updated'])
      expect(types.has(ty)).toBe(false);
    // group.created data carries no viewer-specific role or unread count
    const gc = parsed(rx.at(all).find((d) => d.body.includes(gid) && parsed(d).type === 'group.created')!);
    expect(JSON.stringify(gc.data)).not.toMatch(/"my_role"|unread/);
    await remove(id);
    await remove(idAll);
  });

  it('pause stops deliveries, resume continues from the cursor', async () => {
    const path = freshPath();
    const { id } = await create({ url: rx.base + path, event_types: ['message.new'] });
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const first = await api.send(a, friendCid(b), 'before');
    await until(() => rx.at(path).some((d) => d.body.includes(first.event_id)), 'first');
    expect((await owner.post('/app/admin/webhooks/pause', { id })).body.data.endpoint.enabled).toBe(false);
    const during = await api.send(a, friendCid(b), 'during');
    await sleep(1500);
    expect(rx.at(path).some((d) => d.body.includes(during.event_id))).toBe(false);
    expect((await owner.post('/app/admin/webhooks/resume', { id })).body.data.endpoint.enabled).toBe(true);
    await until(() => rx.at(path).some((d) => d.body.includes(during.event_id)), 'the event sent while paused');
    await remove(id);
  });

  it('a hanging endpoint does not hold back another endpoint', async () => {
    const slow = freshPath();
    const fast = freshPath();
    rx.handlers.set(slow, () => undefined); // never answers: times out every time
    const { id: s } = await create({ url: rx.base + slow, event_types: ['message.new'] });
    const { id: f } = await create({ url: rx.base + fast, event_types: ['message.new'] });
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await api.send(a, friendCid(b), `iso ${i}`)).event_id);
    await until(() => ids.every((e) => rx.at(fast).some((d) => d.body.includes(e))), 'all on the fast endpoint');
    // the slow endpoint is still stuck on its first event
    expect(new Set(rx.at(slow).map((d) => parsed(d).event_id)).size).toBeLessThanOrEqual(1);
    await remove(s);
    await remove(f);
    rx.handlers.delete(slow);
  });

  it('a retried event keeps its webhook-id; deliveries list shows attempts', async () => {
    const path = freshPath();
    let calls = 0;
    rx.handlers.set(path, (_d, res) => {
      calls += 1;
      res.writeHead(calls <= 2 ? 503 : 200);
      res.end();
    });
    const { id } = await create({ url: rx.base + path, event_types: ['message.new'] });
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const sent = await api.send(a, friendCid(b), 'retry me');
    await until(() => rx.at(path).length >= 3, 'three attempts');
    expect(
      new Set(
        rx
          .at(path)
          .slice(0, 3)
          .map((d) => d.headers['webhook-id']),
      ),
    ).toEqual(new Set([sent.event_id]));
    let item: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && item?.status !== 'delivered'; i += 1) {
      const r = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id });
      expect(r.body.code).toBe(0);
      item = (r.body.data.items as Array<Record<string, unknown>>).find((x) => x.event_id === sent.event_id);
      await sleep(100);
    }
    expect(item?.status).toBe('delivered');
    expect(item?.attempts).toBe(3);
    rx.handlers.delete(path);
    await remove(id);
  });

  it('every one-to-one message event carries user_ids (new, recalled, deleted, pair notice)', async () => {
    const path = freshPath();
    const { id } = await create({ url: rx.base + path });
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const m1 = await api.send(a, friendCid(b), 'one');
    const m2 = await api.send(a, friendCid(b), 'two');
    const rec = await api.recall(a, friendCid(b), m1.message.mid);
    const del = await api.deleteMessage(a, friendCid(b), m2.message.mid);
    const notice = await t.http
      .post('/app/server/messages/notice')
      .set(...hostAuth())
      .send({ request_id: `pn-${Date.now()}`, user_ids: [a.userId, b.userId], content: { text: 'pair notice' } });
    expect(notice.body.code).toBe(0);
    const ids = [m1.event_id, rec.event_id, del.event_id, notice.body.data.event_id as string];
    for (const eventId of ids) {
      const d = await until(() => rx.at(path).find((x) => parsed(x).event_id === eventId), `event ${eventId}`);
      const ev = parsed(d);
      expect({ type: ev.type, user_ids: ((ev.data.user_ids as string[]) ?? []).slice().sort() }).toEqual({
        type: ev.type,
        user_ids: [a.userId, b.userId].sort(),
      });
      expect(JSON.stringify(ev.data)).not.toMatch(/"unread"/);
    }
    await remove(id);
  });

  it('server API writes reach webhooks with the same events', async () => {
    const path = freshPath();
    const { id } = await create({ url: rx.base + path, event_types: ['group.created', 'message.new', 'friend.added'] });
    const [a, b] = await api.users(2);
    const g = await t.http
      .post('/app/server/groups/create')
      .set(...hostAuth())
      .send({ request_id: `wh-${Date.now()}`, owner_id: a.userId, name: 'WH', member_ids: [b.userId] });
    expect(g.body.code).toBe(0);
    const n = await t.http
      .post('/app/server/messages/notice')
      .set(...hostAuth())
      .send({ request_id: `whn-${Date.now()}`, group_id: g.body.data.group.group_id, content: { text: 'n' } });
    expect(n.body.code).toBe(0);
    await until(() => rx.at(path).some((d) => parsed(d).event_id === g.body.data.event_id), 'group.created');
    const notice = await until(() => rx.at(path).find((d) => parsed(d).event_id === n.body.data.event_id), 'notice');
    expect(parsed(notice).type).toBe('message.new');
    expect(JSON.stringify(parsed(notice).data)).toContain('"notice"');
    await remove(id);
  });
});
