// Black-box tests of POST /app/sdk/client-errors, written from the spec (sections 2, 4, 4.2, 7, 8)
// and the service facts of the issue. The database is read only to check what was stored.
import { sign } from 'jsonwebtoken';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { IssuedUser, TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';
import { clientErrorBody } from '../helpers/factories';

const MINUTE = 60_000; // one code point, two UTF-16 units, four UTF-8 bytes

type Body = Record<string, unknown>;
type Row = Record<string, unknown>;

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

  describe('scrubbing: message, stack and context carry no credentials', () => {
    async function storedText(over: Body): Promise<string> {
      const row = await submitAndLoad(over);
      return [row.message, row.stack_trace, contextText(row.context)].join('\n');
    }

    it("removes the user's own IM token (JWT) from message, stack and context", async () => {
      const [, , signature] = u.token.split('.');
      const text = await storedText({
        message: `auth failed with ${u.token}`,
        stack_trace: `Error: token ${u.token}\n  at a.js:1`,
        context: { jwt: u.token, note: `jwt=${u.token}` },
      });
      expect(text).not.toContain(u.token);
      expect(text).not.toContain(signature);
    });

    it('removes any JWT-shaped value, not only tokens of this service', async () => {
      const jwt = sign({ sub: 'x', scope: 'all' }, 'unrelated-key-0123456789');
      const [, , signature] = jwt.split('.');
      const text = await storedText({ message: `got ${jwt}`, stack_trace: jwt, context: { list: [`x ${jwt}`] } });
      expect(text).not.toContain(jwt);
      expect(text).not.toContain(signature);
    });

    it('removes Bearer values', async () => {
      const opaque = '4f9c2e7a1b3d5f6e8a0cOPAQUE';
      const text = await storedText({
        message: `request failed: Authorization: Bearer ${opaque}`,
        stack_trace: `headers={"Authorization":"Bearer ${opaque}"}`,
        context: { detail: `Bearer ${opaque}` },
      });
      expect(text).not.toContain(opaque);
    });

    it.each(['SDK_SECRET', 'JWT_SECRET', 'RTC_CALLBACK_SECRET'] as const)(
      'removes the configured secret %s wherever it appears',
      async (name) => {
        const secret = TEST_SECRETS[name];
        const text = await storedText({
          message: `config dump ${secret} end`,
          stack_trace: `secret:${secret}`,
          context: { value: secret, deep: { list: [`x${secret}x`] } },
        });
        expect(text).not.toContain(secret);
      },
    );

    it.each([
      ['password=', 'password=hunter2-Qz', 'hunter2-Qz'],
      ['token=', 'token=tok-77ab12cd', 'tok-77ab12cd'],
      ['code=', 'code=482913', '482913'],
      ['access_token= in a URL', 'https://api.example.com/v1?access_token=acc-9f8e7d&x=1', 'acc-9f8e7d'],
      ['password= in a query string', 'GET /login?user=bob&password=s3cretPw!', 's3cretPw'],
    ])('removes %s style values from message, stack and context', async (_label, snippet, value) => {
      const text = await storedText({
        message: `failed: ${snippet}`,
        stack_trace: `at x (${snippet})`,
        context: { detail: snippet },
      });
      expect(text).not.toContain(value);
    });

    it('removes Password= and TOKEN= style values regardless of case', async () => {
      const text = await storedText({
        message: 'Password=Hunter3-Zz TOKEN=TOK-55ee',
        stack_trace: null,
        context: { detail: 'Code=917364' },
      });
      expect(text).not.toContain('Hunter3-Zz');
      expect(text).not.toContain('TOK-55ee');
      expect(text).not.toContain('917364');
    });

    it('removes the values of authorization and cookie keys in context', async () => {
      const text = await storedText({
        context: { authorization: 'Basic dXNlcjpwYXNzd29yZA==', cookie: 'PHPSID=sess-abc123xyz', screen: 'home' },
      });
      expect(text).not.toContain('dXNlcjpwYXNzd29yZA');
      expect(text).not.toContain('sess-abc123xyz');
    });

    it('removes the values of Authorization and Cookie keys in context regardless of case', async () => {
      const text = await storedText({ context: { Authorization: 'Token opaque-777aaa', COOKIE: 'sid=sess-888bbb' } });
      expect(text).not.toContain('opaque-777aaa');
      expect(text).not.toContain('sess-888bbb');
    });

    it('removes authorization and cookie values nested in objects and arrays of context', async () => {
      const text = await storedText({
        context: {
          request: { headers: { authorization: 'Digest nested-999ccc', cookie: 'PHPSID=nested-000ddd' } },
          history: [{ headers: { Authorization: 'Basic arr-111eee' } }, { cookie: 'x=arr-222fff' }],
        },
      });
      for (const value of ['nested-999ccc', 'nested-000ddd', 'arr-111eee', 'arr-222fff'])
        expect(text).not.toContain(value);
    });

    it('removes set-cookie and proxy-authorization values in context', async () => {
      const text = await storedText({
        context: { 'set-cookie': ['PHPSID=sc-333ggg; HttpOnly'], 'proxy-authorization': 'Basic pa-444hhh' },
      });
      expect(text).not.toContain('sc-333ggg');
      expect(text).not.toContain('pa-444hhh');
    });

    it('removes an authorization value that is an object or array in context', async () => {
      const text = await storedText({
        context: { authorization: { scheme: 'Bearer', credentials: 'objcred-555iii' }, cookie: ['a=objcookie-666jjj'] },
      });
      expect(text).not.toContain('objcred-555iii');
      expect(text).not.toContain('objcookie-666jjj');
    });

    it('removes a password stored under a password key in context (spec 4.2: no passwords)', async () => {
      const text = await storedText({
        context: { password: 'pw-key-777kkk', login: { passwd: 'x', password: 'pw-nested-888lll' } },
      });
      expect(text).not.toContain('pw-key-777kkk');
      expect(text).not.toContain('pw-nested-888lll');
    });

    it('removes lowercase and uppercase bearer values', async () => {
      const text = await storedText({
        message: 'authorization: bearer lowerval-123abc',
        stack_trace: 'BEARER UPPERVAL-456DEF',
        context: { x: 'bearer mixval-789ghi' },
      });
      for (const value of ['lowerval-123abc', 'UPPERVAL-456DEF', 'mixval-789ghi']) expect(text).not.toContain(value);
    });

    it('removes a secret or JWT used as a context key', async () => {
      const text = await storedText({ context: { [TEST_SECRETS.JWT_SECRET]: 1, [u.token]: 2, ok: 3 } });
      expect(text).not.toContain(TEST_SECRETS.JWT_SECRET);
      expect(text).not.toContain(u.token);
    });

    it('removes credentials from a raw header block kept as a context string', async () => {
      const text = await storedText({
        context: { raw_headers: 'Authorization: Basic cmF3LWhkcg==\r\nCookie: sid=raw-cookie-321\r\nAccept: */*' },
      });
      expect(text).not.toContain('cmF3LWhkcg');
      expect(text).not.toContain('raw-cookie-321');
    });

    it('still stores the report (code 0) when the whole message is a credential', async () => {
      const row = await submitAndLoad({ message: u.token });
      expect(typeof row.message).toBe('string');
      expect(row.message).not.toContain(u.token);
    });

    it('does not store the host secret sent in an unknown field', async () => {
      const body = clientErrorBody(u, { authorization: `Bearer ${TEST_SECRETS.SDK_SECRET}` });
      expectAccepted(await submit(u.token, body), body.event_id as string, 1);
      const rows = await rowsByEvent(body.event_id as string);
      expect(JSON.stringify(rows)).not.toContain(TEST_SECRETS.SDK_SECRET);
    });
  });
});
