// Black-box tests of authentication (spec 5, 7) on the IM-token endpoints and the host-secret
// endpoints, and of POST /app/sdk/users/upsert (profile rules of spec 2.1, 2.3, 4.1, 8).
import { decode, sign } from 'jsonwebtoken';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { IssuedUser, TEST_SECRETS, TestApp, bearer, hostAuth, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';
import { expectFail } from '../helpers/assertions';

type Body = Record<string, unknown>;
const EIGHT_DAYS_MS = 8 * 24 * 3600 * 1000;
const REPORT_PATHS = ['/app/sdk/reports/user', '/app/sdk/reports/group'] as const;

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('Authentication and user management (spec 5, 7)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  /** A valid user report by `reporter` against a fresh target, sent with the given Authorization header. */
  let target: IssuedUser;
  beforeAll(async () => {
    target = await api.user();
  });
  const reportWith = (authorization: string | null, path: string = REPORT_PATHS[0]) => {
    const targetField = path === '/app/sdk/reports/user' ? { user_id: target.userId } : { group_id: 'g-none' };
    const req = t.http
      .post(path)
      .send({ ...targetField, request_id: `req-${randomBytes(8).toString('hex')}`, reason_code: 1 });
    return authorization === null ? req : req.set('Authorization', authorization);
  };
  const asUser = (token: string) => reportWith(`Bearer ${token}`);
  const userRow = async (externalId: string): Promise<Array<Record<string, unknown>>> =>
    db.query('SELECT * FROM users WHERE external_id = ?', [externalId]);

  describe('IM token guard on the report endpoints', () => {
    it('accepts a freshly issued token (control case)', async () => {
      const alice = await api.user();
      const response = await asUser(alice.token);
      expect(response.body).toMatchObject({ code: 0, msg: 'ok' });
    });

    it.each(REPORT_PATHS)('refuses a request without Authorization on %s with 1101 and no-store', async (path) => {
      const response = await reportWith(null, path);
      expectFail(response, 1101);
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it.each(REPORT_PATHS)('refuses garbage tokens on %s with 1102', async (path) => {
      for (const value of ['Bearer not-a-jwt', 'Bearer a.b.c', 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.']) {
        expectFail(await reportWith(value, path), 1102);
      }
    });

    it('refuses an empty Bearer value or another scheme as missing or invalid', async () => {
      const alice = await api.user();
      for (const value of ['Bearer', 'Bearer ', `Basic ${alice.token}`, alice.token]) {
        const response = await reportWith(value);
        expect([1101, 1102]).toContain(response.body.code);
        expect(response.body.data).toBeNull();
      }
    });

    it.each(REPORT_PATHS)('refuses the SDK secret used as a bearer on %s with 1102', async (path) => {
      expectFail(await reportWith(`Bearer ${TEST_SECRETS.SDK_SECRET}`, path), 1102);
    });

    it('refuses an unsigned JWT (alg "none") carrying a valid payload with 1102', async () => {
      const alice = await api.user();
      const [, payload, signature] = alice.token.split('.');
      for (const alg of ['none', 'None', 'NONE']) {
        const header = b64url({ alg, typ: 'JWT' });
        expectFail(await asUser(`${header}.${payload}.`), 1102);
        expectFail(await asUser(`${header}.${payload}.${signature}`), 1102);
      }
    });

    it('refuses a token re-signed with another algorithm or another key with 1102', async () => {
      const alice = await api.user();
      const payload = decode(alice.token) as Record<string, unknown>;
      const forged = [
        sign(payload, TEST_SECRETS.JWT_SECRET, { algorithm: 'HS512' }),
        sign(payload, TEST_SECRETS.JWT_SECRET, { algorithm: 'HS384' }),
        sign(payload, 'another-key-0123456789abcdef-0123456789', { algorithm: 'HS256' }),
        sign(payload, TEST_SECRETS.SDK_SECRET, { algorithm: 'HS256' }),
      ];
      for (const token of forged) expectFail(await asUser(token), 1102);
    });

    it("refuses a token whose payload was swapped for another user's, keeping the signature, with 1102", async () => {
      const alice = await api.user();
      const bob = await api.user();
      const [header, , signature] = alice.token.split('.');
      const payload = { ...(decode(alice.token) as Record<string, unknown>), user_id: bob.userId };
      expectFail(await asUser(`${header}.${b64url(payload)}.${signature}`), 1102);
      expectFail(await asUser(`${alice.token}x`), 1102);
    });

    it('refuses tokens signed with the service key that lack exp or name an unknown user with 1102', async () => {
      const alice = await api.user();
      const payload = decode(alice.token) as Record<string, unknown>;
      const withoutExp = { ...payload };
      delete withoutExp.exp;
      expectFail(await asUser(sign(withoutExp, TEST_SECRETS.JWT_SECRET, { algorithm: 'HS256' })), 1102);
      expectFail(
        await asUser(
          sign({ ...payload, user_id: randomUserId('ghost') }, TEST_SECRETS.JWT_SECRET, { algorithm: 'HS256' }),
        ),
        1102,
      );
    });

    it('checks the token before the body: no Authorization with an invalid body gives 1101', async () => {
      for (const path of REPORT_PATHS) {
        expectFail(await t.http.post(path).send({}), 1101);
        expectFail(await t.http.post(path).send({ request_id: 5, reason_code: 'x' }), 1101);
      }
    });

    it('accepts a token shortly before its exp and refuses it with 1103 shortly after', async () => {
      const alice = await api.user();
      const exp = (decode(alice.token) as { exp: number }).exp;
      const shift = exp * 1000 - 60_000 - t.clock.now();
      t.clock.advance(shift);
      try {
        expect((await asUser(alice.token)).body.code).toBe(0);
        t.clock.advance(120_000);
        expectFail(await asUser(alice.token), 1103);
      } finally {
        t.clock.advance(-shift - 120_000);
      }
    });

    it.each(REPORT_PATHS)('refuses an expired token on %s with 1103', async (path) => {
      const alice = await api.user();
      t.clock.advance(EIGHT_DAYS_MS);
      try {
        expectFail(await reportWith(`Bearer ${alice.token}`, path), 1103);
      } finally {
        t.clock.advance(-EIGHT_DAYS_MS);
      }
      expect((await asUser(alice.token)).body.code).toBe(0);
    });

    it('after revoke-tokens refuses every earlier token with 1102 and accepts a newly issued one', async () => {
      const alice = await api.user();
      const second = await api.user({ user_id: alice.userId });
      const bob = await api.user();
      const revoked = await api.raw.revokeTokens(alice.userId);
      expect(revoked.body).toMatchObject({ code: 0, msg: 'ok' });
      for (const path of REPORT_PATHS) {
        expectFail(await reportWith(`Bearer ${alice.token}`, path), 1102);
        expectFail(await reportWith(`Bearer ${second.token}`, path), 1102);
      }
      const fresh = await api.user({ user_id: alice.userId });
      expect(fresh.id).toBe(alice.id);
      expect((await asUser(fresh.token)).body.code).toBe(0);
      expect((await asUser(bob.token)).body.code).toBe(0);
    });

    it('disabling a user refuses its tokens and token issuing with 1003; re-enabling restores both', async () => {
      const alice = await api.user();
      expect((await api.raw.userStatus(alice.userId, true)).body).toMatchObject({ code: 0, msg: 'ok' });
      for (const path of REPORT_PATHS) expectFail(await reportWith(`Bearer ${alice.token}`, path), 1003);
      expectFail(await api.raw.token({ user_id: alice.userId, nickname: 'Alice changed' }), 1003);
      expect((await userRow(alice.userId))[0].nickname).not.toBe('Alice changed');
      expect((await api.raw.userStatus(alice.userId, false)).body).toMatchObject({ code: 0, msg: 'ok' });
      expect((await asUser(alice.token)).body.code).toBe(0);
      const again = await api.raw.token({ user_id: alice.userId, nickname: 'Alice' });
      expect(again.body.code).toBe(0);
      expect((await asUser(again.body.data.token)).body.code).toBe(0);
    });

    it('does not let revoke-tokens or users/status with a space-padded user_id touch the user', async () => {
      const alice = await api.user();
      for (const padded of [`${alice.userId} `, ` ${alice.userId}`]) {
        expectFail(await api.raw.revokeTokens(padded), 1004, 'user_id');
        expectFail(await api.raw.userStatus(padded, true), 1004, 'user_id');
      }
      expect((await asUser(alice.token)).body.code).toBe(0);
    });

    it.each<[string, unknown]>([
      ['the string "true"', 'true'],
      ['the number 1', 1],
      ['null', null],
      ['missing', undefined],
    ])('refuses users/status with disabled %s with 1004 naming disabled', async (_label, value) => {
      const alice = await api.user();
      const body: Body = { user_id: alice.userId };
      if (value !== undefined) body.disabled = value;
      expectFail(
        await t.http
          .post('/app/sdk/users/status')
          .set(...hostAuth())
          .send(body),
        1004,
        'disabled',
      );
      expect((await asUser(alice.token)).body.code).toBe(0);
    });
  });

  describe('host secret guard', () => {
    it('refuses an IM token on /app/sdk/token, users/upsert, users/revoke-tokens and users/status with 1001', async () => {
      const alice = await api.user();
      const calls: Array<[string, Body]> = [
        ['/app/sdk/token', { user_id: randomUserId(), nickname: 'x' }],
        ['/app/sdk/users/upsert', { user_id: randomUserId(), nickname: 'x' }],
        ['/app/sdk/users/revoke-tokens', { user_id: alice.userId }],
        ['/app/sdk/users/status', { user_id: alice.userId, disabled: true }],
      ];
      for (const [path, body] of calls)
        expectFail(
          await t.http
            .post(path)
            .set(...bearer(alice.token))
            .send(body),
          1001,
        );
      expect((await asUser(alice.token)).body.code).toBe(0); // neither revoked nor disabled
    });

    it('refuses users/upsert without the secret or with a wrong one with 1001', async () => {
      for (const header of [
        undefined,
        'Bearer wrong',
        `Bearer ${TEST_SECRETS.SDK_SECRET}x`,
        `Basic ${TEST_SECRETS.SDK_SECRET}`,
      ]) {
        const userId = randomUserId();
        const req = t.http.post('/app/sdk/users/upsert').send({ user_id: userId, nickname: 'x' });
        if (header) req.set('Authorization', header);
        expectFail(await req, 1001);
        expect(await userRow(userId)).toHaveLength(0);
      }
    });
  });
});
