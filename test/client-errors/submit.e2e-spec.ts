// Black-box tests of POST /app/sdk/client-errors, written from the spec (sections 2, 4, 4.2, 7, 8)
// and the service facts of the issue. The database is read only to check what was stored.
import { randomBytes } from 'node:crypto';
import { decode, sign } from 'jsonwebtoken';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import {
  IssuedUser,
  TEST_SECRETS,
  TestApp,
  bearer,
  hostAuth,
  randomUserId,
  startTestApp,
  uuidV4,
} from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';
import { clientErrorBody } from '../helpers/factories';

const PATH = '/app/sdk/client-errors';
const MINUTE = 60_000;
const DAY = 24 * 3600 * 1000;
const EMOJI = '\u{1F600}'; // one code point, two UTF-16 units, four UTF-8 bytes

type Body = Record<string, unknown>;
type Row = Record<string, unknown>;

function newDeviceId(): string {
  return `dev-${randomBytes(6).toString('hex')}`;
}

/** The field name as a whole word (so `message` is not satisfied by `message_id`). */
function fieldPattern(field: string): RegExp {
  return new RegExp(`(^|[^A-Za-z0-9_])${field}($|[^A-Za-z0-9_])`);
}

function expectRefused(res: Response, field?: string): void {
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toEqual({ code: 1004, msg: expect.any(String), data: null });
  expect(res.body.msg).not.toBe('ok');
  if (field) expect(res.body.msg).toMatch(fieldPattern(field));
}

function expectCode(res: Response, code: number): void {
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toEqual({ code, msg: expect.any(String), data: null });
  expect(res.body.msg).not.toBe('ok');
}

function expectAccepted(res: Response, eventId?: string, count = 1): void {
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toEqual({
    code: 0,
    msg: 'ok',
    data: { event_id: eventId ?? expect.any(String), occurrence_count: count },
  });
}

