// Analytics: activity from SDK requests and socket connections (DAU, last_active_at), the rollup
// job (messages by type across days, its cursor advanced once under two instances), API errors
// per hour, and the analytics endpoint. Every test runs on a database of its own: the rollups
// and the job's cursor are service-wide.
import { DataSource } from 'typeorm';
import { ActivityTracker } from '../../src/analytics/activity-tracker.service';
import { AnalyticsRollupJob } from '../../src/analytics/analytics-rollup-job.service';
import { AnalyticsRollupsRepository } from '../../src/analytics/analytics-rollups.repository';
import { ApiTraffic } from '../../src/analytics/api-traffic.service';
import { RetentionService } from '../../src/retention/retention.service';
import { DAY_MS, HOUR_MS, dayOf, hourOf } from '../../src/analytics/rollup';
import { adminSession } from '../helpers/admin-client';
import { ApiClient, cmid, friendCid } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { connect, listen } from '../helpers/realtime';
import { TestApp, bearer, issueUser, startTestApp } from '../helpers/test-app';

jest.setTimeout(120_000);

type Row = Record<string, string | number | null>;

describe('analytics', () => {
  let database: IsolatedDatabase;
  const apps: TestApp[] = [];

  const start = async (env: Record<string, string> = {}): Promise<TestApp> => {
    const t = await startTestApp({
      ...database.env,
      ...(apps.length > 0 ? { MIGRATIONS_RUN: 'false' } : {}),
      ANALYTICS_JOB: 'false',
      ...env,
    });
    apps.push(t);
    return t;
  };
  const query = (t: TestApp, sql: string, params: unknown[] = []): Promise<Row[]> =>
    t.app.get(DataSource).query(sql, params);
  const daily = async (t: TestApp, day: number, metric: string): Promise<Record<string, number>> =>
    Object.fromEntries(
      (await query(t, 'SELECT dimension, value FROM analytics_daily WHERE day = ? AND metric = ?', [day, metric])).map(
        (r) => [String(r.dimension), Number(r.value)],
      ),
    );
  const hourly = async (t: TestApp, hour: number): Promise<Record<string, number>> =>
    Object.fromEntries(
      (await query(t, 'SELECT metric, value FROM analytics_hourly WHERE hour = ?', [hour])).map((r) => [
        String(r.metric),
        Number(r.value),
      ]),
    );

  beforeEach(async () => {
    database = await isolatedDatabase();
  });

  afterEach(async () => {
    for (const t of apps.splice(0).reverse()) await t.close();
    await database.drop();
  });

  it('marks users active from SDK requests and socket connections, last_active_at at most once a minute', async () => {
    const t = await start();
    const T = Date.now() - (Date.now() % 1000);
    t.clock.set(T);
    const byRequest = await issueUser(t);
    const bySocket = await issueUser(t);
    const tracker = t.app.get(ActivityTracker);
    const lastActive = async (id: string): Promise<number | null> => {
      const [row] = await query(t, 'SELECT last_active_at FROM users WHERE id = ?', [id]);
      return row.last_active_at === null ? null : Number(row.last_active_at);
    };
    const activeToday = async (): Promise<string[]> =>
      (await query(t, 'SELECT user_id FROM analytics_user_days WHERE day = ?', [dayOf(T)])).map((r) =>
        String(r.user_id),
      );

    // Issuing a token (the host's secret) is nobody's activity.
    await tracker.flush();
    expect(await activeToday()).toEqual([]);

    expectOk(await t.http.get('/app/sdk/users/me').set(...bearer(byRequest.token)));
    const client = await connect(await listen(t), { auth: { token: bySocket.token } });
    try {
      await tracker.flush();
      expect((await activeToday()).sort()).toEqual([byRequest.id, bySocket.id].sort());
      expect(await lastActive(byRequest.id)).toBe(T);
      expect(await lastActive(bySocket.id)).toBe(T);

      // Within the minute: no new write of last_active_at, and no second day row.
      t.clock.set(T + 30_000);
      expectOk(await t.http.get('/app/sdk/users/me').set(...bearer(byRequest.token)));
      await tracker.flush();
      expect(await lastActive(byRequest.id)).toBe(T);
      t.clock.set(T + 61_000);
      expectOk(await t.http.get('/app/sdk/users/me').set(...bearer(byRequest.token)));
      await tracker.flush();
      expect(await lastActive(byRequest.id)).toBe(T + 61_000);
      expect(await activeToday()).toHaveLength(2);

      // The dashboard shows today's DAU and MAU.
      const viewer = await adminSession(t, 'viewer');
      const dashboard = expectOk<{ dau: number; mau: number }>(await viewer.get('/app/admin/dashboard'));
      expect(dashboard).toMatchObject({ dau: 2, mau: 2 });
    } finally {
      client.close();
    }
  });

  it('writes a batch larger than SQLite binds in one statement: 35,000 users in one flush', async () => {
    const t = await start();
    const T = Date.now();
    t.clock.set(T);
    const real = await issueUser(t);
    const tracker = t.app.get(ActivityTracker);
    // IDs past any user's: last_active_at touches nobody there, the day rows are written all the same.
    const ids = [real.id, ...Array.from({ length: 35_000 }, (_, i) => String(9_000_000_000 + i))];
    for (const id of ids) tracker.seen(id);
    await tracker.flush();
    await tracker.flush();
    const [days] = await query(t, 'SELECT COUNT(*) AS n FROM analytics_user_days WHERE day = ?', [dayOf(T)]);
    expect(Number(days.n)).toBe(ids.length);
    const [user] = await query(t, 'SELECT last_active_at FROM users WHERE id = ?', [real.id]);
    expect(Number(user.last_active_at)).toBe(T);
  });

  it('rolls messages up by day and type, each batch once under two instances, only once settled', async () => {
    const a = await start();
    const b = await start();
    const api = new ApiClient(a);
    const alice = await issueUser(a);
    const bob = await issueUser(a);
    await api.befriend(alice, bob);
    const send = async (type: 'text' | 'custom'): Promise<void> => {
      const content = type === 'text' ? { text: 'hi' } : { data: { k: 1 }, description: 'card' };
      expectOk(
        await a.http
          .post('/app/sdk/messages/send')
          .set(...bearer(alice.token))
          .send({ conversation_id: friendCid(bob), client_message_id: cmid(), type, content }),
      );
    };
    // Two days in the future (the token stays valid), each instance on the same clock.
    const D1 = dayOf(Date.now()) + 2 * DAY_MS;
    const at = (ms: number): void => {
      a.clock.set(ms);
      b.clock.set(ms);
    };
    at(D1 + 23 * HOUR_MS);
    await send('text');
    await send('text');
    await send('custom');
    at(D1 + DAY_MS + HOUR_MS);
    await send('text');
    // Settled: a minute (ANALYTICS_SETTLE_SECONDS) after the last message.
    at(D1 + DAY_MS + HOUR_MS + 61_000);

    const runs = await Promise.all([a.app.get(AnalyticsRollupJob).runOnce(), b.app.get(AnalyticsRollupJob).runOnce()]);
    // The befriending messages (notices, if any) are rolled up too: compare the types we sent.
    expect(runs.filter((run) => run.held)).toHaveLength(1);
    const first = await daily(a, D1, 'messages');
    expect(first).toMatchObject({ text: 2, custom: 1 });
    expect((await daily(a, D1 + DAY_MS, 'messages')).text).toBe(1);

    // Again, on both (the lease has moved on to whoever claims it): nothing is added twice.
    await Promise.all([a.app.get(AnalyticsRollupJob).runOnce(), b.app.get(AnalyticsRollupJob).runOnce()]);
    await b.app.get(AnalyticsRollupJob).runOnce();
    expect(await daily(a, D1, 'messages')).toEqual(first);
    expect((await daily(a, D1 + DAY_MS, 'messages')).text).toBe(1);

    // A message younger than the settle time waits for the next run.
    await send('text');
    const nowAt = D1 + DAY_MS + HOUR_MS + 61_000;
    expect((await Promise.all([a, b].map((t) => t.app.get(AnalyticsRollupJob).runOnce()))).some((r) => r.held)).toBe(
      true,
    );
    expect((await daily(a, D1 + DAY_MS, 'messages')).text).toBe(1);
    at(nowAt + 61_000);
    await Promise.all([a, b].map((t) => t.app.get(AnalyticsRollupJob).runOnce()));
    expect((await daily(a, D1 + DAY_MS, 'messages')).text).toBe(2);
    const [cursor] = await query(a, "SELECT cursor_id FROM analytics_jobs WHERE name = 'messages'");
    const [last] = await query(a, 'SELECT MAX(id) AS id FROM messages');
    expect(String(cursor.cursor_id)).toBe(String(last.id));
  });

  it('counts API requests, client errors and server errors per hour', async () => {
    const t = await start();
    const H = hourOf(Date.now());
    t.clock.set(H + 60_000);
    const user = await issueUser(t);
    const traffic = t.app.get(ApiTraffic);
    await traffic.flush();
    const before = await hourly(t, H);
    expectOk(await t.http.get('/app/sdk/users/me').set(...bearer(user.token)));
    // A refusal (code ≠ 0), an unknown route (404), and a health probe (not the API: not counted).
    await t.http.get('/app/sdk/users/me');
    await t.http.get('/app/sdk/no-such-route').set(...bearer(user.token));
    await t.http.get('/health/live');
    await traffic.flush();
    const after = await hourly(t, H);
    expect((after.requests ?? 0) - (before.requests ?? 0)).toBe(3);
    expect((after.client_errors ?? 0) - (before.client_errors ?? 0)).toBe(2);
    expect(after.server_errors ?? 0).toBe(before.server_errors ?? 0);

    const viewer = await adminSession(t, 'viewer');
    await traffic.flush();
    const reply = expectOk<{
      hours: Array<{ hour: number; requests: number; client_errors: number; error_rate: number }>;
    }>(await viewer.get('/app/admin/analytics'));
    const hour = reply.hours[reply.hours.length - 1];
    expect(hour.hour).toBe(H);
    expect(hour.client_errors).toBeGreaterThanOrEqual(2);
    expect(hour.error_rate).toBeCloseTo(hour.client_errors / hour.requests, 3);
  });

  it('prunes who was active on a day after 400 days, through the retention pass; rollups stay', async () => {
    const t = await start({ RETENTION_BATCH_SIZE: '2' });
    const now = Date.now();
    t.clock.set(now);
    const today = dayOf(now);
    const old = today - 401 * DAY_MS;
    const kept = today - 399 * DAY_MS;
    for (const [day, ids] of [
      [old, ['1', '2', '3']],
      [old + DAY_MS, ['1']],
      [kept, ['1', '2']],
    ] as const)
      await query(t, `INSERT INTO analytics_user_days (day, user_id) VALUES ${ids.map(() => '(?, ?)').join(', ')}`, [
        ...ids.flatMap((id) => [day, id]),
      ]);
    await t.app
      .get(AnalyticsRollupsRepository)
      .upsert('analytics_daily', [{ bucket: old, metric: 'dau', dimension: '', value: 3 }], 'set');
    const run = await t.app.get(RetentionService).runOnce();
    expect(run.deleted.analytics_user_days).toBe(4);
    expect(await query(t, 'SELECT day FROM analytics_user_days ORDER BY day')).toHaveLength(2);
    expect(await daily(t, old, 'dau')).toEqual({ '': 3 });
  });

  it('answers null DAU/MAU for the days a lagging job has not computed, not zero', async () => {
    const t = await start();
    const now = Date.now();
    t.clock.set(now);
    const today = dayOf(now);
    await query(t, 'INSERT INTO analytics_user_days (day, user_id) VALUES (?, 1), (?, 2), (?, 3)', [
      today - 6 * DAY_MS,
      today - 3 * DAY_MS,
      today - DAY_MS,
    ]);
    // The job stored up to five days ago, then stopped.
    await t.app
      .get(AnalyticsRollupsRepository)
      .upsert('analytics_daily', [{ bucket: today - 5 * DAY_MS, metric: 'dau', dimension: '', value: 0 }], 'set');
    await query(t, "UPDATE analytics_jobs SET cursor_at = ? WHERE name = 'active_days'", [today - 5 * DAY_MS]);
    const viewer = await adminSession(t, 'viewer');
    const reply = expectOk<{ days: Array<{ day: number; dau: number | null; mau: number | null }> }>(
      await viewer.get('/app/admin/analytics', { range: '30d' }),
    );
    expect(reply.days.slice(-6).map(({ day, dau, mau }) => ({ ago: (today - day) / DAY_MS, dau, mau }))).toEqual([
      { ago: 5, dau: 0, mau: 0 },
      { ago: 4, dau: null, mau: null },
      { ago: 3, dau: null, mau: null },
      { ago: 2, dau: null, mau: null },
      { ago: 1, dau: 1, mau: 3 },
      { ago: 0, dau: 0, mau: 0 },
    ]);

    // Before the job's first run, only days before the first one on record are known zeros.
    await query(t, "UPDATE analytics_jobs SET cursor_at = 0 WHERE name = 'active_days'");
    const fresh = expectOk<{ days: Array<{ day: number; dau: number | null }> }>(
      await viewer.get('/app/admin/analytics', { range: '30d' }),
    );
    expect(fresh.days.slice(-8).map((d) => d.dau)).toEqual([0, null, null, null, null, null, 1, 0]);
  });

  it('answers the analytics page from the rollups: 30 or 90 days, 48 hours, for every role', async () => {
    const t = await start();
    const now = Date.now();
    t.clock.set(now);
    const today = dayOf(now);
    const rollups = t.app.get(AnalyticsRollupsRepository);
    await rollups.upsert(
      'analytics_daily',
      [
        { bucket: today, metric: 'messages', dimension: 'text', value: 40 },
        { bucket: today, metric: 'messages', dimension: 'image', value: 2 },
        { bucket: today - DAY_MS, metric: 'messages', dimension: 'text', value: 7 },
        { bucket: today - DAY_MS, metric: 'calls', dimension: 'audio', value: 3 },
        { bucket: today - DAY_MS, metric: 'call_seconds', dimension: 'audio', value: 150 },
        { bucket: today - DAY_MS, metric: 'dau', dimension: '', value: 11 },
        { bucket: today - DAY_MS, metric: 'mau', dimension: '', value: 20 },
      ],
      'add',
    );
    await rollups.upsert(
      'analytics_hourly',
      [
        { bucket: hourOf(now) - HOUR_MS, metric: 'peak_connections', dimension: '', value: 9 },
        { bucket: hourOf(now) - HOUR_MS, metric: 'peak_connections', dimension: '', value: 5 },
      ],
      'max',
    );
    // The job stored yesterday's DAU/MAU: the page takes them from the rollup.
    await query(t, "UPDATE analytics_jobs SET cursor_at = ? WHERE name = 'active_days'", [today - DAY_MS]);

    for (const role of ['viewer', 'moderator', 'owner'] as const) {
      const session = await adminSession(t, role);
      const reply = expectOk<{
        range_days: number;
        days: Array<Record<string, unknown>>;
        hours: Array<Record<string, unknown>>;
        message_types: string[];
        today: { dau: number; mau: number };
        generated_at: number;
      }>(await session.get('/app/admin/analytics', { range: '30d' }));
      expect(reply.range_days).toBe(30);
      expect(reply.days).toHaveLength(30);
      expect(reply.hours).toHaveLength(48);
      expect(reply.message_types).toEqual(['image', 'text']);
      expect(reply.days[29]).toMatchObject({
        day: today,
        messages: 42,
        messages_by_type: [
          { type: 'image', count: 2 },
          { type: 'text', count: 40 },
        ],
      });
      expect(reply.days[28]).toMatchObject({ day: today - DAY_MS, dau: 11, mau: 20, calls: 3, call_minutes: 2.5 });
      expect(reply.hours[46]).toMatchObject({ hour: hourOf(now) - HOUR_MS, peak_connections: 9 });
      expect(reply.generated_at).toBe(now);
    }
    const viewer = await adminSession(t, 'viewer');
    expect(expectOk<{ days: unknown[] }>(await viewer.get('/app/admin/analytics', { range: '90d' })).days).toHaveLength(
      90,
    );
    const refused = await viewer.get('/app/admin/analytics', { range: '7d' });
    expect(refused.body).toMatchObject({ code: 1004 });
    expect(refused.body.msg).toContain('range');
    const anonymous = await t.http.get('/app/admin/analytics');
    expect(anonymous.body.code).not.toBe(0);

    // The dashboard's messages per day come from the same rollup.
    const dashboard = expectOk<{ messages_per_day: Array<{ start: number; count: number }> }>(
      await viewer.get('/app/admin/dashboard'),
    );
    expect(dashboard.messages_per_day.slice(-2)).toEqual([
      { start: today - DAY_MS, count: 7 },
      { start: today, count: 42 },
    ]);
  });
});
