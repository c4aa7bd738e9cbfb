// Issue 10, defect 7 and its review: every stored free-text field of a client error (and a
// report's description) is scrubbed of IM tokens and of the service's secrets, also
// percent-encoded (at any depth), Base64-encoded, split by white space or invisible characters,
// with dots written as JSON escapes or HTML references, and a token without its header;
// identifiers that cannot hold a marker refuse a credential with 1004. The stored rows are read
// back and searched for every fragment of every credential, in every form.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';
import { undisguise } from '../helpers/undisguise';
import { ApiClient, Body, IssuedUser } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';

type Row = Record<string, unknown>;

const METRICS_TOKEN = 'test-metrics-token-0123456789abcdef';
const SECRETS = [TEST_SECRETS.SDK_SECRET, TEST_SECRETS.JWT_SECRET, TEST_SECRETS.RTC_CALLBACK_SECRET, METRICS_TOKEN];
const b64 = (value: string): string => Buffer.from(value).toString('base64');
const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const percentAll = (value: string): string =>
  [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** Every character percent-encoded, then URL-encoded again until `times` layers (`%` becomes `%25`). */
const percentTimes = (value: string, times: number): string =>
  times === 1 ? percentAll(value) : encodeURIComponent(percentTimes(value, times - 1));
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'];
/** `value` with a zero-width or other format character after every `step` characters. */
const sprinkle = (value: string, step: number): string =>
  [...value].map((char, i) => (i % step === step - 1 ? char + INVISIBLE[i % INVISIBLE.length] : char)).join('');

/** Every 10 characters of each credential: what would let a reader rebuild a token or learn a secret. */
const fragmentsOf = (credentials: string[]): string[] =>
  credentials.flatMap((value) =>
    Array.from({ length: Math.max(1, value.length - 9) }, (_, i) => value.slice(i, i + 10)),
  );

/**
 * Fails when `text` holds a fragment of a credential in any form: as is, with every disguise
 * undone, or inside Base64 / Base64URL at any alignment.
 */
function expectNoCredential(text: string, fragments: string[], where: string): void {
  const views = [text, undisguise(text)];
  for (const view of [...views]) {
    for (const blob of view.match(/[A-Za-z0-9+/_-]{16,}/g) ?? []) {
      for (let shift = 0; shift < 4; shift++) views.push(Buffer.from(blob.slice(shift), 'base64').toString('latin1'));
    }
  }
  for (const view of views) {
    for (const fragment of fragments) {
      if (view.includes(fragment)) throw new Error(`${where} still holds a credential fragment (${fragment})`);
    }
  }
}

describe('client error scrubbing (issue 10, defect 7)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;
  let user: IssuedUser;
  /** Fragments whose presence in a stored row is a failure: of the secrets, the token's payload and its signature (its header is public). */
  let credentials: string[];
  let payload: string;
  let signature: string;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
    db = t.app.get(DataSource);
    api = new ApiClient(t);
    user = await api.user();
    [, payload, signature] = user.token.split('.');
    credentials = fragmentsOf([...SECRETS, payload, signature]);
  });
  afterAll(() => t.close());

  /** A valid report of `user` on a device of its own; the stored rows are found by device_id. */
  const report = (over: Body = {}): Body =>
    clientErrorBody(user, {
      platform: 'ios',
      severity: 'serious',
      error_code: 'auth.failed',
      message: 'request failed',
      ...over,
    });
  const send = (body: Body) => api.raw.clientError(user, body);
  // The stored rows are read back with SQL: what was stored is what these tests judge.

  async function storedRow(deviceId: string): Promise<Row> {
    const rows: Row[] = await db.query('SELECT * FROM client_errors WHERE device_id = ?', [deviceId]);
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  /** Sends, expects success, and returns the stored row after checking no column holds a credential. */
  async function storeClean(over: Body): Promise<Row> {
    const body = report(over);
    expectOk(await send(body));
    const row = await storedRow(body.device_id as string);
    for (const [column, value] of Object.entries(row))
      if (typeof value === 'string') expectNoCredential(value, credentials, `client_errors.${column}`);
    const submissions: Row[] = await db.query(
      'SELECT * FROM client_error_submissions WHERE user_id = ? AND event_id = ?',
      [user.id, body.event_id],
    );
    expect(submissions).toHaveLength(1);
    for (const value of Object.values(submissions[0]))
      if (typeof value === 'string') expectNoCredential(value, credentials, 'client_error_submissions');
    return row;
  }

  describe('every stored free-text field', () => {
    it.each([
      [
        'a valid IM token in conversation_id',
        () => ({ conversation_id: `friend_x?token=${user.token}` }),
        'conversation_id',
      ],
      ['the SDK secret in username', () => ({ username: TEST_SECRETS.SDK_SECRET }), 'username'],
      ['the SDK secret in operation', () => ({ operation: `login:${TEST_SECRETS.SDK_SECRET}` }), 'operation'],
      ['the SDK secret in build_id', () => ({ build_id: TEST_SECRETS.SDK_SECRET }), 'build_id'],
      ['the JWT secret in message_id', () => ({ message_id: TEST_SECRETS.JWT_SECRET }), 'message_id'],
      [
        'the callback secret in stack_trace',
        () => ({ stack_trace: `Error\n    at sign (${TEST_SECRETS.RTC_CALLBACK_SECRET})` }),
        'stack_trace',
      ],
      [
        'a token in a context value and a context key',
        () => ({ context: { note: user.token, [user.token]: 1, nested: [{ deep: `x ${user.token}` }] } }),
        'context',
      ],
    ])('removes %s', async (_label, over, column) => {
      const row = await storeClean(over());
      expect(String(row[column])).toContain('[REDACTED]');
    });
  });

  describe('disguised tokens and secrets in message', () => {
    it.each([
      ['a token with %2E for its dots', () => `GET /x?t=${user.token.replace(/\./g, '%2E')} failed`],
      ['a token with %2e for its dots', () => `t=${user.token.replace(/\./g, '%2e')}`],
      ['a fully percent-encoded token', () => `q=${percentAll(user.token)}`],
      ['a doubly percent-encoded token', () => `q=${user.token.replace(/\./g, '%252E')}`],
      ['a token split by a newline', () => `token ${user.token.slice(0, 70)}\n${user.token.slice(70)} rejected`],
      ['a token split at each dot by newlines and spaces', () => user.token.split('.').join('.\n  ')],
      ['a base64-encoded token', () => `auth blob ${b64(user.token)}`],
      ['a base64url-encoded Authorization header', () => `h=${b64url(`Authorization: Bearer ${user.token}`)}`],
      ['the SDK secret percent-encoded', () => `key=${percentAll(TEST_SECRETS.SDK_SECRET)}`],
      ['the JWT secret in base64 inside a larger blob', () => b64(`{"k":"${TEST_SECRETS.JWT_SECRET}","n":1}`)],
      [
        'the callback secret in base64url split over two lines',
        () => {
          const e = b64url(`x${TEST_SECRETS.RTC_CALLBACK_SECRET}`);
          return `${e.slice(0, 20)}\n${e.slice(20)}`;
        },
      ],
    ])('removes %s', async (_label, message) => {
      const row = await storeClean({ message: message() });
      expect(String(row.message)).toContain('[REDACTED]');
    });

    it('scrubs a 32 KB stack trace with a token inside, keeping the trace around it', async () => {
      const frames = Array.from(
        { length: 600 },
        (_, i) => `    at Object.fn${i} (/app/node_modules/pkg/lib/file${i}.js:${i}:17)`,
      ).join('\n');
      const trace =
        `${frames.slice(0, 16_000)}\n${user.token.slice(0, 40)}\n${user.token.slice(40)}\n${frames.slice(16_000)}`.slice(
          0,
          32_768,
        );
      const row = await storeClean({ stack_trace: trace });
      expect(String(row.stack_trace)).toContain('at Object.fn1 (/app/node_modules/pkg/lib/file1.js:1:17)');
      expect(String(row.stack_trace).length).toBeLessThanOrEqual(32_768);
    });
  });

  describe('forms found by the review, each in every field it fits', () => {
    /** Free-text fields and their limits (code points); context takes any value, as a value and as a key. */
    const FIELDS = {
      username: 64,
      operation: 128,
      build_id: 128,
      message_id: 128,
      conversation_id: 512,
      message: 4096,
      stack_trace: 32768,
    } as const;

    /** Stores one error carrying `value` in every field it fits, and checks the stored rows. */
    async function storeEverywhere(value: string): Promise<void> {
      const placed = Object.entries(FIELDS)
        .filter(([, max]) => [...value].length <= max)
        .map(([field]) => field);
      expect(placed.length).toBeGreaterThanOrEqual(2);
      const row = await storeClean({
        ...Object.fromEntries(placed.map((field) => [field, value])),
        context: { note: value, [value]: 1, list: [`x ${value} y`] },
      });
      for (const field of placed)
        expect({ field, stored: String(row[field]) }).toEqual({ field, stored: expect.stringContaining('[REDACTED]') });
      expect(String(row.context)).toContain('[REDACTED]');
    }

    const dots = (value: string, dot: string): string => value.replace(/\./g, dot);
    const headerless = () => `${payload}.${signature}`;

    it.each([
      ['payload.signature (the header dropped)', () => headerless()],
      ['what is left of a cut header, then payload.signature', () => `XVCJ9.${headerless()}`],
      ['a payload whose start was cut, then the signature', () => `${payload.slice(20)}.${signature}`],
      [
        'payload.signature with its header split off by a newline',
        () => `${user.token.split('.')[0]}.\n${headerless()}`,
      ],
      ['dots written as \\u002e', () => dots(user.token, '\\u002e')],
      ['dots written as &#46;', () => dots(user.token, '&#46;')],
      ['dots written as &#x2e;', () => dots(user.token, '&#x2e;')],
      ['dots written as %25252E (three times percent-encoded)', () => dots(user.token, '%25252E')],
      ['zero-width and other format characters every 6 characters', () => sprinkle(user.token, 6)],
      ['a zero-width space after each dot', () => dots(user.token, '.\u200b')],
      ['every character percent-encoded three times', () => percentTimes(user.token, 3)],
      [
        'payload.signature with \\u002e for its dot and a soft hyphen every 9 characters',
        () => sprinkle(dots(headerless(), '\\u002e'), 9),
      ],
      [
        'payload.signature with &#46; for its dot, percent-encoded four times',
        () => percentTimes(dots(headerless(), '&#46;'), 4),
      ],
    ])('removes a token given as %s', async (_label, form) => {
      await storeEverywhere(form());
    });

    it.each([
      ['the SDK secret split by zero-width characters', () => sprinkle(TEST_SECRETS.SDK_SECRET, 4)],
      ['the JWT secret with its dashes as \\u002d', () => TEST_SECRETS.JWT_SECRET.replace(/-/g, '\\u002d')],
      ['the callback secret with its dashes as &#45;', () => TEST_SECRETS.RTC_CALLBACK_SECRET.replace(/-/g, '&#45;')],
      ['METRICS_TOKEN as it is', () => METRICS_TOKEN],
      [
        'METRICS_TOKEN with a soft hyphen and a byte order mark inside',
        () => `${METRICS_TOKEN.slice(0, 7)}\u00ad${METRICS_TOKEN.slice(7, 20)}\ufeff${METRICS_TOKEN.slice(20)}`,
      ],
      ['the SDK secret percent-encoded three times', () => percentTimes(TEST_SECRETS.SDK_SECRET, 3)],
    ])('removes %s', async (_label, form) => {
      await storeEverywhere(form());
    });

    /** The token's three parts, each wrapped in `open` … `close`, joined by `join`. */
    const wrapped = (open: string, close: string, join = '.'): string =>
      user.token
        .split('.')
        .map((part) => `${open}${part}${close}`)
        .join(join);

    it.each([
      [
        'backslash-escaped quotes in a JSON-serialised log line',
        () => `{"line":"auth ${wrapped('\\"', '\\"')} failed"}`,
      ],
      ['double-escaped quotes', () => wrapped('\\\\\\"', '\\\\\\"')],
      ['parentheses', () => wrapped('(', ')')],
      ['quoted parts in parentheses', () => wrapped('("', '")')],
      ['angle brackets', () => wrapped('<', '>')],
      ['typographic double quotes', () => wrapped('\u201c', '\u201d')],
      ['guillemets', () => wrapped('\u00ab', '\u00bb')],
      ['typographic single quotes', () => wrapped('\u2018', '\u2019')],
      ['string concatenation', () => wrapped('"', '"', ' + "." + ')],
      ['an array', () => `[${wrapped('"', '"', ',')}]`],
      [
        'an object',
        () => {
          const [h, p, s] = user.token.split('.');
          return `{"h":"${h}","p":"${p}","s":"${s}"}`;
        },
      ],
    ])('removes the payload and signature of a token written with %s', async (_label, form) => {
      await storeEverywhere(form());
    });

    it('removes the payload and signature of a token given as separate strings of a context array or object', async () => {
      const [h, p, s] = user.token.split('.');
      const row = await storeClean({ context: { parts: [h, p, s], pieces: { h, p, s }, screen: 'login' } });
      expect(JSON.parse(String(row.context))).toEqual({
        parts: ['[REDACTED]', '[REDACTED]', '[REDACTED]'],
        pieces: { h: '[REDACTED]', p: '[REDACTED]', s: '[REDACTED]' },
        screen: 'login',
      });
    });

    it('leaves dotted identifiers and versions as they are', async () => {
      const text = 'at com.example.app.MainActivity.onCreate(MainActivity.java:42) sdk v1.2.3 build 2024.06.01-rc.1';
      const row = await storeClean({ message: text, operation: 'com.example.app.sync', build_id: 'v1.2.3' });
      expect({ message: row.message, operation: row.operation, build_id: row.build_id }).toEqual({
        message: text,
        operation: 'com.example.app.sync',
        build_id: 'v1.2.3',
      });
    });
  });

  describe('the credential goes, only the credential (black-box review, item 14)', () => {
    const frames = '\n    at fetchJson (https://app.example.com/main.js:10:5)\n    at async load (main.js:20:3)';

    it('a token written with quoted parts ("header"."payload"."signature", also single-quoted) is redacted', async () => {
      for (const quote of ['"', "'"]) {
        const quoted = `${quote}${user.token.split('.').join(`${quote}.${quote}`)}${quote}`;
        const row = await storeClean({
          message: `token was ${quoted} at login`,
          stack_trace: `Error: ${quoted}${frames}`,
        });
        expect(row.message).toBe(`token was ${quote}[REDACTED]${quote} at login`);
        expect(row.stack_trace).toBe(`Error: ${quote}[REDACTED]${quote}${frames}`);
      }
    });

    it('an Authorization header line loses its credential and keeps its scheme and every following stack line', async () => {
      const row = await storeClean({
        message: `request failed: Authorization: Bearer ${user.token}`,
        stack_trace: `Error: 401 with Authorization: Bearer ${user.token}${frames}`,
      });
      expect(row.message).toBe('request failed: Authorization: Bearer [REDACTED]');
      expect(row.stack_trace).toBe(`Error: 401 with Authorization: Bearer [REDACTED]${frames}`);
      const empty = await storeClean({ stack_trace: `Error: missing Authorization:${frames}` });
      expect(empty.stack_trace).toBe(`Error: missing Authorization:${frames}`);
    });
  });

  describe('a credential ends where it ends (black-box review, scrubbing removed more)', () => {
    const lines = (end: string) => `${end}    at fetchJson (main.js:10:5)${end}    at async load (main.js:20:3)`;

    it.each([
      ['U+2028', '\u2028'],
      ['U+2029', '\u2029'],
      ['U+0085', '\u0085'],
      ['a written \\n', '\\n'],
    ])('an Authorization line ends at %s: every following stack line is kept', async (_label, end) => {
      const row = await storeClean({
        stack_trace: `Error: 401 Authorization: Bearer x${lines(end)}`,
        context: { log: `Authorization: Bearer ${user.token}${lines(end)}` },
      });
      expect(row.stack_trace).toBe(`Error: 401 Authorization: Bearer [REDACTED]${lines(end)}`);
      expect(JSON.parse(String(row.context))).toEqual({ log: `Authorization: Bearer [REDACTED]${lines(end)}` });
    });

    it('a header value ends at its closing quote, comma or brace; a plain word after Bearer is kept', async () => {
      const row = await storeClean({
        message: 'Error: Bearer token expired',
        stack_trace: `headers: {Authorization: 'Bearer ${user.token}', Accept: 'json'}${lines('\n')}`,
        operation: 'headers: {Authorization: Bearer abc123def456, Accept: json}',
      });
      expect(row.message).toBe('Error: Bearer token expired');
      expect(row.stack_trace).toBe(`headers: {Authorization: 'Bearer [REDACTED]', Accept: 'json'}${lines('\n')}`);
      expect(row.operation).toBe('headers: {Authorization: Bearer [REDACTED], Accept: json}');
    });
  });

  describe('a scrubbed value still fits its field', () => {
    it('cuts a username that the markers lengthened back to 64 characters', async () => {
      const username = 'pin=1 '.repeat(11).slice(0, 64);
      const row = await storeClean({ username });
      expect([...String(row.username)].length).toBeLessThanOrEqual(64);
      expect(String(row.username).startsWith('pin=[REDACTED]')).toBe(true);
    });

    it('cuts an operation of 128 characters full of credential pairs back to 128', async () => {
      const row = await storeClean({ operation: 'code=1;'.repeat(19).slice(0, 128) });
      expect(String(row.operation).length).toBeLessThanOrEqual(128);
    });
  });

  describe('identifiers with a strict pattern refuse a credential (1004, nothing stored)', () => {
    it.each([
      // An IM token (about 200 characters) cannot fit in 128; a secret can.
      ['device_id', () => ({ device_id: `dev:${TEST_SECRETS.JWT_SECRET}` })],
      ['device_id', () => ({ device_id: b64url(TEST_SECRETS.SDK_SECRET) })],
      ['error_code', () => ({ error_code: TEST_SECRETS.SDK_SECRET })],
    ])('refuses a credential in %s', async (field, over) => {
      const body = report(over());
      const reply = await send(body);
      expectFail(reply, 1004, field);
      expect(reply.body.msg).not.toContain(TEST_SECRETS.SDK_SECRET);
      const rows: Row[] = await db.query('SELECT id FROM client_error_submissions WHERE user_id = ? AND event_id = ?', [
        user.id,
        body.event_id,
      ]);
      expect(rows).toEqual([]);
    });
  });

  it('bounds the stored context to 65,536 bytes of JSON (1004 above it, nothing stored)', async () => {
    const at = (bytes: number) => report({ context: { blob: 'x'.repeat(bytes - '{"blob":""}'.length) } });
    const fits = at(65_536);
    expectOk(await send(fits));
    expect(JSON.parse(String((await storedRow(fits.device_id as string)).context))).toEqual(fits.context);
    const over = at(65_537);
    const reply = await send(over);
    expectFail(reply, 1004, 'context');
    expect(await db.query('SELECT id FROM client_errors WHERE device_id = ?', [over.device_id])).toEqual([]);
  });

  it('merges two errors that differ only in the secret carried by operation', async () => {
    const deviceId = `dev-${randomBytes(6).toString('hex')}`;
    const first = await send(report({ device_id: deviceId, operation: `op ${TEST_SECRETS.SDK_SECRET}` }));
    const second = await send(report({ device_id: deviceId, operation: `op ${b64(TEST_SECRETS.SDK_SECRET)}` }));
    expect([first, second].map((r) => expectOk<{ occurrence_count: number }>(r).occurrence_count)).toEqual([1, 2]);
    expect(String((await storedRow(deviceId)).operation)).toBe('op [REDACTED]');
  });

  describe('reports', () => {
    it('stores a description scrubbed of tokens and secrets, and a retry with the same description is the same report', async () => {
      const target = await api.user();
      const requestId = `req-${randomBytes(8).toString('hex')}`;
      const description = `they sent me ${user.token.replace(/\./g, '%2E')} and ${b64(TEST_SECRETS.JWT_SECRET)}`;
      const body = { user_id: target.userId, request_id: requestId, reason_code: 3, description };
      const first = await api.raw.reportUser(user, body);
      expect(expectOk<{ created: boolean }>(first).created).toBe(true);
      const again = await api.raw.reportUser(user, body);
      expect(expectOk<{ created: boolean }>(again).created).toBe(false);
      const rows: Row[] = await db.query('SELECT * FROM reports WHERE reporter_id = ? AND request_id = ?', [
        user.id,
        requestId,
      ]);
      expect(rows).toHaveLength(1);
      expect(String(rows[0].description)).toBe('they sent me [REDACTED] and [REDACTED]');
      for (const value of Object.values(rows[0]))
        if (typeof value === 'string') expectNoCredential(value, credentials, 'reports');
    });

    it('stores a description scrubbed of a headerless token with &#46; for its dot and of a secret split by zero-width spaces', async () => {
      const target = await api.user();
      const requestId = `req-${randomBytes(8).toString('hex')}`;
      const description = `token ${payload}&#46;${signature} and key ${sprinkle(METRICS_TOKEN, 4)} end`;
      const reply = await api.raw.reportUser(user, {
        user_id: target.userId,
        request_id: requestId,
        reason_code: 2,
        description,
      });
      expect(expectOk<{ created: boolean }>(reply).created).toBe(true);
      const rows: Row[] = await db.query('SELECT * FROM reports WHERE reporter_id = ? AND request_id = ?', [
        user.id,
        requestId,
      ]);
      expect(rows).toHaveLength(1);
      expect(String(rows[0].description)).toBe('token [REDACTED] and key [REDACTED] end');
      for (const value of Object.values(rows[0]))
        if (typeof value === 'string') expectNoCredential(value, credentials, 'reports');
    });

    it('refuses a request_id holding a secret with 1004, storing nothing', async () => {
      const target = await api.user();
      const requestId = TEST_SECRETS.SDK_SECRET;
      expectFail(
        await api.raw.reportUser(user, { user_id: target.userId, request_id: requestId, reason_code: 1 }),
        1004,
        'request_id',
      );
      expect(
        await db.query('SELECT id FROM reports WHERE reporter_id = ? AND request_id = ?', [user.id, requestId]),
      ).toEqual([]);
    });
  });
});
