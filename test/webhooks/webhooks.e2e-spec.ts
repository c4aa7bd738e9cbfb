// Webhooks end to end: a real receiver verifying signatures with `standardwebhooks`, endpoints
// managed through the admin API, events produced by real users.
import { DataSource } from 'typeorm';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { connect, listen } from '../helpers/realtime';
import { FAST_WEBHOOKS, Receiver, eventually } from './receiver';

jest.setTimeout(120_000);

interface EndpointReply {
  id: string;
  url: string;
  breaker: string;
  enabled: boolean;
  event_types: string[] | null;
  secret_fingerprint: string;
  previous_secret_fingerprint: string | null;
  cursor_position: string;
  lag_events: number;
}

async function createEndpoint(
  owner: AdminSession,
  url: string,
  extra: object = {},
): Promise<{ endpoint: EndpointReply; secret: string }> {
  const res = await owner.post('/app/admin/webhooks/create', { url, ...extra });
  if (res.body.code !== 0) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

async function endpointOf(admin: AdminSession, id: string): Promise<EndpointReply> {
  const res = await admin.get('/app/admin/webhooks');
  return (res.body.data.endpoints as EndpointReply[]).find((e) => e.id === id)!;
}

function positionsIncrease(items: Array<{ body: { position: string } }>): boolean {
  return items.every((item, i) => i === 0 || BigInt(item.body.position) > BigInt(items[i - 1].body.position));
}

describe('webhooks', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let owner: AdminSession;
  let viewer: AdminSession;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    db = await isolatedDatabase();
    t = await startTestApp({ ...db.env, ...FAST_WEBHOOKS });
    api = new ApiClient(t);
    owner = await adminSession(t, 'owner');
    viewer = await adminSession(t, 'viewer');
  });

  afterAll(async () => {
    await t?.close();
    for (const r of receivers) await r.stop();
    await db?.drop();
  });

  async function receiver(): Promise<Receiver> {
    const r = await new Receiver().start();
    receivers.push(r);
    return r;
  }

  it('delivers signed events in position order, with the members of a one-to-one message, and filters by type', async () => {
    const all = await receiver();
    const groupsOnly = await receiver();
    const a = await createEndpoint(owner, all.url, { description: 'all' });
    all.secrets = [a.secret];
    const g = await createEndpoint(owner, groupsOnly.url, { event_types: ['group.created'] });
    groupsOnly.secrets = [g.secret];
    expect(a.endpoint).toMatchObject({ url: all.url, event_types: null, enabled: true, breaker: 'closed' });
    expect(a.secret).toMatch(/^whsec_/);

    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const mids: string[] = [];
    for (let i = 0; i < 5; i++) mids.push((await api.send(x, friendCid(y), `hello ${i}`)).message.mid);
    const groupId = await api.createGroup(x, [y], { name: 'webhook group' });

    await eventually(
      () =>
        all.delivered().filter((r) => r.body.type === 'message.new').length >= 5 &&
        all.delivered().some((r) => r.body.type === 'group.created') &&
        groupsOnly.delivered().length >= 1,
      'the messages and the group',
    );
    const delivered = all.delivered();
    expect(positionsIncrease(delivered)).toBe(true);
    const messages = delivered.filter((r) => r.body.type === 'message.new');
    expect(messages.map((r) => (r.body.data.message as { mid: string }).mid)).toEqual(mids);
    for (const m of messages) {
      expect(m.id).toBe(m.body.event_id);
      expect([...(m.body.data.user_ids as string[])].sort()).toEqual([x.userId, y.userId].sort());
      // Per-recipient state (each side's unread count and conversation ID) is not sent.
      expect(m.body.data).not.toHaveProperty('unread');
    }
    expect(delivered.some((r) => r.body.type === 'group.created')).toBe(true);
    expect(groupsOnly.delivered().map((r) => r.body.type)).toEqual(['group.created']);
    expect((groupsOnly.delivered()[0].body.data as { conversation_id: string }).conversation_id).toBe(
      groupCid(groupId),
    );
    expect(all.unverified + groupsOnly.unverified).toBe(0);

    const list = await viewer.get('/app/admin/webhooks/deliveries', {
      endpoint_id: a.endpoint.id,
      status: 'delivered',
    });
    expect(list.body.code).toBe(0);
    expect(list.body.data.items.length).toBeGreaterThanOrEqual(5);
    expect(list.body.data.items[0]).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200 });
    await eventually(async () => (await endpointOf(viewer, a.endpoint.id)).lag_events === 0, 'no lag');
  });

  it('tells the host of a report (report.created), which no client receives', async () => {
    const r = await receiver();
    const created = await createEndpoint(owner, r.url, { event_types: ['report.created'] });
    r.secrets = [created.secret];
    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const sent = await api.send(x, friendCid(y), 'evidence');
    const socket = await connect(await listen(t), { auth: { token: y.token } });
    const reply = await api.raw.reportUser(y, {
      request_id: 'rep-1',
      user_id: x.userId,
      reason_code: 1,
      description: 'rude 👋',
      conversation_id: friendCid(x),
      message_ids: [sent.message.mid],
    });
    expect(reply.body.code).toBe(0);
    await eventually(() => r.delivered().length >= 1, 'the report event');
    const [event] = r.delivered();
    expect(event.body).toMatchObject({
      type: 'report.created',
      data: {
        report: {
          request_id: 'rep-1',
          reporter_id: y.userId,
          target_type: 'user',
          target_id: x.userId,
          reason_code: 1,
          description: 'rude 👋',
          conversation_id: friendCid(x),
          message_ids: [sent.message.mid],
        },
      },
    });
    // A retry of the same report is not a new report.
    expect(
      (
        await api.raw.reportUser(y, {
          request_id: 'rep-1',
          user_id: x.userId,
          reason_code: 1,
          description: 'rude 👋',
          conversation_id: friendCid(x),
          message_ids: [sent.message.mid],
        })
      ).body.data.created,
    ).toBe(false);
    // Neither party's socket hears of it: a later message arrives, the report event never does.
    const after = await api.send(x, friendCid(y), 'after');
    await socket.waitForEvent(after.event_id, 15_000);
    expect(socket.events.map((e) => e.name)).not.toContain('report.created');
    socket.close();
    expect(r.delivered()).toHaveLength(1);
  });

  it('retries after 500s and timeouts, in order, and both secrets sign during a rotation', async () => {
    const r = await receiver();
    const created = await createEndpoint(owner, r.url, { event_types: ['message.new'] });
    const rotated = await owner.post('/app/admin/webhooks/rotate-secret', { id: created.endpoint.id });
    expect(rotated.body.code).toBe(0);
    expect(rotated.body.data.endpoint.previous_secret_fingerprint).toBe(created.endpoint.secret_fingerprint);
    r.secrets = [created.secret, rotated.body.data.secret];
    r.answer = (_id, attempt) => (attempt === 1 ? 500 : attempt === 2 ? { status: 200, delayMs: 2000 } : 200);
    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const mids: string[] = [];
    for (let i = 0; i < 3; i++) mids.push((await api.send(x, friendCid(y), `retry ${i}`)).message.mid);
    await eventually(() => r.delivered().length >= 3, 'three deliveries after retries');
    expect(r.delivered().map((d) => (d.body.data.message as { mid: string }).mid)).toEqual(mids);
    for (const d of r.delivered()) expect(d.verifiedWith).toEqual(r.secrets);
    const list = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: created.endpoint.id });
    const items = list.body.data.items as Array<{ attempts: number; status: string }>;
    expect(items.every((i) => i.status === 'delivered' && i.attempts === 3)).toBe(true);
  });

  it('opens the breaker on refused connections and closes it when the endpoint answers again', async () => {
    const r = await receiver();
    const port = r.port;
    await r.stop();
    const created = await createEndpoint(owner, r.url, { event_types: ['message.new'] });
    r.secrets = [created.secret];
    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const sent = await api.send(x, friendCid(y), 'while down');
    await eventually(
      async () => (await endpointOf(viewer, created.endpoint.id)).breaker !== 'closed',
      'an open breaker',
    );
    const retrying = await viewer.get('/app/admin/webhooks/deliveries', {
      endpoint_id: created.endpoint.id,
      status: 'retrying',
    });
    expect(retrying.body.data.items[0].last_error).toMatch(/ECONNREFUSED/);
    await r.start(port);
    await eventually(() => r.delivered().length === 1, 'delivery after the outage');
    expect((r.delivered()[0].body.data.message as { mid: string }).mid).toBe(sent.message.mid);
    await eventually(
      async () => (await endpointOf(viewer, created.endpoint.id)).breaker === 'closed',
      'a closed breaker',
    );
  });

  it('a hanging endpoint delays neither another endpoint nor the sends', async () => {
    const stuck = await receiver();
    const healthy = await receiver();
    const s = await createEndpoint(owner, stuck.url, { event_types: ['message.new'] });
    const h = await createEndpoint(owner, healthy.url, { event_types: ['message.new'] });
    stuck.secrets = [s.secret];
    healthy.secrets = [h.secret];
    stuck.answer = () => 'hang';
    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await api.send(x, friendCid(y), `isolated ${i}`));
    await eventually(() => healthy.delivered().length === 3, 'the healthy endpoint’s deliveries');
    expect(healthy.delivered().map((d) => d.id)).toEqual(sent.map((m) => m.event_id));
    expect(stuck.delivered()).toEqual([]);
    await eventually(() => stuck.attempts.length > 0, 'the stuck endpoint’s attempt');
    expect((await owner.post('/app/admin/webhooks/pause', { id: s.endpoint.id })).body.code).toBe(0);
  });

  it('refuses bad input naming the field, changes nothing, and audits every change', async () => {
    const before = (await owner.get('/app/admin/webhooks')).body.data.endpoints.length;
    const bad: Array<[string, object, RegExp]> = [
      ['create', { url: 'ftp://example.com/x' }, /^url: /],
      ['create', { url: 'http://user:pw@example.com/x' }, /^url: .*credentials/],
      ['create', { url: 'not a url' }, /^url: /],
      ['create', { url: 'http://example.com/x', event_types: ['nope'] }, /event_types/],
      ['create', { url: 'http://example.com/x', event_types: [] }, /event_types/],
      ['create', { url: 'http://example.com/x', extra: 1 }, /extra/],
      ['create', { url: 'http://example.com/x', description: 'x'.repeat(201) }, /description/],
      ['update', { id: '999999999', description: 'x' }, /^id: /],
      ['pause', { id: 'abc' }, /^id: /],
      ['replay', { endpoint_id: '999999999', delivery_ids: ['1'] }, /^endpoint_id: /],
      ['replay', { endpoint_id: '1', delivery_ids: [] }, /delivery_ids/],
    ];
    for (const [op, body, msg] of bad) {
      const res = await owner.post(`/app/admin/webhooks/${op}`, body);
      expect({ op, code: res.body.code }).toEqual({ op, code: 1004 });
      expect(res.body.msg).toMatch(msg);
    }
    const forbidden = await viewer.post('/app/admin/webhooks/create', { url: 'http://example.com/viewer' });
    expect(forbidden.status).toBe(403);
    expect((await owner.get('/app/admin/webhooks')).body.data.endpoints.length).toBe(before);

    const r = await receiver();
    const created = await createEndpoint(owner, r.url);
    const duplicate = await owner.post('/app/admin/webhooks/create', { url: r.url });
    expect(duplicate.body).toMatchObject({ code: 1004 });
    expect(duplicate.body.msg).toMatch(/^url: /);
    const id = created.endpoint.id;
    const delivered = await owner.post('/app/admin/webhooks/deliveries', {});
    expect(delivered.status).toBe(404);
    expect(
      (await owner.post('/app/admin/webhooks/update', { id, description: 'new', event_types: ['friend.added'] })).body
        .code,
    ).toBe(0);
    expect((await owner.post('/app/admin/webhooks/pause', { id })).body.data.endpoint.enabled).toBe(false);
    expect((await owner.post('/app/admin/webhooks/resume', { id })).body.data.endpoint.enabled).toBe(true);
    const rotated = await owner.post('/app/admin/webhooks/rotate-secret', { id });
    expect(JSON.stringify(rotated.body.data.endpoint)).not.toContain(rotated.body.data.secret);
    expect((await owner.post('/app/admin/webhooks/delete', { id })).body.code).toBe(0);
    const rows = (await t.app
      .get(DataSource)
      .query(
        "SELECT action, before_json, after_json FROM admin_audit WHERE target_type = 'webhook' AND target_id = ? ORDER BY id",
        [id],
      )) as Array<{ action: string; before_json: string | null; after_json: string | null }>;
    expect(rows.map((row) => row.action)).toEqual([
      'webhook.created',
      'webhook.updated',
      'webhook.paused',
      'webhook.resumed',
      'webhook.secret_rotated',
      'webhook.deleted',
    ]);
    for (const row of rows) {
      expect(`${row.before_json}${row.after_json}`).not.toContain(created.secret);
      expect(`${row.before_json}${row.after_json}`).not.toContain(rotated.body.data.secret);
    }
  });
});

