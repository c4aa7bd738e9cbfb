// Webhook review: dead letters and replay across two instances, WEBHOOK_ENDPOINTS seeding, the breaker and rotation window.
import { Webhook } from 'standardwebhooks';
import { adminSession } from '../helpers/admin-client';
import { ApiClient, friendCid } from '../helpers/api-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { sleep } from '../helpers/realtime';
import { TestApp, startTestApp } from '../helpers/test-app';
import { FAST, parsed, Receiver, until } from './webhook-kit';

jest.setTimeout(240_000);

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
