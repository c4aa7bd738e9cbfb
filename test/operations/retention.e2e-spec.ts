// Retention (issue 10, operations): client errors, room-callback events and idempotency records
// older than their configured time are deleted in small batches; newer rows stay; two instances
// pruning the same database at once delete each row once and fail nothing; a retry of a pruned
// idempotency key is counted again. Rows are written at a random day of 2001 (the apps' clocks
// are set there), so rows of other test files on a shared database are never old enough; the
// one other spec that runs retention (realtime/ordering) keeps these tables.
import { randomBytes, randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RtcRoomEventsRepository } from '../../src/rtc-callback/rtc-room-events.repository';
import { RetentionService } from '../../src/retention/retention.service';
import { clientErrorReport } from '../helpers/client-error';
import { TestApp, bearer, issueUser, startTestApp, uuidV4 } from '../helpers/test-app';

const DAY = 24 * 60 * 60 * 1000;
const T = Date.UTC(2001, 0, 1) + randomInt(0, 300) * DAY + randomInt(0, DAY);

type Table = 'client_errors' | 'client_error_submissions' | 'rtc_room_events';
const TIME_COLUMN: Record<Table, string> = {
  client_errors: 'last_seen_at',
  client_error_submissions: 'created_at',
  rtc_room_events: 'received_at',
};
/** Default retention in days: client errors and room events 30, idempotency records 7. */
const DAYS: Record<Table, number> = { client_errors: 30, client_error_submissions: 7, rtc_room_events: 30 };
const TABLES = Object.keys(TIME_COLUMN) as Table[];

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