describe('webhook dead letters', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let owner: AdminSession;
  let r: Receiver;

  beforeAll(async () => {
    db = await isolatedDatabase();
    // A retry window of 7.2 s: an event failing that long is dead-lettered.
    t = await startTestApp({
      ...db.env,
      ...FAST_WEBHOOKS,
      WEBHOOK_RETRY_HOURS: '0.002',
      WEBHOOK_BREAKER_THRESHOLD: '1000',
    });
    api = new ApiClient(t);
    owner = await adminSession(t, 'owner');
    r = await new Receiver().start();
  });

  afterAll(async () => {
    await t?.close();
    await r?.stop();
    await db?.drop();
  });

  it('dead-letters an event after the retry window, moves on in order, and replays it on request', async () => {
    const created = await createEndpoint(owner, r.url, { event_types: ['message.new'] });
    r.secrets = [created.secret];
    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const first = await api.send(x, friendCid(y), 'doomed');
    r.answer = (id) => (id === first.event_id ? 500 : 200);
    const second = await api.send(x, friendCid(y), 'after');
    await eventually(() => r.delivered().length === 1, 'the second event after the first died', 60_000);
    expect(r.delivered()[0].id).toBe(second.event_id);
    const dead = await owner.get('/app/admin/webhooks/deliveries', {
      endpoint_id: created.endpoint.id,
      status: 'dead',
    });
    expect(dead.body.data.items).toHaveLength(1);
    const letter = dead.body.data.items[0];
    expect(letter).toMatchObject({
      event_id: first.event_id,
      status: 'dead',
      last_status_code: 500,
      last_error: 'HTTP 500',
    });
    expect(letter.attempts).toBeGreaterThan(1);

    const notDead = await owner.get('/app/admin/webhooks/deliveries', {
      endpoint_id: created.endpoint.id,
      status: 'delivered',
    });
    const refused = await owner.post('/app/admin/webhooks/replay', {
      endpoint_id: created.endpoint.id,
      delivery_ids: [letter.id, notDead.body.data.items[0].id],
    });
    expect(refused.body.code).toBe(1004);
    expect(refused.body.msg).toMatch(/^delivery_ids: /);

    r.answer = () => 200;
    const replay = await owner.post('/app/admin/webhooks/replay', {
      endpoint_id: created.endpoint.id,
      delivery_ids: [letter.id],
    });
    expect(replay.body).toMatchObject({ code: 0, data: { queued: 1 } });
    await eventually(() => r.delivered().length === 2, 'the replayed dead letter');
    expect(r.delivered()[1].id).toBe(first.event_id);
    await eventually(async () => {
      const replayed = await owner.get('/app/admin/webhooks/deliveries', {
        endpoint_id: created.endpoint.id,
        status: 'replayed',
      });
      return replayed.body.data.items.length === 1;
    }, 'the replayed status');
  });
});

