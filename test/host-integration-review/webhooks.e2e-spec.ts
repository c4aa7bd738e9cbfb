// Black-box review of webhooks (docs/host-integration.md, "Webhooks").
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { ApiClient, friendCid } from '../helpers/api-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { sleep } from '../helpers/realtime';
import { TestApp, hostAuth, startTestApp } from '../helpers/test-app';

jest.setTimeout(240_000);

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
type Handler = (d: Delivery, res: ServerResponse) => void;

const FAST = {
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_BACKOFF_BASE_MS: '100',
  WEBHOOK_BACKOFF_MAX_MS: '400',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '3000',
};

async function until<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

class Receiver {
  server!: Server;
  base = '';
  readonly all: Delivery[] = [];
  handlers = new Map<string, Handler>();
  inflight = new Map<string, number>();
  maxInflight = new Map<string, number>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const d = {
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.all.push(d);
        const n = (this.inflight.get(d.path) ?? 0) + 1;
        this.inflight.set(d.path, n);
        this.maxInflight.set(d.path, Math.max(n, this.maxInflight.get(d.path) ?? 0));
        res.on('close', () => this.inflight.set(d.path, (this.inflight.get(d.path) ?? 1) - 1));
        const h = this.handlers.get(d.path);
        if (h) h(d, res);
        else {
          res.writeHead(204);
          res.end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string): Delivery[] {
    return this.all.filter((d) => d.path === path);
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const parsed = (d: Delivery) =>
  JSON.parse(d.body) as {
    event_id: string;
    type: string;
    position: string;
    created_at: number;
    data: Record<string, unknown>;
  };

describe('host integration review: webhooks', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let owner: AdminSession;
  let moderator: AdminSession;
  const rx = new Receiver();
  let pathN = 0;
  const freshPath = () => `/hook-${(pathN += 1)}`;

  beforeAll(async () => {
    await rx.start();
    db = await isolatedDatabase();
    t = await startTestApp({ ...db.env, ...FAST });
    api = new ApiClient(t);
    owner = await adminSession(t, 'owner');
    moderator = await adminSession(t, 'moderator');
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await rx.stop();
  });

  async function create(
    body: Record<string, unknown>,
  ): Promise<{ id: string; secret: string; endpoint: Record<string, unknown> }> {
    const r = await owner.post('/app/admin/webhooks/create', body);
    expect({ code: r.body.code, msg: r.body.msg }).toEqual({ code: 0, msg: 'ok' });
    return { id: r.body.data.endpoint.id, secret: r.body.data.secret, endpoint: r.body.data.endpoint };
  }
  const remove = (id: string) => owner.post('/app/admin/webhooks/delete', { id });

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

  describe('admin input and roles', () => {
    it.each([
      ['no url', {}, 'url'],
      ['null url', { url: null }, 'url'],
      ['not a url', { url: 'not a url' }, 'url'],
      ['ftp url', { url: 'ftp://127.0.0.1/x' }, 'url'],
      ['credentials', { url: 'http://user:pw@127.0.0.1/x' }, 'url'],
      ['javascript', { url: 'javascript:alert(1)' }, 'url'],
      ['huge url', { url: `http://127.0.0.1/${'x'.repeat(10_000)}` }, 'url'],
      ['unknown type', { url: 'http://127.0.0.1/x', event_types: ['nope'] }, 'event_types'],
      ['types not array', { url: 'http://127.0.0.1/x', event_types: 'message.new' }, 'event_types'],
      ['empty types', { url: 'http://127.0.0.1/x', event_types: [] }, 'event_types'],
      ['per-user type', { url: 'http://127.0.0.1/x', event_types: ['conversation.read'] }, 'event_types'],
      ['huge description', { url: 'http://127.0.0.1/x', description: 'd'.repeat(100_000) }, 'description'],
      ['description lone surrogate', { url: 'http://127.0.0.1/x', description: 'a\ud800' }, 'description'],
      ['unknown field', { url: 'http://127.0.0.1/x', secret: 'whsec_AAAA' }, 'secret'],
    ])('create with %s is 1004 naming the field, nothing created', async (_w, body, field) => {
      const before = (await owner.get('/app/admin/webhooks')).body.data.endpoints.length;
      const r = await owner.post('/app/admin/webhooks/create', body);
      expect(r.body.code).toBe(1004);
      expect(r.body.msg).toContain(field);
      expect((await owner.get('/app/admin/webhooks')).body.data.endpoints.length).toBe(before);
    });

    it('update/pause/replay with bad ids name the field', async () => {
      const { id } = await create({ url: `${rx.base}/bad-input` });
      for (const [path, body, field] of [
        ['update', { id: 'nope' }, 'id'],
        ['update', { id, url: 'x' }, 'url'],
        ['update', { id, event_types: ['nope'] }, 'event_types'],
        ['pause', { id: null }, 'id'],
        ['pause', { id: 'does-not-exist-123' }, 'id'],
        ['rotate-secret', { id: {} }, 'id'],
        ['replay', { endpoint_id: id, delivery_ids: [] }, 'delivery_ids'],
        [
          'replay',
          { endpoint_id: id, delivery_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
          'delivery_ids',
        ],
        ['replay', { endpoint_id: id, delivery_ids: ['999999'] }, 'delivery_ids'],
      ] as Array<[string, object, string]>) {
        const r = await owner.post(`/app/admin/webhooks/${path}`, body);
        expect({ path, code: r.body.code }).toEqual({ path, code: 1004 });
        expect(r.body.msg).toContain(field);
      }
      const d = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id, status: 'bogus' });
      expect(d.body.code).toBe(1004);
      expect(d.body.msg).toContain('status');
      await remove(id);
    });

    it('a moderator can read but not change endpoints', async () => {
      const { id } = await create({ url: `${rx.base}/mod` });
      const before = JSON.stringify(
        (await owner.get('/app/admin/webhooks')).body.data.endpoints.find((e: { id: string }) => e.id === id),
      );
      for (const [path, body] of [
        ['create', { url: `${rx.base}/mod2` }],
        ['update', { id, description: 'mod' }],
        ['pause', { id }],
        ['rotate-secret', { id }],
        ['delete', { id }],
        ['replay', { endpoint_id: id, delivery_ids: ['1'] }],
      ] as Array<[string, object]>) {
        const r = await moderator.post(`/app/admin/webhooks/${path}`, body);
        expect({ path, code: r.body.code, status: r.status }).toEqual({ path, code: 1004, status: 403 });
        expect(r.body.msg).toContain('role');
      }
      const list = (await moderator.get('/app/admin/webhooks')).body;
      expect(list.code).toBe(0);
      const after = JSON.stringify(list.data.endpoints.find((e: { id: string }) => e.id === id));
      const normalise = (s: string) =>
        s.replace(/"(lag_ms|lag_events|cursor_position|last_delivery_at|updated_at)":[^,}]*/g, '');
      expect(normalise(after)).toBe(normalise(before));
      expect(list.data.endpoints.some((e: { url: string }) => e.url.endsWith('/mod2'))).toBe(false);
      await remove(id);
    });
  });

  it('deliveries: bad cursor, unknown endpoint and a deleted endpoint name the field', async () => {
    const { id } = await create({ url: `${rx.base}/del-check` });
    const badCursor = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id, cursor: 'garbage!' });
    expect(badCursor.body.code).toBe(1004);
    expect(badCursor.body.msg).toContain('cursor');
    const unknown = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: '987654321' });
    expect(unknown.body.code).toBe(1004);
    expect(unknown.body.msg).toContain('endpoint_id');
    expect((await remove(id)).body.code).toBe(0);
    expect((await remove(id)).body.code).toBe(1004);
    const gone = await owner.post('/app/admin/webhooks/pause', { id });
    expect(gone.body.code).toBe(1004);
    expect(gone.body.msg).toContain('id');
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

