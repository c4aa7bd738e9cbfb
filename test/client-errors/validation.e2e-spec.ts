// Black-box tests of POST /app/sdk/client-errors, written from the spec (sections 2, 4, 4.2, 7, 8)
// and the service facts of the issue. The database is read only to check what was stored.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { IssuedUser, TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';
import { clientErrorBody } from '../helpers/factories';

const PATH = '/app/sdk/client-errors';
const MINUTE = 60_000;
const EMOJI = '\u{1F600}'; // one code point, two UTF-16 units, four UTF-8 bytes

type Body = Record<string, unknown>;
type Row = Record<string, unknown>;

const FIELDS = [
  'event_id',
  'user_id',
  'username',
  'device_id',
  'platform',
  'severity',
  'error_code',
  'message',
  'stack_trace',
  'operation',
  'build_id',
  'conversation_id',
  'message_id',
  'trace_id',
  'recovered',
  'context',
];
const NULLABLE = ['username', 'stack_trace', 'build_id', 'conversation_id', 'message_id', 'trace_id'];
const NON_NULLABLE = FIELDS.filter((f) => !NULLABLE.includes(f));
const STRING_FIELDS = FIELDS.filter((f) => f !== 'recovered' && f !== 'context');

function omit(body: Body, field: string): Body {
  const copy = { ...body };
  delete copy[field];
  return copy;
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

  describe('unusual but well-formed input never causes a 500', () => {
    const sendRaw = (text: string): Promise<Response> =>
      t.http
        .post(PATH)
        .set(...bearer(u.token))
        .set('Content-Type', 'application/json')
        .send(text);

    it.each([
      ['a lone high surrogate', '\\ud800'],
      ['a lone low surrogate', '\\udfff'],
      ['a NUL character', '\\u0000'],
    ])('answers a message containing %s with 0 or 1004', async (_label, escape) => {
      const body = clientErrorBody(u, { message: '__MSG__' });
      const res = await sendRaw(JSON.stringify(body).replace('__MSG__', `before ${escape} after`));
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect([0, 1004]).toContain(res.body.code);
    });

    it('answers a context of about 600 KB with 0 (stored whole) or 1004, never a 500 or truncation', async () => {
      const big = 'c'.repeat(600 * 1024);
      const body = clientErrorBody(u, { context: { blob: big } });
      const res = await submit(u.token, body);
      expect(res.status).toBe(200);
      expect([0, 1004]).toContain(res.body.code);
      if (res.body.code === 0) {
        const rows = await rowsByEvent(body.event_id as string);
        expect(rows).toHaveLength(1);
        expect(JSON.parse(contextText(rows[0].context))).toEqual({ blob: big });
      } else {
        expect(res.body.msg).toMatch(fieldPattern('context'));
      }
    });

    it('answers a context with 20000 keys with 0 or 1004, never a 500', async () => {
      const context: Record<string, number> = {};
      for (let i = 0; i < 20000; i += 1) context[`k${i}`] = i;
      const res = await submit(u.token, clientErrorBody(u, { context }));
      expect(res.status).toBe(200);
      expect([0, 1004]).toContain(res.body.code);
    });
  });

  describe('required fields and null (all 16 present, nullable ones as null)', () => {
    it.each(FIELDS)('refuses a report without %s, naming it, and stores nothing', async (field) => {
      await expectRefusedAndNothingStored(omit(clientErrorBody(u), field), field);
    });

    it.each(NON_NULLABLE)('refuses %s = null, naming it', async (field) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { [field]: null }), field);
    });

    it.each(NULLABLE)('accepts %s = null', async (field) => {
      const body = clientErrorBody(u, { [field]: null });
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
    });

    it('refuses an empty object', async () => {
      expectRefused(await submit(u.token, {}));
    });

    it('refuses a report whose only missing field is hidden behind __proto__', async () => {
      const body = omit(clientErrorBody(u), 'context');
      const text = JSON.stringify(body).replace(/}$/, ',"__proto__":{"context":{"a":1}}}');
      const res = await t.http
        .post(PATH)
        .set(...bearer(u.token))
        .set('Content-Type', 'application/json')
        .send(text);
      expectRefused(res, 'context');
      expect(await rowsByDevice(body.device_id as string)).toHaveLength(0);
    });
  });

  describe('type confusion', () => {
    const confusions = (valid: unknown): Array<[string, unknown]> => [
      ['a number', 42],
      ['a boolean', true],
      ['an empty object', {}],
      ['an object wrapping the valid value', { value: valid }],
      ['an array holding the valid value', [valid]],
    ];
    const cases: Array<[string, string, unknown]> = [];
    for (const field of STRING_FIELDS) {
      const sample = clientErrorBody({ userId: 'sample' })[field] ?? 'x';
      for (const [label, value] of confusions(sample)) cases.push([field, label, value]);
    }

    it.each(cases)('refuses %s as %s, naming the field', async (field, _label, value) => {
      const body = clientErrorBody(u);
      // The array/object "wrapping the valid value" uses this test's real value where it matters.
      const real = body[field] ?? 'x';
      const replaced = Array.isArray(value)
        ? [real]
        : typeof value === 'object' && value !== null && 'value' in value
          ? { value: real }
          : value;
      await expectRefusedAndNothingStored({ ...body, [field]: replaced }, field);
    });

    it.each([
      ['the string "true"', 'true'],
      ['the string "false"', 'false'],
      ['1', 1],
      ['0', 0],
      ['an empty string', ''],
      ['an array', [true]],
      ['an object', { value: true }],
    ])('refuses recovered as %s', async (_label, value) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { recovered: value }), 'recovered');
    });

    it.each([
      ['an empty object', {}],
      ['an empty array', []],
      ['an array of objects', [{ a: 1 }]],
      ['an array of strings', ['a']],
      ['a string', 'screen=home'],
      ['a JSON-encoded object string', '{"screen":"home"}'],
      ['a number', 1],
      ['a boolean', true],
    ])('refuses context as %s', async (_label, value) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { context: value }), 'context');
    });
  });

  describe('lengths (chars are Unicode code points, spec 4.2 and 8)', () => {
    interface LengthCase {
      field: string;
      max: number;
      emoji: boolean;
      filler: string;
    }
    const LENGTHS: LengthCase[] = [
      { field: 'username', max: 64, emoji: true, filler: 'x' },
      { field: 'device_id', max: 128, emoji: false, filler: 'a' },
      { field: 'error_code', max: 128, emoji: false, filler: 'a' },
      { field: 'message', max: 4096, emoji: true, filler: 'x' },
      { field: 'stack_trace', max: 32768, emoji: true, filler: 'x' },
      { field: 'operation', max: 128, emoji: true, filler: 'x' },
      { field: 'build_id', max: 128, emoji: true, filler: 'x' },
      { field: 'conversation_id', max: 512, emoji: true, filler: 'x' },
      { field: 'message_id', max: 128, emoji: true, filler: 'x' },
    ];

    it.each(LENGTHS.map((c) => [c.field, c.max, c] as const))(
      'accepts %s of exactly %d ASCII chars and stores it whole',
      async (field, max, c) => {
        const value = c.filler.repeat(max);
        const row = await submitAndLoad({ [field]: value });
        expect(row[field]).toBe(value);
      },
    );

    it.each(LENGTHS.map((c) => [c.field, c.max + 1, c] as const))(
      'refuses %s of %d ASCII chars',
      async (field, n, c) => {
        await expectRefusedAndNothingStored(clientErrorBody(u, { [field]: c.filler.repeat(n) }), field);
      },
    );

    const emojiCases = LENGTHS.filter((c) => c.emoji);
    it.each(emojiCases.map((c) => [c.field, c.max] as const))(
      'accepts %s of exactly %d emoji and stores it whole',
      async (field, max) => {
        const value = EMOJI.repeat(max);
        const row = await submitAndLoad({ [field]: value });
        expect(row[field]).toBe(value);
      },
    );

    it.each(emojiCases.map((c) => [c.field, c.max + 1] as const))('refuses %s of %d emoji', async (field, n) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { [field]: EMOJI.repeat(n) }), field);
    });

    it('counts combining marks as separate code points in message (4096 accepted, 4097 refused)', async () => {
      const atMax = 'e\u0301'.repeat(2048);
      const row = await submitAndLoad({ message: atMax });
      expect(row.message).toBe(atMax);
      await expectRefusedAndNothingStored(clientErrorBody(u, { message: `${atMax}e` }), 'message');
    });

    it.each(['device_id', 'message', 'operation', 'user_id'])('refuses an empty %s', async (field) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { [field]: '' }), field);
    });

    it('refuses a 65-char user_id', async () => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { user_id: 'u'.repeat(65) }), 'user_id');
    });

    it('accepts a one-char device_id, message and operation', async () => {
      const row = await submitAndLoad({ device_id: 'z', message: 'm', operation: 'o' });
      expect(row).toMatchObject({ device_id: 'z', message: 'm', operation: 'o' });
    });

    it('accepts an error_code of 128 chars made of segments', async () => {
      const code = `${'ab.'.repeat(42)}ab`;
      expect(code).toHaveLength(128);
      const row = await submitAndLoad({ error_code: code });
      expect(row.error_code).toBe(code);
    });
  });

  describe('event_id and trace_id: lowercase UUID v4', () => {
    const V4 = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
    const bad: Array<[string, string]> = [
      ['uppercase', V4.toUpperCase()],
      ['one uppercase letter', 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5D'],
      ['version 1', 'a1b2c3d4-e5f6-1a7b-8c9d-0e1f2a3b4c5d'],
      ['version 5', 'a1b2c3d4-e5f6-5a7b-8c9d-0e1f2a3b4c5d'],
      ['version 7', 'a1b2c3d4-e5f6-7a7b-8c9d-0e1f2a3b4c5d'],
      ['the nil UUID', '00000000-0000-0000-0000-000000000000'],
      ['variant bits 110x (c)', 'a1b2c3d4-e5f6-4a7b-cc9d-0e1f2a3b4c5d'],
      ['variant bits 0xxx (7)', 'a1b2c3d4-e5f6-4a7b-7c9d-0e1f2a3b4c5d'],
      ['no dashes', V4.replace(/-/g, '')],
      ['braces', `{${V4}}`],
      ['a urn prefix', `urn:uuid:${V4}`],
      ['one char short', V4.slice(0, -1)],
      ['one char long', `${V4}0`],
      ['a trailing newline', `${V4}\n`],
      ['a leading space', ` ${V4}`],
      ['a non-hex char', 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5g'],
      ['misplaced dashes', 'a1b2c3d-4e5f6-4a7b-8c9d-0e1f2a3b4c5d'],
      ['an empty string', ''],
    ];

    it.each(bad)('refuses event_id with %s', async (_label, value) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { event_id: value }), 'event_id');
    });

    it.each(bad)('refuses trace_id with %s', async (_label, value) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { trace_id: value }), 'trace_id');
    });

    it.each(['8', '9', 'a', 'b'])('accepts a lowercase v4 with variant nibble %s for both ids', async (variant) => {
      const id = `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-4${randomBytes(2).toString('hex').slice(1)}-${variant}${randomBytes(2).toString('hex').slice(1)}-${randomBytes(6).toString('hex')}`;
      const row = await submitAndLoad({ event_id: id, trace_id: id });
      expect(row).toMatchObject({ event_id: id, trace_id: id });
    });
  });

  describe('device_id characters (letters, digits, . _ : -)', () => {
    it.each(['a..b', 'A', 'a_', 'a-', 'a.', ':', '-', '_a', 'Dev:01.ab_CD-9', '00:1A:2B:3C:4D:5E'])(
      'accepts device_id %j',
      async (deviceId) => {
        const row = await submitAndLoad({ device_id: deviceId });
        expect(row.device_id).toBe(deviceId);
      },
    );

    it.each([
      'a b',
      ' a',
      'a ',
      'a/b',
      'a@b',
      'a+b',
      'a,b',
      'a\u0000b',
      'a\nb',
      'a\tb',
      EMOJI,
      `a${EMOJI}`,
      'a#b',
      'a%b',
    ])('refuses device_id %j', async (deviceId) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { device_id: deviceId }), 'device_id');
    });
  });

  describe('error_code characters (lowercase letters and digits, segments split by single . _ -)', () => {
    it.each(['a', '7', 'a.b', 'a_b', 'a-b', 'net.timeout_1-x', '0.0.0', 'http.500', 'a1.b2_c3-d4'])(
      'accepts error_code %j',
      async (code) => {
        const row = await submitAndLoad({ error_code: code });
        expect(row.error_code).toBe(code);
      },
    );

    it.each([
      'A',
      'Net.timeout',
      'net.Timeout',
      'a..b',
      'a__b',
      'a--b',
      'a.-b',
      'a_',
      'a.',
      'a-',
      '_a',
      '.a',
      '-a',
      'a b',
      'a:b',
      'a/b',
      ' a',
      'a\n',
      'é',
      EMOJI,
      '.',
      '_',
    ])('refuses error_code %j', async (code) => {
      await expectRefusedAndNothingStored(clientErrorBody(u, { error_code: code }), 'error_code');
    });
  });

  describe('enums', () => {
    it.each(['web', 'Android', 'IOS', 'iOS', 'harmonyos', 'HARMONY', 'uniapp', ' android', 'android ', ''])(
      'refuses platform %j',
      async (platform) => {
        await expectRefusedAndNothingStored(clientErrorBody(u, { platform }), 'platform');
      },
    );

    it.each(['Normal', 'FATAL', 'warning', 'error', 'critical', 'fatal ', ''])(
      'refuses severity %j',
      async (severity) => {
        await expectRefusedAndNothingStored(clientErrorBody(u, { severity }), 'severity');
      },
    );
  });
});