function contextText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('POST /app/sdk/client-errors (spec 4.2, black box)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;
  let minute: number;
  let u: IssuedUser;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    // Hold server time still one second into a whole minute, so merges never straddle a boundary.
    minute = Math.floor(Date.now() / MINUTE) * MINUTE;
    t.clock.set(minute + 1000);
    u = await api.user();
  });

  const submit = (token: string, body: unknown): Promise<Response> => api.raw.clientError({ token }, body);

  const rowsByDevice = async (deviceId: string): Promise<Row[]> =>
    (await db.query('SELECT * FROM client_errors WHERE device_id = ? ORDER BY id', [deviceId])) as Row[];

  const rowsByEvent = async (eventId: string): Promise<Row[]> =>
    (await db.query('SELECT * FROM client_errors WHERE event_id = ? ORDER BY id', [eventId])) as Row[];

  /** Submits a fresh report (own device) and returns the one stored row. */
  async function submitAndLoad(over: Body, user: IssuedUser = u): Promise<Row> {
    const body = clientErrorBody(user, over);
    const res = await submit(user.token, body);
    expectAccepted(res, body.event_id as string, 1);
    const rows = await rowsByEvent(body.event_id as string);
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  /** Submits a refused report and checks that nothing was stored for its device. */
  async function expectRefusedAndNothingStored(body: Body, field?: string, token = u.token): Promise<void> {
    const res = await submit(token, body);
    expectRefused(res, field);
    if (typeof body.device_id === 'string') expect(await rowsByDevice(body.device_id)).toHaveLength(0);
    if (typeof body.event_id === 'string') expect(await rowsByEvent(body.event_id)).toHaveLength(0);
  }

  describe('a valid report', () => {
    it('is stored and answered with the envelope, event_id and occurrence_count 1', async () => {
      const body = clientErrorBody(u);
      const res = await submit(u.token, body);
      expectAccepted(res, body.event_id as string, 1);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const rows = await rowsByEvent(body.event_id as string);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        message: body.message,
        device_id: body.device_id,
        platform: 'android',
        severity: 'normal',
        occurrence_count: 1,
      });
      expect(JSON.parse(contextText(rows[0].context))).toEqual(body.context);
    });

    it('accepts every nullable field with a real value and stores them', async () => {
      const values = {
        username: 'alice',
        stack_trace: 'Error: boom\n    at Foo.bar (foo.js:1:1)',
        build_id: '2024.06.01-rc1',
        conversation_id: 'friend_YWxpY2U',
        message_id: '1234567890123456789',
        trace_id: uuidV4(),
        recovered: true,
        context: { screen: 'chat', nested: { depth: 2, list: [1, 'two', null, true] } },
      };
      const row = await submitAndLoad(values);
      expect(row).toMatchObject({
        username: values.username,
        stack_trace: values.stack_trace,
        build_id: values.build_id,
        conversation_id: values.conversation_id,
        message_id: values.message_id,
        trace_id: values.trace_id,
      });
      expect(JSON.parse(contextText(row.context))).toEqual(values.context);
    });

    it('ignores unknown fields', async () => {
      const body = clientErrorBody(u, { extra_field: 'x', another: { nested: true }, timestamp: 123 });
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
    });

    it.each(['android', 'ios', 'harmony'])('accepts platform %s', async (platform) => {
      const row = await submitAndLoad({ platform });
      expect(row.platform).toBe(platform);
    });

    it.each(['normal', 'serious', 'fatal'])('accepts severity %s', async (severity) => {
      const row = await submitAndLoad({ severity });
      expect(row.severity).toBe(severity);
    });

    it.each([true, false])('accepts recovered %s', async (recovered) => {
      const body = clientErrorBody(u, { recovered });
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
    });

    it('accepts a context with a single key whose value is null', async () => {
      const body = clientErrorBody(u, { context: { k: null } });
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
    });

    it('stores emoji text exactly (utf8mb4)', async () => {
      const message = `boom ${EMOJI} 中文 ${EMOJI}`;
      const row = await submitAndLoad({ message, operation: `op${EMOJI}`, context: { note: `${EMOJI}` } });
      expect(row.message).toBe(message);
      expect(row.operation).toBe(`op${EMOJI}`);
      expect(JSON.parse(contextText(row.context))).toEqual({ note: EMOJI });
    });

    it('does not fail with a 500 on a deeply nested context', async () => {
      const depth = 3000;
      const context = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const body = clientErrorBody(u);
      const text = JSON.stringify({ ...body, context: '__CTX__' }).replace('"__CTX__"', context);
      const res = await t.http
        .post(PATH)
        .set(...bearer(u.token))
        .set('Content-Type', 'application/json')
        .send(text);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect([0, 1004]).toContain(res.body.code);
    });
  });

  describe('authentication (spec 5, 7)', () => {
    it('refuses a request without Authorization with 1101 and stores nothing', async () => {
      const body = clientErrorBody(u);
      const res = await t.http.post(PATH).send(body);
      expectCode(res, 1101);
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(0);
    });

    it.each([
      ['garbage', 'not-a-token'],
      ['three garbage segments', 'aaa.bbb.ccc'],
      ['the SDK secret (host credential)', TEST_SECRETS.SDK_SECRET],
      ['the JWT secret itself', TEST_SECRETS.JWT_SECRET],
    ])('refuses a bearer that is %s with 1102 and stores nothing', async (_label, credential) => {
      const body = clientErrorBody(u);
      const res = await submit(credential, body);
      expectCode(res, 1102);
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(0);
    });

    it('refuses a JWT with the right claims signed with another key (1102)', async () => {
      const claims = decode(u.token) as Record<string, unknown>;
      const forged = sign(claims, 'some-other-secret-0123456789abcdef-0123456789');
      expectCode(await submit(forged, clientErrorBody(u)), 1102);
    });

    it('refuses a JWT signed with the SDK secret (1102)', async () => {
      const claims = decode(u.token) as Record<string, unknown>;
      const forged = sign(claims, TEST_SECRETS.SDK_SECRET);
      expectCode(await submit(forged, clientErrorBody(u)), 1102);
    });

    it('refuses an unsigned (alg none) JWT (1102)', async () => {
      const claims = decode(u.token) as Record<string, unknown>;
      const forged = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`;
      expectCode(await submit(forged, clientErrorBody(u)), 1102);
    });

    it("refuses a JWT whose payload was changed to another user's, keeping the signature (1102)", async () => {
      const bob = await api.user();
      const [header, , signature] = u.token.split('.');
      const claims = { ...(decode(u.token) as Record<string, unknown>), user_id: bob.userId };
      const tampered = `${header}.${base64url(claims)}.${signature}`;
      const body = clientErrorBody(bob);
      expectCode(await submit(tampered, body), 1102);
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(0);
    });

    it('refuses an expired token with 1103 and stores nothing', async () => {
      const fresh = await api.user();
      t.clock.advance(8 * DAY);
      const body = clientErrorBody(fresh);
      const res = await submit(fresh.token, body);
      expectCode(res, 1103);
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(0);
    });

    it('refuses a non-Bearer scheme carrying a valid token (1101 or 1102)', async () => {
      const res = await t.http.post(PATH).set('Authorization', `Basic ${u.token}`).send(clientErrorBody(u));
      expect(res.headers['cache-control']).toBe('no-store');
      expect([1101, 1102]).toContain(res.body.code);
      expect(res.body.data).toBeNull();
    });

    it('refuses an empty Bearer (1101 or 1102)', async () => {
      const res = await t.http.post(PATH).set('Authorization', 'Bearer ').send(clientErrorBody(u));
      expect([1101, 1102]).toContain(res.body.code);
      expect(res.body.data).toBeNull();
    });

    it("refuses a user_id that is another user's with 1004 naming user_id, and stores nothing", async () => {
      const bob = await api.user();
      await expectRefusedAndNothingStored(clientErrorBody(u, { user_id: bob.userId }), 'user_id');
    });

    it('refuses a user_id that differs from the token only in case or whitespace', async () => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { user_id: u.userId.toUpperCase() }), 'user_id');
      await expectRefusedAndNothingStored(clientErrorBody(u, { user_id: `${u.userId} ` }), 'user_id');
      await expectRefusedAndNothingStored(clientErrorBody(u, { user_id: ` ${u.userId}` }), 'user_id');
    });

    it('refuses a user_id that is not a known user at all', async () => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { user_id: randomUserId('ghost') }), 'user_id');
    });

    it('accepts a user whose user_id is exactly 64 chars including emoji (chars are code points)', async () => {
      const prefix = `e${randomBytes(8).toString('hex')}`; // 17 chars
      const userId = `${prefix}${EMOJI.repeat(64 - prefix.length)}`;
      expect([...userId]).toHaveLength(64);
      const emojiUser = await api.user({ user_id: userId });
      const body = clientErrorBody(emojiUser);
      expectAccepted(await submit(emojiUser.token, body), body.event_id as string, 1);
    });
  });

  describe('idempotency per (user, event_id)', () => {
    it('answers a retry with the same record and does not raise occurrence_count', async () => {
      const body = clientErrorBody(u);
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
      const rows = await rowsByDevice(body.device_id as string);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].occurrence_count)).toBe(1);
    });

    it('answers a retry arriving minutes later with the same record, not a new one', async () => {
      const body = clientErrorBody(u);
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
      t.clock.set(minute + 5 * MINUTE + 1000);
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(1);
    });

    it('answers a retry of a merged report with the merged record, without counting it again', async () => {
      const a = clientErrorBody(u);
      const b = { ...a, event_id: uuidV4(), message: 'second' };
      const c = { ...a, event_id: uuidV4(), message: 'third' };
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      expectAccepted(await submit(u.token, b), a.event_id as string, 2);
      expectAccepted(await submit(u.token, b), a.event_id as string, 2);
      const retryA = await submit(u.token, a);
      expect(retryA.body.code).toBe(0);
      expect(retryA.body.data.event_id).toBe(a.event_id);
      expect(retryA.body.data.occurrence_count).toBeLessThanOrEqual(2);
      expectAccepted(await submit(u.token, c), a.event_id as string, 3);
      const rows = await rowsByDevice(a.device_id as string);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].occurrence_count)).toBe(3);
    });

    it('answers a retry of a merged report with the merged record also in a later minute', async () => {
      const a = clientErrorBody(u);
      const b = { ...a, event_id: uuidV4() };
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      expectAccepted(await submit(u.token, b), a.event_id as string, 2);
      t.clock.set(minute + 3 * MINUTE + 1000);
      expectAccepted(await submit(u.token, b), a.event_id as string, 2);
      expect(await rowsByDevice(a.device_id as string)).toHaveLength(1);
    });

    it('keeps the same record and count 1 under 10 concurrent identical submissions', async () => {
      const body = clientErrorBody(u);
      const replies = await Promise.all(Array.from({ length: 10 }, () => submit(u.token, body)));
      for (const res of replies) expectAccepted(res, body.event_id as string, 1);
      const rows = await rowsByDevice(body.device_id as string);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].occurrence_count)).toBe(1);
    });

    it('keeps an event_id per user: the same event_id from another user is a separate report', async () => {
      const bob = await api.user();
      const deviceId = newDeviceId();
      const eventId = uuidV4();
      const mine = clientErrorBody(u, { event_id: eventId, device_id: deviceId });
      const his = clientErrorBody(bob, { event_id: eventId, device_id: deviceId });
      expectAccepted(await submit(u.token, mine), eventId, 1);
      const other = await submit(bob.token, his);
      expect(other.body.code).toBe(0);
      expect(other.body.data.occurrence_count).toBe(1);
      // Alice's record is untouched by Bob's report.
      expectAccepted(await submit(u.token, mine), eventId, 1);
      expect(await rowsByDevice(deviceId)).toHaveLength(2);
    });

    it('keeps two users apart when both send the same event_id concurrently', async () => {
      const bob = await api.user();
      const deviceId = newDeviceId();
      const eventId = uuidV4();
      const mine = clientErrorBody(u, { event_id: eventId, device_id: deviceId });
      const his = clientErrorBody(bob, { event_id: eventId, device_id: deviceId });
      const replies = await Promise.all([
        ...Array.from({ length: 5 }, () => submit(u.token, mine)),
        ...Array.from({ length: 5 }, () => submit(bob.token, his)),
      ]);
      expect(replies.map((r) => r.body.code)).toEqual(Array(10).fill(0));
      for (const res of replies) expect(res.body.data.occurrence_count).toBe(1);
      const rows = await rowsByDevice(deviceId);
      expect(rows).toHaveLength(2);
      expect(rows.map((r) => Number(r.occurrence_count))).toEqual([1, 1]);
    });

    it('keeps 30 concurrent mixed submissions consistent (3 events x 10 retries, all similar)', async () => {
      const a = clientErrorBody(u);
      const events = [a, { ...a, event_id: uuidV4() }, { ...a, event_id: uuidV4() }];
      const replies = await Promise.all(events.flatMap((b) => Array.from({ length: 10 }, () => submit(u.token, b))));
      expect(replies.map((r) => r.body.code)).toEqual(Array(30).fill(0));
      expect(new Set(replies.map((r) => r.body.data.event_id)).size).toBe(1);
      const rows = await rowsByDevice(a.device_id as string);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].occurrence_count)).toBe(3);
    });

    it('does not consume an event_id on a refused submission', async () => {
      const body = clientErrorBody(u);
      expectRefused(await submit(u.token, { ...body, platform: 'web' }), 'platform');
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
    });

    it('does not count a refused similar submission into the merged record', async () => {
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      expectRefused(await submit(u.token, { ...a, event_id: uuidV4(), context: [] }), 'context');
      expectRefused(await submit(u.token, { ...a, event_id: uuidV4(), recovered: 'true' }), 'recovered');
      expectAccepted(await submit(u.token, { ...a, event_id: uuidV4() }), a.event_id as string, 2);
    });
  });

  describe('merging of similar errors within the same clock minute', () => {
    it('merges a similar report into the first record: first event_id, accumulated count', async () => {
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      for (let n = 2; n <= 4; n += 1) {
        t.clock.set(minute + 1000 + n * 5000);
        expectAccepted(await submit(u.token, { ...a, event_id: uuidV4() }), a.event_id as string, n);
      }
      const rows = await rowsByDevice(a.device_id as string);
      expect(rows).toHaveLength(1);
      expect(rows[0].event_id).toBe(a.event_id);
      expect(Number(rows[0].occurrence_count)).toBe(4);
    });

    it('merges up to the last millisecond of the minute and starts a new record at the next minute', async () => {
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      t.clock.set(minute + MINUTE - 1);
      expectAccepted(await submit(u.token, { ...a, event_id: uuidV4() }), a.event_id as string, 2);
      t.clock.set(minute + MINUTE);
      const c = { ...a, event_id: uuidV4() };
      expectAccepted(await submit(u.token, c), c.event_id as string, 1);
      const d = { ...a, event_id: uuidV4() };
      expectAccepted(await submit(u.token, d), c.event_id as string, 2);
      expect(await rowsByDevice(a.device_id as string)).toHaveLength(2);
    });

    it('starts a new record in a different minute even when less than 60 s apart', async () => {
      t.clock.set(minute + MINUTE - 500);
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      t.clock.set(minute + MINUTE + 500);
      const b = { ...a, event_id: uuidV4() };
      expectAccepted(await submit(u.token, b), b.event_id as string, 1);
    });

    it('does not merge into an earlier minute record when going back to it later', async () => {
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      t.clock.set(minute + 2 * MINUTE + 1000);
      const b = { ...a, event_id: uuidV4() };
      expectAccepted(await submit(u.token, b), b.event_id as string, 1);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
    });

    const keyChanges: Array<[string, (a: Body, other: IssuedUser) => Body]> = [
      ['device_id', () => ({ device_id: newDeviceId() })],
      ['platform', () => ({ platform: 'ios' })],
      ['severity', () => ({ severity: 'fatal' })],
      ['error_code', () => ({ error_code: 'net.timeout2' })],
      ['operation', () => ({ operation: 'send' })],
      ['build_id (null vs value)', () => ({ build_id: 'b1' })],
      ['device_id case', (a) => ({ device_id: (a.device_id as string).toUpperCase() })],
      ['operation case', () => ({ operation: 'Sync' })],
    ];

    it.each(keyChanges)('does not merge reports that differ in %s', async (_label, change) => {
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      const b = { ...a, event_id: uuidV4(), ...change(a, u) };
      expectAccepted(await submit(u.token, b), b.event_id as string, 1);
      expectAccepted(await submit(u.token, { ...a, event_id: uuidV4() }), a.event_id as string, 2);
    });

    it('does not merge reports whose build_id differs only in case', async () => {
      const a = clientErrorBody(u, { build_id: 'build-a' });
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      const b = { ...a, event_id: uuidV4(), build_id: 'BUILD-A' };
      expectAccepted(await submit(u.token, b), b.event_id as string, 1);
    });

    it('does not merge reports of two users with the same device and error', async () => {
      const bob = await api.user();
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      const b = { ...a, event_id: uuidV4(), user_id: bob.userId };
      expectAccepted(await submit(bob.token, b), b.event_id as string, 1);
    });

    it('merges reports that differ only in fields outside the merge key', async () => {
      const a = clientErrorBody(u);
      expectAccepted(await submit(u.token, a), a.event_id as string, 1);
      const b = {
        ...a,
        event_id: uuidV4(),
        username: 'someone',
        message: 'a different message',
        stack_trace: 'Error\n  at x',
        conversation_id: 'group_g1',
        message_id: '42',
        trace_id: uuidV4(),
        recovered: true,
        context: { other: 1 },
      };
      expectAccepted(await submit(u.token, b), a.event_id as string, 2);
    });

    it('merges 10 concurrent different event_ids with the same merge fields into one record with count 10', async () => {
      const a = clientErrorBody(u);
      const bodies = Array.from({ length: 10 }, () => ({ ...a, event_id: uuidV4() }));
      const replies = await Promise.all(bodies.map((b) => submit(u.token, b)));
      expect(replies.map((r) => r.body.code)).toEqual(Array(10).fill(0));
      const ids = new Set(replies.map((r) => r.body.data?.event_id));
      expect(ids.size).toBe(1);
      const first = [...ids][0] as string;
      expect(bodies.map((b) => b.event_id)).toContain(first);
      // Each reply tells the count its own occurrence made: 1..10, once each.
      const counts = replies.map((r) => r.body.data?.occurrence_count as number);
      expect([...counts].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      const rows = await rowsByDevice(a.device_id as string);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].occurrence_count)).toBe(10);
      // Every retry now answers with the merged record at 10.
      for (const b of bodies) expectAccepted(await submit(u.token, b), first, 10);
    });

    it('counts 5 concurrent retries of one event plus 5 concurrent similar events as 6 occurrences', async () => {
      const a = clientErrorBody(u);
      const others = Array.from({ length: 5 }, () => ({ ...a, event_id: uuidV4() }));
      const replies = await Promise.all([
        ...Array.from({ length: 5 }, () => submit(u.token, a)),
        ...others.map((b) => submit(u.token, b)),
      ]);
      expect(replies.map((r) => r.body.code)).toEqual(Array(10).fill(0));
      expect(new Set(replies.map((r) => r.body.data?.event_id)).size).toBe(1);
      const rows = await rowsByDevice(a.device_id as string);
      expect(rows).toHaveLength(1);
      expect(Number(rows[0].occurrence_count)).toBe(6);
    });
  });

  describe('host credential on the SDK endpoint', () => {
    it('does not accept the host Authorization header helper on the client endpoint', async () => {
      const body = clientErrorBody(u);
      const res = await t.http
        .post(PATH)
        .set(...hostAuth())
        .send(body);
      expectCode(res, 1102);
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(0);
    });
  });
});