describe('host integration review: webhooks dead letters and two instances', () => {
  let db: IsolatedDatabase;
  let t1: TestApp;
  let t2: TestApp;
  const rx = new Receiver();

  beforeAll(async () => {
    await rx.start();
    db = await isolatedDatabase();
    const env = { ...db.env, ...FAST, WEBHOOK_RETRY_HOURS: '0.0005' }; // 1.8 s
    t1 = await startTestApp(env);
    t2 = await startTestApp(env);
  });
  afterAll(async () => {
    await t1?.close();
    await t2?.close();
    await db?.drop();
    await rx.stop();
  });

  it('two instances never send to one endpoint at the same time; failing events dead-letter and replay once', async () => {
    const owner = await adminSession(t1, 'owner');
    let failing = true;
    rx.handlers.set('/two', (_d, res) => {
      setTimeout(() => {
        res.writeHead(failing ? 500 : 204);
        res.end();
      }, 30);
    });
    const c = await owner.post('/app/admin/webhooks/create', { url: `${rx.base}/two`, event_types: ['message.new'] });
    expect(c.body.code).toBe(0);
    const id = c.body.data.endpoint.id as string;
    const api1 = new ApiClient(t1);
    const api2 = new ApiClient(t2);
    const [a, b] = await api1.users(2);
    await api1.befriend(a, b);
    const e1 = await api1.send(a, friendCid(b), 'dead 1');
    const e2 = await api2.send(a, friendCid(b), 'dead 2');
    let dead: Array<{ id: string; event_id: string }> = [];
    for (let i = 0; i < 300; i += 1) {
      const r = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id, status: 'dead' });
      dead = r.body.data.items;
      if (dead.length >= 2) break;
      await sleep(100);
    }
    expect(dead.map((d) => d.event_id).sort()).toEqual([e1.event_id, e2.event_id].sort());
    expect(rx.maxInflight.get('/two')).toBe(1);

    failing = false;
    const before = rx.at('/two').length;
    const replay = await owner.post('/app/admin/webhooks/replay', {
      endpoint_id: id,
      delivery_ids: dead.map((d) => d.id),
    });
    expect(replay.body.code).toBe(0);
    expect(replay.body.data.queued).toBe(2);
    await until(() => {
      const got = rx
        .at('/two')
        .slice(before)
        .map((d) => parsed(d).event_id);
      return got.includes(e1.event_id) && got.includes(e2.event_id);
    }, 'the replays');
    // a replayed delivery cannot be replayed as if it were dead
    await sleep(500);
    const again = await owner.post('/app/admin/webhooks/replay', { endpoint_id: id, delivery_ids: [dead[0].id] });
    expect(again.body.code).toBe(1004);
    expect(again.body.msg).toContain('delivery_ids');
    // and after that, new events flow
    const e3 = await api2.send(a, friendCid(b), 'alive');
    await until(() => rx.at('/two').some((d) => parsed(d).event_id === e3.event_id), 'a new event');
    expect(rx.maxInflight.get('/two')).toBe(1);
  });
});

