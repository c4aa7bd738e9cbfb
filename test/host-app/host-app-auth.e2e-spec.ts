import { sessionIdHash } from '../../src/common/security/session-ids';
import { HostSessionStore } from '../../src/host-app/host-session-store';
import { TestApp, bearer, hostAuth, okData, startTestApp } from '../helpers/test-app';
import {
  HOST_PASSWORD,
  SAME_ORIGIN,
  accountFor,
  freshCode,
  hostCookie,
  passwordLogin,
  randomPhone,
  sendCode,
  sessionIdOf,
  signUp,
} from '../helpers/host-app-client';

interface TokenData {
  user: { id: string; user_id: string; nickname: string };
  token: string;
  expire_at: number;
  push: Record<string, unknown>;
}

// Sessions in the table always; in Redis too where the run has one (TEST_REDIS_URL, set in CI).
const redisUrl = process.env.TEST_REDIS_URL;
const STORES: Array<[string, Record<string, string>]> = [
  ['the database', {}],
  ...(redisUrl
    ? [['Redis', { HOST_SESSION_STORE: 'redis', REDIS_URL: redisUrl }] as [string, Record<string, string>]]
    : []),
];

describe.each(STORES)(
  'bundled host application: accounts, sessions, token (issue 14), sessions in %s',
  (_store, storeEnv) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({
        ...storeEnv,
        HOST_SESSION_IDLE_SECONDS: '600',
        HOST_SESSION_ABSOLUTE_SECONDS: '3600',
        SMS_PHONE_INTERVAL_SECONDS: '0',
        SMS_PER_ADDRESS: '100000',
        HOST_LOGIN_ATTEMPTS_PER_ADDRESS: '100000',
        CORS_ORIGINS: 'https://app.example.com',
      });
    });
    afterAll(() => t.close());

    const status = (response: { status: number; body: { code: number } }) => ({
      status: response.status,
      code: response.body.code,
    });

    it('signs up with phone, code, password and nickname: logged in, linked to a random IM user through upsert', async () => {
      const phone = randomPhone();
      const code = await freshCode(t, phone, 'signup');
      const response = await t.http
        .post('/app/auth/signup')
        .set(...SAME_ORIGIN)
        .send({ phone, code, password: HOST_PASSWORD, nickname: 'Alice Host' });
      const data = okData<{ account: { user_id: string; phone: string; nickname: string; created_at: number } }>(
        response,
      );
      expect(data.account).toEqual({
        user_id: expect.any(String),
        phone,
        nickname: 'Alice Host',
        created_at: expect.any(Number),
      });
      expect(data.account.user_id).toMatch(/^h_[0-9a-f]{24}$/);
      expect(data.account.user_id).not.toContain(phone.slice(1));
      expect(String(response.headers['set-cookie'])).toMatch(
        /^PHPSID=[A-Za-z0-9_-]{43}; Path=\/app\/auth; Max-Age=3600; HttpOnly; SameSite=Lax$/,
      );
      const account = accountFor(t, phone, hostCookie(response), data.account.user_id);
      expect(okData<{ account: { user_id: string } }>(await account.get('/app/auth/me')).account.user_id).toBe(
        account.userId,
      );

      // The token: exactly the /app/sdk/token reply, for the session's own user, usable on the SDK.
      const token = okData<TokenData>(await account.post('/app/auth/token'));
      expect(token.user.user_id).toBe(account.userId);
      expect(token.user.nickname).toBe('Alice Host');
      const viaHost = okData<TokenData>(
        await t.http
          .post('/app/sdk/token')
          .set(...hostAuth())
          .send({ user_id: account.userId, nickname: 'Alice Host' }),
      );
      expect(Object.keys(token).sort()).toEqual(Object.keys(viaHost).sort());
      expect(Object.keys(token.user).sort()).toEqual(Object.keys(viaHost.user).sort());
      expect(token.user).toEqual(viaHost.user);
      const me = okData<{ user: { user_id: string; nickname: string } }>(
        await t.http.get('/app/sdk/users/me').set(...bearer(token.token)),
      );
      expect(me.user).toMatchObject({ user_id: account.userId, nickname: 'Alice Host' });

      // The code was single use, and the number cannot sign up twice.
      const again = await t.http
        .post('/app/auth/signup')
        .set(...SAME_ORIGIN)
        .send({ phone, code, password: HOST_PASSWORD, nickname: 'Again' });
      expect(again.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^code: /), data: null });
      const second = await t.http
        .post('/app/auth/signup')
        .set(...SAME_ORIGIN)
        .send({ phone, code: await freshCode(t, phone, 'signup'), password: HOST_PASSWORD, nickname: 'Again' });
      expect(second.body).toMatchObject({ code: 1004, msg: 'phone: is already registered; log in instead' });
    });

    it('token: never takes a user from the request, keeps a nickname changed through the SDK', async () => {
      const account = await signUp(t, 'Before');
      // A user_id in the body is not a field of this endpoint: dropped, never used.
      const other = await signUp(t, 'Other');
      const own = okData<TokenData>(await account.post('/app/auth/token', { user_id: other.userId }));
      expect(own.user.user_id).toBe(account.userId);
      const first = okData<TokenData>(await account.post('/app/auth/token', {}));
      okData(
        await t.http
          .post('/app/sdk/users/me/update')
          .set(...bearer(first.token))
          .send({ nickname: 'After' }),
      );
      const second = okData<TokenData>(await account.post('/app/auth/token'));
      expect(second.user).toMatchObject({ user_id: account.userId, nickname: 'After' });
      expect(okData<{ account: { nickname: string } }>(await account.get('/app/auth/me')).account.nickname).toBe(
        'After',
      );
    });

    it('refuses a bad phone number and a weak password with 1004 naming the field', async () => {
      const phone = randomPhone();
      for (const bad of ['13800138000', '+0123456789', '+1 555 000 1111', '+1234567']) {
        const response = await sendCode(t, bad, 'signup');
        expect(response.body).toMatchObject({
          code: 1004,
          msg: expect.stringMatching(/^phone: must be an E\.164 number/),
        });
      }
      const code = await freshCode(t, phone, 'signup');
      for (const [password, msg] of [
        ['short', 'password: must be 8–128 characters'],
        ['          ', 'password: must not be only whitespace'],
        ['x'.repeat(129), 'password: must be 8–128 characters'],
      ]) {
        const response = await t.http
          .post('/app/auth/signup')
          .set(...SAME_ORIGIN)
          .send({ phone, code, password, nickname: 'N' });
        expect(response.body).toMatchObject({ code: 1004, msg });
        expect(response.body.msg).not.toContain(password.trim() || 'x');
      }
      // The policy is checked before the code is used: it still works.
      const ok = await t.http
        .post('/app/auth/signup')
        .set(...SAME_ORIGIN)
        .send({ phone, code, password: HOST_PASSWORD, nickname: 'N' });
      expect(ok.body.code).toBe(0);
    });

    it('logs in with password and with an SMS code, rotating the session each time', async () => {
      const account = await signUp(t);
      const first = await passwordLogin(t, account.phone, HOST_PASSWORD, account.cookie);
      expect(okData<{ account: { user_id: string } }>(first).account.user_id).toBe(account.userId);
      const rotated = hostCookie(first);
      expect(rotated).not.toBe(account.cookie);
      expect(status(await t.http.get('/app/auth/me').set('Cookie', account.cookie))).toEqual({
        status: 401,
        code: 1102,
      });
      expect((await t.http.get('/app/auth/me').set('Cookie', rotated)).body.code).toBe(0);

      const code = await freshCode(t, account.phone, 'login');
      const bySms = await t.http
        .post('/app/auth/login/sms')
        .set(...SAME_ORIGIN)
        .set('Cookie', rotated)
        .send({ phone: account.phone, code });
      expect(okData<{ account: { user_id: string } }>(bySms).account.user_id).toBe(account.userId);
      const third = hostCookie(bySms);
      expect(status(await t.http.get('/app/auth/me').set('Cookie', rotated))).toEqual({ status: 401, code: 1102 });
      expect((await t.http.get('/app/auth/me').set('Cookie', third)).body.code).toBe(0);

      // Wrong password, unknown number, used code: the same HTTP 401 with 1102.
      const wrong = await passwordLogin(t, account.phone, 'not the password');
      const unknown = await passwordLogin(t, randomPhone());
      const reused = await t.http
        .post('/app/auth/login/sms')
        .set(...SAME_ORIGIN)
        .send({ phone: account.phone, code });
      for (const response of [wrong, unknown, reused])
        expect({ status: response.status, body: response.body }).toEqual({
          status: 401,
          body: { code: 1102, msg: 'phone number, password or code incorrect', data: null },
        });
    });

    it('codes: work for their purpose only, die after 5 wrong tries, expire after 5 minutes', async () => {
      const account = await signUp(t);
      const login = (code: string) =>
        t.http
          .post('/app/auth/login/sms')
          .set(...SAME_ORIGIN)
          .send({ phone: account.phone, code });
      const resetCode = await freshCode(t, account.phone, 'reset');
      expect((await login(resetCode)).status).toBe(401);

      const code = await freshCode(t, account.phone, 'login');
      const wrong = code === '000000' ? '000001' : '000000';
      for (let i = 0; i < 5; i++) expect((await login(wrong)).status).toBe(401);
      expect((await login(code)).status).toBe(401); // the right code, after 5 wrong tries

      const late = await freshCode(t, account.phone, 'login');
      t.clock.advance(5 * 60_000);
      expect((await login(late)).status).toBe(401);

      const fresh = await freshCode(t, account.phone, 'login');
      t.clock.advance(4 * 60_000);
      expect((await login(fresh)).body.code).toBe(0);
    });

    it('a new code replaces the previous one', async () => {
      const account = await signUp(t);
      const old = await freshCode(t, account.phone, 'login');
      let replacement = await freshCode(t, account.phone, 'login');
      while (replacement === old) replacement = await freshCode(t, account.phone, 'login');
      const login = (code: string) =>
        t.http
          .post('/app/auth/login/sms')
          .set(...SAME_ORIGIN)
          .send({ phone: account.phone, code });
      expect((await login(old)).status).toBe(401);
      expect((await login(replacement)).body.code).toBe(0);
    });

    it('answers 401 with 1101 without a session and 1102 for a malformed, unknown or expired one', async () => {
      const none = await t.http.get('/app/auth/me');
      expect({ status: none.status, body: none.body }).toEqual({
        status: 401,
        body: { code: 1101, msg: expect.any(String), data: null },
      });
      expect(status(await t.http.post('/app/auth/token').set(...SAME_ORIGIN))).toEqual({ status: 401, code: 1101 });
      for (const cookie of [
        'PHPSID=nope',
        `PHPSID=${'A'.repeat(43)}`,
        `PHPSID=${'A'.repeat(43)}; PHPSID=${'B'.repeat(43)}`,
      ])
        expect(status(await t.http.get('/app/auth/me').set('Cookie', cookie))).toEqual({ status: 401, code: 1102 });
      expect(status(await t.http.get('/app/auth/me').set('PHPSID', 'garbage'))).toEqual({ status: 401, code: 1102 });
    });

    it('expires sessions when idle and at the absolute limit', async () => {
      const account = await signUp(t);
      t.clock.advance(9 * 60_000);
      expect((await account.get('/app/auth/me')).body.code).toBe(0);
      t.clock.advance(9 * 60_000); // 9 minutes after the last use: still within the idle limit
      expect((await account.get('/app/auth/me')).body.code).toBe(0);
      t.clock.advance(11 * 60_000);
      expect(status(await account.get('/app/auth/me'))).toEqual({ status: 401, code: 1102 });

      const busy = await signUp(t);
      for (let minutes = 9; minutes <= 54; minutes += 9) {
        t.clock.advance(9 * 60_000);
        expect((await busy.get('/app/auth/me')).body.code).toBe(0);
      }
      t.clock.advance(6 * 60_000); // 60 minutes after login, however active
      expect(status(await busy.get('/app/auth/me'))).toEqual({ status: 401, code: 1102 });
      // The expired row is gone, not just refused.
      const hash = sessionIdHash(sessionIdOf(busy.cookie));
      expect(await t.app.get(HostSessionStore).findByHash(hash)).toBeNull();
    });

    it('logout deletes the session and clears the cookie', async () => {
      const account = await signUp(t);
      const out = await account.post('/app/auth/logout');
      expect(out.body).toEqual({ code: 0, msg: 'ok', data: { done: true } });
      expect(String(out.headers['set-cookie'])).toMatch(
        /^PHPSID=; Path=\/app\/auth; Max-Age=0; HttpOnly; SameSite=Lax$/,
      );
      expect(status(await account.get('/app/auth/me'))).toEqual({ status: 401, code: 1102 });
      expect(await t.app.get(HostSessionStore).findByHash(sessionIdHash(sessionIdOf(account.cookie)))).toBeNull();
    });

    it('password change needs the old password and ends the other sessions; reset ends all', async () => {
      const account = await signUp(t);
      const other = hostCookie(await passwordLogin(t, account.phone));
      const wrongOld = await account.post('/app/auth/password', {
        old_password: 'nope-nope',
        new_password: 'brand new pass',
      });
      expect(wrongOld.body).toMatchObject({ code: 1004, msg: 'old_password: is not your current password' });
      const weak = await account.post('/app/auth/password', { old_password: HOST_PASSWORD, new_password: 'short' });
      expect(weak.body).toMatchObject({ code: 1004, msg: 'new_password: must be 8–128 characters' });
      const changed = await account.post('/app/auth/password', {
        old_password: HOST_PASSWORD,
        new_password: 'brand new pass',
      });
      expect(changed.body).toEqual({ code: 0, msg: 'ok', data: { done: true } });
      expect((await account.get('/app/auth/me')).body.code).toBe(0);
      expect(status(await t.http.get('/app/auth/me').set('Cookie', other))).toEqual({ status: 401, code: 1102 });
      expect((await passwordLogin(t, account.phone, HOST_PASSWORD)).status).toBe(401);
      expect((await passwordLogin(t, account.phone, 'brand new pass')).body.code).toBe(0);

      const code = await freshCode(t, account.phone, 'reset');
      const reset = await t.http
        .post('/app/auth/password/reset')
        .set(...SAME_ORIGIN)
        .send({ phone: account.phone, code, new_password: 'third password' });
      expect(reset.body).toEqual({ code: 0, msg: 'ok', data: { done: true } });
      expect(status(await account.get('/app/auth/me'))).toEqual({ status: 401, code: 1102 });
      expect((await passwordLogin(t, account.phone, 'third password')).body.code).toBe(0);
    });

    it('native clients: the PHPSID header authenticates and skips the origin check', async () => {
      const account = await signUp(t);
      const id = sessionIdOf(account.cookie);
      const me = await t.http.get('/app/auth/me').set('PHPSID', id);
      expect(me.body.code).toBe(0);
      const token = await t.http
        .post('/app/auth/token')
        .set('PHPSID', id)
        .set('Origin', 'https://evil.example')
        .send({});
      expect(token.body.code).toBe(0);
      // The header wins over a cookie: a bad header is not rescued by a good cookie.
      const both = await t.http.get('/app/auth/me').set('PHPSID', 'A'.repeat(43)).set('Cookie', account.cookie);
      expect(status(both)).toEqual({ status: 401, code: 1102 });
    });

    it('CSRF: cookie writes and the public posts from another origin are refused with HTTP 403', async () => {
      const account = await signUp(t);
      const evil = ['Origin', 'https://evil.example'] as [string, string];
      const attempts = [
        t.http
          .post('/app/auth/token')
          .set('Cookie', account.cookie)
          .set(...evil)
          .send({}),
        t.http
          .post('/app/auth/logout')
          .set('Cookie', account.cookie)
          .set(...evil),
        t.http
          .post('/app/auth/password')
          .set('Cookie', account.cookie)
          .set(...evil)
          .send({ old_password: HOST_PASSWORD, new_password: 'x'.repeat(10) }),
        t.http
          .post('/app/auth/login')
          .set(...evil)
          .send({ phone: account.phone, password: HOST_PASSWORD }),
        t.http
          .post('/app/auth/signup')
          .set(...evil)
          .send({ phone: randomPhone(), code: '123456', password: HOST_PASSWORD, nickname: 'n' }),
        t.http
          .post('/app/auth/sms/send')
          .set(...evil)
          .send({ phone: randomPhone(), purpose: 'signup' }),
        t.http.post('/app/auth/token').set('Cookie', account.cookie).set('Origin', 'null').send({}),
        t.http.post('/app/auth/token').set('Cookie', account.cookie).set('Sec-Fetch-Site', 'cross-site').send({}),
      ];
      for (const response of await Promise.all(attempts))
        expect({ status: response.status, body: response.body }).toEqual({
          status: 403,
          body: { code: 1004, msg: 'Origin: not a trusted origin for the host application', data: null },
        });
      // The session survived (logout was refused); a listed origin and a same-site fetch pass.
      expect((await account.get('/app/auth/me')).body.code).toBe(0);
      const listed = await t.http
        .post('/app/auth/token')
        .set('Cookie', account.cookie)
        .set('Origin', 'https://app.example.com')
        .send({});
      expect(listed.body.code).toBe(0);
      const sameSite = await t.http
        .post('/app/auth/token')
        .set('Cookie', account.cookie)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({});
      expect(sameSite.body.code).toBe(0);
    });

    it('rule 5.3: /app/auth never accepts the SDK secret or an IM token; /app/sdk/token never a PHPSID', async () => {
      const account = await signUp(t);
      const imToken = okData<TokenData>(await account.post('/app/auth/token')).token;
      for (const credential of [hostAuth(), bearer(imToken)]) {
        expect(status(await t.http.get('/app/auth/me').set(...credential))).toEqual({ status: 401, code: 1101 });
        expect(
          status(
            await t.http
              .post('/app/auth/token')
              .set(...credential)
              .send({}),
          ),
        ).toEqual({ status: 401, code: 1101 });
      }
      const id = sessionIdOf(account.cookie);
      for (const request of [
        t.http.post('/app/sdk/token').set('Cookie', account.cookie).send({ user_id: account.userId, nickname: 'x' }),
        t.http.post('/app/sdk/token').set('PHPSID', id).send({ user_id: account.userId, nickname: 'x' }),
        t.http
          .post('/app/sdk/token')
          .set(...bearer(id))
          .send({ user_id: account.userId, nickname: 'x' }),
      ])
        expect((await request).body).toMatchObject({ code: 1001, data: null });
      // Nor is the PHPSID an IM token.
      expect((await t.http.get('/app/sdk/users/me').set(...bearer(id))).body.code).toBe(1102);
    });
  },
);