describe('webhooks on two instances', () => {
  let db: IsolatedDatabase;
  let one: TestApp;
  let two: TestApp;
  let r: Receiver;

  beforeAll(async () => {
    db = await isolatedDatabase();
    one = await startTestApp({ ...db.env, ...FAST_WEBHOOKS });
    two = await startTestApp({ ...db.env, ...FAST_WEBHOOKS, MIGRATIONS_RUN: 'false' });
    r = await new Receiver().start();
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await r?.stop();
    await db?.drop();
  });

  it('never sends one event to one endpoint from two instances at once, and keeps the order', async () => {
    const owner = await adminSession(one, 'owner');
    const created = await createEndpoint(owner, r.url, { event_types: ['message.new'] });
    r.secrets = [created.secret];
    r.answer = () => ({ status: 200, delayMs: 30 });
    const apiOne = new ApiClient(one);
    const apiTwo = new ApiClient(two);
    const [x, y] = await apiOne.users(2);
    await apiOne.befriend(x, y);
    const mids: string[] = [];
    for (let i = 0; i < 10; i++)
      mids.push((await (i % 2 ? apiTwo : apiOne).send(x, friendCid(y), `m${i}`)).message.mid);
    await eventually(() => r.delivered().length >= 10, 'ten deliveries');
    expect(r.concurrentDuplicates).toBe(0);
    expect(r.delivered().map((d) => (d.body.data.message as { mid: string }).mid)).toEqual(mids);
  });
});