describe('host integration review: WEBHOOK_ENDPOINTS seeding', () => {
  let db: IsolatedDatabase;
  const rx = new Receiver();
  beforeAll(async () => {
    await rx.start();
    db = await isolatedDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    await rx.stop();
  });

  it('a seeded endpoint signs with its secret, is idempotent by URL, and its secret is nowhere else', async () => {
    const { randomBytes } = await import('node:crypto');
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const seed = JSON.stringify([
      { url: `${rx.base}/seeded`, secret, event_types: ['message.new'], description: 'seeded' },
    ]);
    const lines: string[] = [];
    const env = { ...db.env, ...FAST, WEBHOOK_ENDPOINTS: seed, LOG_LEVEL: 'debug', LOG_FORMAT: 'json' };
    const t1 = await startTestApp(env, { logLines: lines });
    const t2 = await startTestApp(env, { logLines: lines });
    try {
      const api = new ApiClient(t1);
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      const sent = await api.send(a, friendCid(b), 'seeded hello');
      const d = await until(() => rx.at('/seeded').find((x) => x.body.includes(sent.event_id)), 'seeded delivery');
      new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
      const owner = await adminSession(t2, 'owner');
      const list = await owner.get('/app/admin/webhooks');
      expect(list.body.code).toBe(0);
      expect(list.body.data.endpoints.filter((e: { url: string }) => e.url.endsWith('/seeded'))).toHaveLength(1);
      const key = secret.slice(6);
      expect(JSON.stringify(list.body)).not.toContain(key.slice(0, 20));
      expect(JSON.stringify((await owner.get('/app/admin/audit')).body)).not.toContain(key.slice(0, 20));
      expect(lines.join('\n')).not.toContain(key.slice(0, 20));
    } finally {
      await t1.close();
      await t2.close();
    }
  });

  it.each([
    ['not JSON', '{', /WEBHOOK_ENDPOINTS/],
    [
      'bad secret',
      JSON.stringify([{ url: 'http://127.0.0.1:9/x', secret: 'whsec_short' }]),
      /WEBHOOK_ENDPOINTS\[0\]\.secret/,
    ],
    [
      'credentials',
      JSON.stringify([{ url: 'http://u:p@127.0.0.1:9/x', secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` }]),
      /WEBHOOK_ENDPOINTS\[0\]\.url/,
    ],
    [
      'unknown field',
      JSON.stringify([
        { url: 'http://127.0.0.1:9/x', secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`, enabled: 'yes' },
      ]),
      /WEBHOOK_ENDPOINTS\[0\]/,
    ],
  ])('a seed with %s stops the boot naming the entry, never showing the secret', async (_w, value, pattern) => {
    let error: Error | null = null;
    try {
      const t = await startTestApp({ ...db.env, WEBHOOK_ENDPOINTS: value });
      await t.close();
    } catch (e) {
      error = e as Error;
    }
    expect(error).not.toBeNull();
    expect(error!.message).toMatch(pattern);
    expect(error!.message).not.toContain(Buffer.alloc(32, 1).toString('base64').slice(0, 16));
  });
});

