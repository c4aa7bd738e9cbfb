import { TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';
import { HOST_PASSWORD, SAME_ORIGIN, passwordLogin, randomPhone, sendCode, signUp } from '../helpers/host-app-client';

const HOUR_MS = 3_600_000;

describe('bundled host application: limits, switches and production mode (issue 14)', () => {
  describe('rate limits', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        SMS_PER_PHONE: '3',
        SMS_PER_ADDRESS: '8',
        SMS_WINDOW_SECONDS: '3600',
        SMS_PHONE_INTERVAL_SECONDS: '60',
        HOST_LOGIN_ATTEMPTS_PER_ACCOUNT: '3',
        HOST_LOGIN_ATTEMPTS_PER_ADDRESS: '6',
        HOST_LOGIN_WINDOW_SECONDS: '900',
      });
    });
    afterAll(() => t.close());
    // Windows are fixed and aligned: each test starts 1 s into a fresh hour.
    beforeEach(() => t.clock.set((Math.floor(t.clock.now() / HOUR_MS) + 1) * HOUR_MS + 1000));

    const limited = (response: { status: number; body: unknown; headers: Record<string, string> }) => ({
      status: response.status,
      body: response.body,
      retryAfter: Number(response.headers['retry-after']),
    });

    it('SMS per phone: one per interval, then the window limit; HTTP 429 with Retry-After and 1005', async () => {
      const phone = randomPhone();
      expect((await sendCode(t, phone, 'signup')).body.code).toBe(0);
      const soon = limited(await sendCode(t, phone, 'login'));
      expect(soon).toEqual({
        status: 429,
        body: { code: 1005, msg: expect.stringContaining('phone number'), data: null },
        retryAfter: 60,
      });
      t.clock.advance(60_000);
      expect((await sendCode(t, phone, 'login')).body.code).toBe(0);
      t.clock.advance(60_000);
      expect((await sendCode(t, phone, 'login')).body.code).toBe(0);
      t.clock.advance(60_000);
      const window = limited(await sendCode(t, phone, 'login'));
      expect(window.status).toBe(429);
      expect(window.retryAfter).toBe(3600 - 1 - 180);
      t.clock.advance(window.retryAfter * 1000);
      expect((await sendCode(t, phone, 'login')).body.code).toBe(0);
    });

    it('SMS per address: HTTP 429 with Retry-After past the limit, whatever the number', async () => {
      for (let i = 0; i < 8; i++) expect((await sendCode(t, randomPhone(), 'signup')).body.code).toBe(0);
      const refused = limited(await sendCode(t, randomPhone(), 'signup'));
      expect(refused).toEqual({
        status: 429,
        body: { code: 1005, msg: expect.stringContaining('address'), data: null },
        retryAfter: 3599,
      });
    });

    it('login: a locked account answers like a wrong password; the address limit is HTTP 429', async () => {
      const account = await signUp(t);
      const wrongAnswer = {
        status: 401,
        body: { code: 1102, msg: 'phone number, password or code incorrect', data: null },
      };
      for (let i = 0; i < 3; i++) {
        const response = await passwordLogin(t, account.phone, 'wrong password');
        expect({ status: response.status, body: response.body }).toEqual(wrongAnswer);
      }
      // Locked: even the right password answers exactly as a wrong one.
      const locked = await passwordLogin(t, account.phone, HOST_PASSWORD);
      expect({ status: locked.status, body: locked.body }).toEqual(wrongAnswer);
      const byCode = await t.http
        .post('/app/auth/login/sms')
        .set(...SAME_ORIGIN)
        .send({ phone: account.phone, code: '123456' });
      expect({ status: byCode.status, body: byCode.body }).toEqual(wrongAnswer);
      // Five attempts from this address so far; the sixth passes the address limit, the seventh not.
      expect((await passwordLogin(t, randomPhone())).status).toBe(401);
      const refused = limited(await passwordLogin(t, randomPhone()));
      expect(refused).toEqual({
        status: 429,
        body: { code: 1005, msg: expect.stringContaining('address'), data: null },
        retryAfter: 899,
      });
      // The next window: unlocked.
      t.clock.advance(900_000);
      expect((await passwordLogin(t, account.phone)).body.code).toBe(0);
    });

    it('login: only failures count, so signing in again and again locks neither the account nor the address', async () => {
      const account = await signUp(t);
      // Eight good logins: past both limits (3 per account, 6 per address) had they counted.
      for (let i = 0; i < 8; i++) expect((await passwordLogin(t, account.phone)).body.code).toBe(0);
      for (let i = 0; i < 3; i++) expect((await passwordLogin(t, account.phone, 'wrong password')).status).toBe(401);
      expect((await passwordLogin(t, account.phone)).body.code).toBe(1102);
    });
  });

  it('HOST_APP_ENABLED=false: every /app/auth route answers HTTP 404 with the envelope', async () => {
    const t = await startTestApp({ HOST_APP_ENABLED: 'false' });
    try {
      for (const response of [
        await t.http.get('/app/auth/me'),
        await t.http.post('/app/auth/login').send({ phone: randomPhone(), password: HOST_PASSWORD }),
        await t.http.post('/app/auth/token').send({}),
        await t.http.get('/app/auth/dev/sms-inbox').query({ phone: randomPhone() }),
      ])
        expect({ status: response.status, code: response.body.code, data: response.body.data }).toEqual({
          status: 404,
          code: 1004,
          data: null,
        });
    } finally {
      await t.close();
    }
  });

  it('production: the dev inbox does not exist and codes go to the http driver', async () => {
    const t = await startTestApp({
      NODE_ENV: 'production',
      HOST_APP_ENABLED: 'true',
      SMS_DRIVER: 'http',
      // Nothing listens there: sending a code is HTTP 503 with 1500, and no code is kept.
      SMS_HTTP_URL: 'http://127.0.0.1:9/sms',
      SMS_HTTP_KEY: 'sms-http-key-0123456789abcdef',
      SMS_HTTP_TIMEOUT_MS: '500',
      ...TEST_SECRETS,
    });
    try {
      const inbox = await t.http.get('/app/auth/dev/sms-inbox').query({ phone: randomPhone() });
      expect({ status: inbox.status, code: inbox.body.code, data: inbox.body.data }).toEqual({
        status: 404,
        code: 1004,
        data: null,
      });
      const sent = await sendCode(t, randomPhone(), 'signup');
      expect({ status: sent.status, code: sent.body.code }).toEqual({ status: 503, code: 1500 });
      expect(sent.body.msg).not.toContain('sms-http-key');
      const none = await t.http.get('/app/auth/me');
      expect(none.status).toBe(401);
      expect(none.headers['set-cookie']).toBeUndefined();
    } finally {
      await t.close();
    }
  });

  describe('behind a reverse proxy (TRUST_PROXY)', () => {
    const send = (t: TestApp, forwardedFor: string) =>
      t.http
        .post('/app/auth/sms/send')
        .set(...SAME_ORIGIN)
        .set('X-Forwarded-For', forwardedFor)
        .send({ phone: randomPhone(), purpose: 'signup' });

    it('counts the per-address limit by the forwarded client address when the proxy is trusted', async () => {
      const t = await startTestApp({ TRUST_PROXY: 'loopback', SMS_PER_ADDRESS: '1', SMS_WINDOW_SECONDS: '3600' });
      try {
        expect((await send(t, '203.0.113.10')).body.code).toBe(0);
        expect((await send(t, '203.0.113.10')).status).toBe(429);
        // Another client behind the same proxy has its own allowance.
        expect((await send(t, '203.0.113.11')).body.code).toBe(0);
        // A client cannot choose its address: only the proxy's own entry (the right-most) counts.
        expect((await send(t, '198.51.100.1, 203.0.113.10')).status).toBe(429);
      } finally {
        await t.close();
      }
    });

    it('ignores X-Forwarded-For when no proxy is trusted (the default)', async () => {
      const t = await startTestApp({ SMS_PER_ADDRESS: '1', SMS_WINDOW_SECONDS: '3600' });
      try {
        expect((await send(t, '203.0.113.20')).body.code).toBe(0);
        expect((await send(t, '203.0.113.21')).status).toBe(429);
      } finally {
        await t.close();
      }
    });
  });
});