describe('retention of client errors, room events and idempotency records', () => {
  let a: TestApp;
  let b: TestApp;
  let db: DataSource;

  /** Another instance on the same database (on SQLite, the same file). */
  const sameDatabase = (t: TestApp, env: Record<string, string> = {}): Promise<TestApp> =>
    startTestApp({
      ...(t.config.database.type === 'sqlite' ? { DATABASE_URL: `sqlite:${t.config.database.path}` } : {}),
      ...env,
    });

  beforeAll(async () => {
    a = await startTestApp({ RETENTION_BATCH_SIZE: '3' });
    b = await sameDatabase(a, { RETENTION_BATCH_SIZE: '5' });
    db = a.app.get(DataSource);
  });
  afterAll(async () => {
    // On a shared database, leave none of this run's rows (all within weeks of T) behind.
    for (const table of TABLES)
      await db?.query(`DELETE FROM ${table} WHERE ${TIME_COLUMN[table]} BETWEEN ? AND ?`, [T - 60 * DAY, T + 60 * DAY]);
    await b?.close();
    await a?.close();
  });
  beforeEach(() => {
    a.clock.set(T);
    b.clock.set(T);
  });

  /** Inserts one row of `table` at `time`, tagged with `tag` (device, merge key or provider user). */
  async function insert(table: Table, time: number, tag: string): Promise<void> {
    if (table === 'client_errors') {
      await db.query(
        'INSERT INTO client_errors (event_id, merge_key, user_id, username, device_id, platform, severity, error_code, message, stack_trace, operation, build_id, conversation_id, message_id, trace_id, recovered, context, occurrence_count, first_seen_at, last_seen_at) ' +
          "VALUES (?, ?, 1, NULL, ?, 'ios', 'normal', 'x', 'm', NULL, 'op', NULL, NULL, NULL, NULL, 0, '{}', 1, ?, ?)",
        [uuidV4(), hex(32), tag, time, time],
      );
    } else if (table === 'client_error_submissions') {
      await db.query(
        'INSERT INTO client_error_submissions (user_id, event_id, merge_key, created_at) VALUES (?, ?, ?, ?)',
        [randomInt(1, 2 ** 40), uuidV4(), tag, time],
      );
    } else {
      await db.query(
        "INSERT INTO rtc_room_events (body_sha256, sdk_app_id, event_type, room_id, provider_user_id, event_ms, callback_ts, event_info, received_at) VALUES (?, '1', 103, '1', ?, ?, ?, '{}', ?)",
        [hex(32), tag, time, time, time],
      );
    }
  }

  const TAG_COLUMN: Record<Table, string> = {
    client_errors: 'device_id',
    client_error_submissions: 'merge_key',
    rtc_room_events: 'provider_user_id',
  };

  async function countTagged(table: Table, tag: string): Promise<number> {
    const rows: Array<{ n: number | string }> = await db.query(
      `SELECT COUNT(*) AS n FROM ${table} WHERE ${TAG_COLUMN[table]} = ?`,
      [tag],
    );
    return Number(rows[0].n);
  }

  /** Rows of the whole table older than the cutoff at `now` (what a run may delete). */
  async function countOld(table: Table, now: number): Promise<number> {
    const rows: Array<{ n: number | string }> = await db.query(
      `SELECT COUNT(*) AS n FROM ${table} WHERE ${TIME_COLUMN[table]} < ?`,
      [now - DAYS[table] * DAY],
    );
    return Number(rows[0].n);
  }

  /** `old` rows one day past the cutoff, one exactly at it, and `fresh` rows a day inside it. */
  async function fill(
    old: number,
    fresh: number,
  ): Promise<Record<Table, { old: string; edge: string; fresh: string }>> {
    const tags = {} as Record<Table, { old: string; edge: string; fresh: string }>;
    for (const table of TABLES) {
      const cutoff = T - DAYS[table] * DAY;
      tags[table] = { old: `old-${hex(8)}`, edge: `edge-${hex(8)}`, fresh: `fresh-${hex(8)}` };
      for (let i = 0; i < old; i++) await insert(table, cutoff - DAY - i, tags[table].old);
      await insert(table, cutoff, tags[table].edge);
      for (let i = 0; i < fresh; i++) await insert(table, cutoff + DAY + i, tags[table].fresh);
    }
    return tags;
  }

  it("deletes the rows older than each table's retention, keeps the others, and works in batches of RETENTION_BATCH_SIZE", async () => {
    const tags = await fill(7, 3);
    const before = Object.fromEntries(
      await Promise.all(TABLES.map(async (table) => [table, await countOld(table, T)] as const)),
    ) as Record<Table, number>;
    const events = a.app.get(RtcRoomEventsRepository);
    const batches = jest.spyOn(events, 'deleteOlderThan');
    try {
      const run = await a.app.get(RetentionService).runOnce();
      // The outbox is pruned in the same run (its own tests: test/realtime/ordering.e2e-spec.ts).
      expect(run).toEqual({
        deleted: {
          ...before,
          outbox_events: expect.any(Number),
          host_sessions: expect.any(Number),
          host_sms_codes: expect.any(Number),
          host_sms_phone_sends: expect.any(Number),
          // Pruned in the same run; their own specs: src/retention, test/webhooks, test/push.
          server_requests: expect.any(Number),
          webhook_deliveries: expect.any(Number),
          push_deliveries: expect.any(Number),
          // Its own spec: test/analytics.
          analytics_user_days: expect.any(Number),
          // Client error groups and their trend buckets: test/admin/admin-client-errors.e2e-spec.ts.
          client_error_groups: expect.any(Number),
          client_error_group_hours: expect.any(Number),
          client_error_group_days: expect.any(Number),
        },
        failed: [],
      });
      // 3 per batch, until one finds nothing.
      const counts = await Promise.all(batches.mock.results.map((r) => r.value as Promise<number>));
      const n = before.rtc_room_events;
      expect(counts).toEqual([...Array.from({ length: Math.floor(n / 3) }, () => 3), ...(n % 3 ? [n % 3] : []), 0]);
      expect(batches.mock.calls.every(([cutoff, size]) => cutoff === T - 30 * DAY && size === 3)).toBe(true);
    } finally {
      batches.mockRestore();
    }
    for (const table of TABLES) {
      expect({
        table,
        old: await countTagged(table, tags[table].old),
        edge: await countTagged(table, tags[table].edge),
        fresh: await countTagged(table, tags[table].fresh),
      }).toEqual({ table, old: 0, edge: 1, fresh: 3 });
      expect(await countOld(table, T)).toBe(0);
    }
  });

  it('keeps every row for ever when the days are 0', async () => {
    const keeper = await sameDatabase(a, {
      RETENTION_CLIENT_ERRORS_DAYS: '0',
      RETENTION_ROOM_EVENTS_DAYS: '0',
      RETENTION_IDEMPOTENCY_DAYS: '0',
    });
    try {
      keeper.clock.set(T + 3650 * DAY);
      const tags = await fill(2, 0);
      expect(await keeper.app.get(RetentionService).runOnce()).toEqual({
        deleted: {
          outbox_events: expect.any(Number),
          host_sessions: expect.any(Number),
          host_sms_codes: expect.any(Number),
          host_sms_phone_sends: expect.any(Number),
          webhook_deliveries: expect.any(Number),
          push_deliveries: expect.any(Number),
          // Its own spec: test/analytics.
          analytics_user_days: expect.any(Number),
          // The trend buckets only serve the console's 24 h and 30 d charts: they always expire.
          client_error_group_hours: expect.any(Number),
          client_error_group_days: expect.any(Number),
        },
        failed: [],
      });
      for (const table of TABLES) expect(await countTagged(table, tags[table].old)).toBe(2);
    } finally {
      await keeper.close();
    }
    await a.app.get(RetentionService).runOnce();
  });

  it('lets two instances prune the same rows at once: each row is deleted once, nothing fails, newer rows stay', async () => {
    const tags = await fill(60, 4);
    const before = await Promise.all(TABLES.map((table) => countOld(table, T)));
    const [first, second] = await Promise.all([
      a.app.get(RetentionService).runOnce(),
      b.app.get(RetentionService).runOnce(),
    ]);
    expect({ first: first.failed, second: second.failed }).toEqual({ first: [], second: [] });
    for (const [i, table] of TABLES.entries()) {
      const after = await countOld(table, T);
      expect({ table, after, deletedTogether: first.deleted[table] + second.deleted[table] }).toEqual({
        table,
        after: 0,
        deletedTogether: before[i],
      });
      expect(await countTagged(table, tags[table].fresh)).toBe(4);
      expect(await countTagged(table, tags[table].edge)).toBe(1);
    }
  });

  describe('a retry of a pruned idempotency key', () => {
    const report = (userId: string, eventId: string, deviceId: string) =>
      clientErrorReport(userId, { event_id: eventId, device_id: deviceId, platform: 'android', context: { a: 1 } });

    async function rowsOf(deviceId: string): Promise<{ records: number[]; submissions: number }> {
      const records: Array<{ occurrence_count: number | string }> = await db.query(
        'SELECT occurrence_count FROM client_errors WHERE device_id = ? ORDER BY id',
        [deviceId],
      );
      const submissions: Array<{ n: number | string }> = await db.query(
        'SELECT COUNT(*) AS n FROM client_error_submissions s WHERE s.merge_key IN (SELECT merge_key FROM client_errors WHERE device_id = ?)',
        [deviceId],
      );
      return { records: records.map((r) => Number(r.occurrence_count)), submissions: Number(submissions[0].n) };
    }

    it('is counted again once its submission is pruned (the record it went into is kept)', async () => {
      const user = await issueUser(a);
      const [eventId, deviceId] = [uuidV4(), `dev-${hex(6)}`];
      const first = await a.http
        .post('/app/sdk/client-errors')
        .set(...bearer(user.token))
        .send(report(user.userId, eventId, deviceId));
      expect(first.body).toEqual({ code: 0, msg: 'ok', data: { event_id: eventId, occurrence_count: 1 } });
      const retried = await a.http
        .post('/app/sdk/client-errors')
        .set(...bearer(user.token))
        .send(report(user.userId, eventId, deviceId));
      expect(retried.body.data).toEqual({ event_id: eventId, occurrence_count: 1 });

      a.clock.set(T + 8 * DAY);
      await a.app.get(RetentionService).runOnce();
      expect(await rowsOf(deviceId)).toEqual({ records: [1], submissions: 0 });
      const fresh = await issueUser(a, { user_id: user.userId });
      const late = await a.http
        .post('/app/sdk/client-errors')
        .set(...bearer(fresh.token))
        .send(report(user.userId, eventId, deviceId));
      expect(late.body).toEqual({ code: 0, msg: 'ok', data: { event_id: eventId, occurrence_count: 1 } });
      expect(await rowsOf(deviceId)).toEqual({ records: [1, 1], submissions: 1 });
    });

    it('is counted again, not answered 500, when its record was pruned before its submission', async () => {
      const pruner = await sameDatabase(a, { RETENTION_CLIENT_ERRORS_DAYS: '1', RETENTION_IDEMPOTENCY_DAYS: '0' });
      try {
        pruner.clock.set(T);
        const user = await issueUser(pruner);
        const [eventId, deviceId] = [uuidV4(), `dev-${hex(6)}`];
        const first = await pruner.http
          .post('/app/sdk/client-errors')
          .set(...bearer(user.token))
          .send(report(user.userId, eventId, deviceId));
        expect(first.body.data).toEqual({ event_id: eventId, occurrence_count: 1 });
        pruner.clock.set(T + 2 * DAY);
        await pruner.app.get(RetentionService).runOnce();
        const orphans: Array<{ n: number | string }> = await db.query(
          'SELECT COUNT(*) AS n FROM client_error_submissions WHERE event_id = ?',
          [eventId],
        );
        expect({ records: (await rowsOf(deviceId)).records, submissions: Number(orphans[0].n) }).toEqual({
          records: [],
          submissions: 1,
        });

        const retry = await pruner.http
          .post('/app/sdk/client-errors')
          .set(...bearer(user.token))
          .send(report(user.userId, eventId, deviceId));
        expect({ status: retry.status, body: retry.body }).toEqual({
          status: 200,
          body: { code: 0, msg: 'ok', data: { event_id: eventId, occurrence_count: 1 } },
        });
        expect(await rowsOf(deviceId)).toEqual({ records: [1], submissions: 1 });
        const again = await pruner.http
          .post('/app/sdk/client-errors')
          .set(...bearer(user.token))
          .send(report(user.userId, eventId, deviceId));
        expect(again.body.data).toEqual({ event_id: eventId, occurrence_count: 1 });
      } finally {
        await pruner.close();
      }
    });
  });
});