describe('host integration review: webhooks breaker and rotation window', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  const rx = new Receiver();
  beforeAll(async () => {
    await rx.start();
    db = await isolatedDatabase();
    t = await startTestApp({
      ...db.env,
      ...FAST,
      WEBHOOK_BREAKER_THRESHOLD: '2',
      WEBHOOK_BREAKER_COOLDOWN_MS: '1500',
      WEBHOOK_SECRET_ROTATION_HOURS: '0.0004', // 1.44 s
    });
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await rx.stop();
  });

  it('opens the breaker after the threshold, probes after the cooldown, closes on success and delivers', async () => {
    const owner = await adminSession(t, 'owner');
    let failing = true;
    rx.handlers.set('/brk', (_d, res) => {
      res.writeHead(failing ? 500 : 204);
      res.end();
    });
    const c = await owner.post('/app/admin/webhooks/create', { url: `${rx.base}/brk`, event_types: ['message.new'] });
    const id = c.body.data.endpoint.id as string;
    const api = new ApiClient(t);
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const sent = await api.send(a, friendCid(b), 'breaker');
    const endpoint = async () =>
      ((await owner.get('/app/admin/webhooks')).body.data.endpoints as Array<Record<string, unknown>>).find(
        (e) => e.id === id,
      )!;
    let state: unknown;
    for (let i = 0; i < 200; i += 1) {
      state = (await endpoint()).breaker;
      if (JSON.stringify(state).includes('open') && !JSON.stringify(state).includes('half')) break;
      await sleep(50);
    }
    expect(JSON.stringify(state)).toMatch(/open/);
    const attemptsWhenOpen = rx.at('/brk').length;
    await sleep(500);
    // while open (cooldown 1.5 s), no request goes
    expect(rx.at('/brk').length).toBeLessThanOrEqual(attemptsWhenOpen + 1);
    failing = false;
    await until(
      () => rx.at('/brk').some((d, i, all) => i === all.length - 1 && d.body.includes(sent.event_id)),
      'the probe',
    );
    for (let i = 0; i < 100; i += 1) {
      state = (await endpoint()).breaker;
      if (JSON.stringify(state).includes('closed')) break;
      await sleep(50);
    }
    expect(JSON.stringify(state)).toMatch(/closed/);
    const after = await api.send(a, friendCid(b), 'after breaker');
    await until(() => rx.at('/brk').some((d) => d.body.includes(after.event_id)), 'delivery after the breaker closed');
    const metrics = String((await t.http.get('/metrics')).text);
    expect(metrics).toMatch(new RegExp(`im_webhook_breaker_state\\{[^}]*endpoint="${id}"[^}]*\\} 0`));
    expect(metrics).not.toContain(rx.base);
  });

  it('after the rotation window only the new secret signs; update with event_types null means every type', async () => {
    const owner = await adminSession(t, 'owner');
    const c = await owner.post('/app/admin/webhooks/create', { url: `${rx.base}/rot`, event_types: ['group.created'] });
    const id = c.body.data.endpoint.id as string;
    const rotated = await owner.post('/app/admin/webhooks/rotate-secret', { id });
    const secret2 = rotated.body.data.secret as string;
    await sleep(2500);
    const upd = await owner.post('/app/admin/webhooks/update', { id, event_types: null });
    expect(upd.body.code).toBe(0);
    const api = new ApiClient(t);
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const sent = await api.send(a, friendCid(b), 'after window');
    const d = await until(
      () => rx.at('/rot').find((x) => x.body.includes(sent.event_id)),
      'message.new after null types',
    );
    expect(String(d.headers['webhook-signature']).split(' ')).toHaveLength(1);
    new Webhook(secret2).verify(d.body, d.headers as Record<string, string>);
    expect(() => new Webhook(c.body.data.secret).verify(d.body, d.headers as Record<string, string>)).toThrow();
  });
});
