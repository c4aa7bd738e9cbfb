// Two-factor sign-in (TOTP, RFC 6238) for the admin console (issue 14).
import { LOGIN_FAILED_MSG } from '../../src/admin/admin-auth.service';
import { toString as qrSvg } from 'qrcode';
import { totpCodeAt } from '../../src/admin/admin-totp';
import { TestApp, startTestApp } from '../helpers/test-app';
import { expectOk } from '../helpers/assertions';
import {
  ADMIN_PASSWORD,
  AdminSession,
  CSRF,
  adminSession,
  createAdmin,
  login,
  sessionFor,
  sessionCookie,
} from '../helpers/admin-client';

const STEP_MS = 30_000;

describe('admin two-factor sign-in', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  // Each test starts at the beginning of a time step, far from every other test's steps.
  beforeEach(() =>
    t.clock.set((Math.floor(Date.now() / STEP_MS) + 10_000 + Math.floor(Math.random() * 1e6)) * STEP_MS),
  );

  const code = (secret: string, offsetMs = 0) => totpCodeAt(secret, t.clock.now() + offsetMs);
  const loginWith = (username: string, totp_code?: string, password = ADMIN_PASSWORD) =>
    t.http
      .post('/app/admin/auth/login')
      .set(...CSRF)
      .send({ username, password, ...(totp_code === undefined ? {} : { totp_code }) });

  /** An administrator with two-factor sign-in on, and its secret. */
  async function withTotp(): Promise<{ session: AdminSession; secret: string }> {
    const session = await adminSession(t, 'viewer');
    const setup = expectOk<{ secret: string; otpauth_uri: string }>(await session.post('/app/admin/auth/totp/setup'));
    expectOk(await session.post('/app/admin/auth/totp/enable', { code: code(setup.secret) }));
    t.clock.advance(STEP_MS);
    return { session, secret: setup.secret };
  }

  it('sets up with a secret, an otpauth URI and its QR code, and turns on only with a code from that secret', async () => {
    const session = await adminSession(t, 'viewer');
    const setup = expectOk<{ secret: string; otpauth_uri: string; qr_code: string }>(
      await session.post('/app/admin/auth/totp/setup'),
    );
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.otpauth_uri).toBe(
      `otpauth://totp/IM%20Admin:${session.username}?issuer=IM%20Admin&secret=${setup.secret}&algorithm=SHA1&digits=6&period=30`,
    );
    // The QR code of exactly that URI, as an SVG image the console shows with <img> (CSP img-src data:).
    const [prefix, encoded] = setup.qr_code.split(',');
    expect(prefix).toBe('data:image/svg+xml;base64');
    expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(
      await qrSvg(setup.otpauth_uri, { type: 'svg', errorCorrectionLevel: 'M' }),
    );
    const me = () => session.get('/app/admin/auth/me');
    expect(expectOk<{ admin: { totp_enabled: boolean } }>(await me()).admin.totp_enabled).toBe(false);
    const wrong = await session.post('/app/admin/auth/totp/enable', { code: code(setup.secret, 5 * STEP_MS) });
    expect(wrong.body).toMatchObject({ code: 1004, data: null, msg: expect.stringMatching(/^code: /) });
    for (const bad of ['12345', '1234567', 'abcdef', 123456, null]) {
      const response = await session.post('/app/admin/auth/totp/enable', { code: bad });
      expect({ bad, code: response.body.code, msg: response.body.msg }).toEqual({
        bad,
        code: 1004,
        msg: expect.stringMatching(/^code/),
      });
    }
    expectOk(await session.post('/app/admin/auth/totp/enable', { code: code(setup.secret) }));
    expect(expectOk<{ admin: { totp_enabled: boolean } }>(await me()).admin.totp_enabled).toBe(true);
    const again = await session.post('/app/admin/auth/totp/setup');
    expect(again.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^totp: /) });
  });

  it('needs a current code at login; a missing, wrong or reused one fails exactly like a wrong password', async () => {
    const { session, secret } = await withTotp();
    const wrongPassword = await loginWith(session.username, code(secret), 'not the password');
    const failure = { status: wrongPassword.status, body: wrongPassword.body };
    expect(failure).toEqual({ status: 401, body: { code: 1102, msg: LOGIN_FAILED_MSG, data: null } });
    for (const attempt of [undefined, code(secret, 3 * STEP_MS), '111111']) {
      const response = await loginWith(session.username, attempt);
      expect({ attempt, status: response.status, body: response.body }).toEqual({ attempt, ...failure });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    const current = code(secret);
    expectOk(await loginWith(session.username, current));
    // The same code (the same step) again is a replay.
    const replay = await loginWith(session.username, current);
    expect({ status: replay.status, body: replay.body }).toEqual(failure);
    // An older step's code is refused once a newer step was used.
    expect((await loginWith(session.username, code(secret, -STEP_MS))).status).toBe(401);
    // A phone one step behind: the previous step's code works when no newer step was used.
    t.clock.advance(2 * STEP_MS);
    expectOk(await loginWith(session.username, code(secret, -STEP_MS)));
  });

  it('of two logins with the same code at once, exactly one succeeds', async () => {
    const { session, secret } = await withTotp();
    const current = code(secret);
    const replies = await Promise.all([loginWith(session.username, current), loginWith(session.username, current)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('turns off with the password and an unused code, and ends the other sessions on each change', async () => {
    const { session, secret } = await withTotp();
    const other = sessionFor(
      t,
      session.username,
      'viewer',
      sessionCookie(await loginWith(session.username, code(secret))),
    );
    t.clock.advance(STEP_MS);
    const badPassword = await session.post('/app/admin/auth/totp/disable', { password: 'nope', code: code(secret) });
    expect(badPassword.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^password: /) });
    const used = code(secret);
    expectOk(await loginWith(session.username, used));
    const replayed = await session.post('/app/admin/auth/totp/disable', { password: ADMIN_PASSWORD, code: used });
    expect(replayed.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^code: /) });
    t.clock.advance(STEP_MS);
    expectOk(await session.post('/app/admin/auth/totp/disable', { password: ADMIN_PASSWORD, code: code(secret) }));
    expect((await other.get('/app/admin/auth/me')).status).toBe(401);
    expect((await session.get('/app/admin/auth/me')).body.code).toBe(0);
    expectOk(await loginWith(session.username));
    const off = await session.post('/app/admin/auth/totp/disable', { password: ADMIN_PASSWORD, code: code(secret) });
    expect(off.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^totp: /) });
  });

  it('lets an owner reset a lost authenticator, audited without the secret', async () => {
    const { session, secret } = await withTotp();
    const owner = await adminSession(t, 'owner');
    const listed = expectOk<{ items: Array<{ username: string; totp_enabled: boolean }> }>(
      await owner.get('/app/admin/admins'),
    ).items.find((a) => a.username === session.username);
    expect(listed?.totp_enabled).toBe(true);
    expectOk(await owner.post('/app/admin/admins/update', { username: session.username, reset_totp: true }));
    expect((await session.get('/app/admin/auth/me')).status).toBe(401);
    expectOk(await loginWith(session.username));
    const audit = expectOk<{ items: Array<Record<string, unknown>> }>(
      await owner.get('/app/admin/audit', { target_type: 'admin', target_id: session.username }),
    );
    expect(audit.items.map((i) => i.action)).toEqual(expect.arrayContaining(['admin.totp_enabled', 'admin.updated']));
    const reset = audit.items.find((i) => i.action === 'admin.updated')!;
    expect(reset).toMatchObject({ before: { totp_enabled: true }, after: { totp_enabled: false } });
    expect(JSON.stringify(audit.items)).not.toContain(secret);
  });

  it('keeps a login without a code working for accounts without two-factor sign-in (a code sent is ignored)', async () => {
    const username = await createAdmin(t, 'viewer');
    expectOk(await login(t, username));
    expectOk(await loginWith(username, '123456'));
  });
});
