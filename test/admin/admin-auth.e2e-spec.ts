import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminAuthService } from '../../src/admin/admin-auth.service';
import { AdminAccountsRepository } from '../../src/admin/admin-accounts.repository';
import { TEST_SECRETS, TestApp, bearer, hostAuth, issueUser, startTestApp } from '../helpers/test-app';
import {
  ADMIN_PASSWORD,
  CSRF,
  adminName,
  adminSession,
  createAdmin,
  login,
  sessionCookie,
  sessionFor,
} from '../helpers/admin-client';

describe('admin console: accounts, sessions, CSRF (issue 14)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      ADMIN_SESSION_IDLE_SECONDS: '600',
      ADMIN_SESSION_ABSOLUTE_SECONDS: '3600',
      ADMIN_LOGIN_ATTEMPTS_PER_ACCOUNT: '5',
      CORS_ORIGINS: 'https://console.example.com',
    });
  });
  afterAll(() => t.close());

  it('logs in with a rotated HttpOnly SameSite=Strict cookie, answers me, and logs out', async () => {
    const username = await createAdmin(t, 'viewer');
    const first = await login(t, username);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: 0, data: { admin: { username, role: 'viewer', disabled: false } } });
    const setCookie = ([] as string[]).concat(first.headers['set-cookie'] ?? []);
    const id = /^ADMIN_SID=([A-Za-z0-9_-]{43});/.exec(setCookie[0])?.[1];
    // One value on the UI's path and the API's, none anywhere else (the old Path=/ one is cleared).
    expect(setCookie).toEqual([
      `ADMIN_SID=${id}; Path=/admin; Max-Age=3600; HttpOnly; SameSite=Strict`,
      `ADMIN_SID=${id}; Path=/app/admin; Max-Age=3600; HttpOnly; SameSite=Strict`,
      'ADMIN_SID=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
    ]);
    const cookie = sessionCookie(first);
    const me = await t.http.get('/app/admin/auth/me').set('Cookie', cookie);
    expect(me.body).toMatchObject({ code: 0, data: { admin: { username } } });

    // A second login from the same browser rotates: the old ID stops working.
    const second = await login(t, username, ADMIN_PASSWORD, cookie);
    const rotated = sessionCookie(second);
    expect(rotated).not.toBe(cookie);
    expect((await t.http.get('/app/admin/auth/me').set('Cookie', cookie)).status).toBe(401);
    expect((await t.http.get('/app/admin/auth/me').set('Cookie', rotated)).body.code).toBe(0);

    const out = await t.http
      .post('/app/admin/auth/logout')
      .set('Cookie', rotated)
      .set(...CSRF);
    expect(out.body).toEqual({ code: 0, msg: 'ok', data: { done: true } });
    expect(([] as string[]).concat(out.headers['set-cookie'] ?? [])).toEqual([
      'ADMIN_SID=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Strict',
      'ADMIN_SID=; Path=/app/admin; Max-Age=0; HttpOnly; SameSite=Strict',
      'ADMIN_SID=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict',
    ]);
    const after = await t.http.get('/app/admin/auth/me').set('Cookie', rotated);
    expect({ status: after.status, code: after.body.code }).toEqual({ status: 401, code: 1102 });
  });

  it('answers 401 with 1101 without a session and 1102 for a malformed or unknown one', async () => {
    const none = await t.http.get('/app/admin/auth/me');
    expect({ status: none.status, body: none.body }).toEqual({
      status: 401,
      body: { code: 1101, msg: expect.any(String), data: null },
    });
    for (const cookie of ['ADMIN_SID=nope', `ADMIN_SID=${'A'.repeat(43)}`]) {
      const response = await t.http.get('/app/admin/auth/me').set('Cookie', cookie);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 401, code: 1102 });
    }
  });

  it('expires sessions when idle and at the absolute limit', async () => {
    const session = await adminSession(t, 'viewer');
    t.clock.advance(9 * 60_000);
    expect((await session.get('/app/admin/auth/me')).body.code).toBe(0);
    t.clock.advance(9 * 60_000); // 9 minutes after the last use: still within the idle limit
    expect((await session.get('/app/admin/auth/me')).body.code).toBe(0);
    t.clock.advance(11 * 60_000);
    const idle = await session.get('/app/admin/auth/me');
    expect({ status: idle.status, code: idle.body.code }).toEqual({ status: 401, code: 1102 });

    const busy = await adminSession(t, 'viewer');
    for (let i = 0; i < 7; i++) {
      t.clock.advance(9 * 60_000);
      const response = await busy.get('/app/admin/auth/me');
      expect(response.body.code).toBe(i < 6 ? 0 : 1102); // 63 minutes > ADMIN_SESSION_ABSOLUTE_SECONDS
    }
  });

  it('refuses wrong passwords, unknown and disabled accounts alike, and locks after too many attempts', async () => {
    const username = await createAdmin(t, 'moderator');
    // Limits count in fixed windows: start this test at the beginning of one.
    const window = 15 * 60_000;
    t.clock.set(Math.ceil(t.clock.now() / window) * window + 1000);
    const wrong = await login(t, username, 'not the password at all');
    const unknown = await login(t, adminName('ghost'), ADMIN_PASSWORD);
    for (const response of [wrong, unknown]) {
      expect({ status: response.status, body: response.body }).toEqual({
        status: 401,
        body: {
          code: 1102,
          msg: 'username or password incorrect, or too many failed attempts: try again later',
          data: null,
        },
      });
    }
    for (let i = 0; i < 4; i++) await login(t, username, 'still not the password');
    // Attempt 6 of 5: even the right password answers as a wrong one.
    const locked = await login(t, username);
    expect({ status: locked.status, body: locked.body }).toEqual({ status: wrong.status, body: wrong.body });
    t.clock.advance(15 * 60_000 + 1000);
    expect((await login(t, username)).body.code).toBe(0);
  });

  it('counts failed sign-ins only: signing in many times never locks the account', async () => {
    const username = await createAdmin(t, 'viewer');
    const window = 15 * 60_000;
    t.clock.set(Math.ceil(t.clock.now() / window) * window + 1000);
    // The limit is 5 per window in these tests; twelve good sign-ins in one window all succeed.
    for (let i = 0; i < 12; i++) expect((await login(t, username)).body.code).toBe(0);
    // Failures still count: four wrong, then a good one (refunded), then one more wrong reaches 5.
    for (let i = 0; i < 4; i++) expect((await login(t, username, 'wrong password here')).body.code).toBe(1102);
    expect((await login(t, username)).body.code).toBe(0);
    expect((await login(t, username, 'wrong password here')).body.code).toBe(1102);
    // The sixth failure-counted attempt is refused, the right password included.
    expect((await login(t, username)).body.code).toBe(1102);
  });

  it('requires X-Admin-CSRF: 1 and a trusted Origin on every write, the login included', async () => {
    const session = await adminSession(t, 'owner');
    const noHeader = await t.http.post('/app/admin/auth/logout').set('Cookie', session.cookie).send({});
    expect({ status: noHeader.status, code: noHeader.body.code }).toEqual({ status: 403, code: 1004 });
    expect(noHeader.body.msg).toMatch(/X-Admin-CSRF/);
    const foreign = await t.http
      .post('/app/admin/auth/logout')
      .set('Cookie', session.cookie)
      .set(...CSRF)
      .set('Origin', 'https://evil.example.net')
      .send({});
    expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: 403, code: 1004 });
    const crossSite = await t.http
      .post('/app/admin/auth/login')
      .set(...CSRF)
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ username: session.username, password: ADMIN_PASSWORD });
    expect(crossSite.status).toBe(403);
    const loginWithout = await t.http
      .post('/app/admin/auth/login')
      .send({ username: session.username, password: ADMIN_PASSWORD });
    expect(loginWithout.status).toBe(403);
    // Own origin and a listed one pass.
    for (const origin of ['http://im.test', 'https://console.example.com']) {
      const response = await t.http
        .post('/app/admin/auth/login')
        .set(...CSRF)
        .set('Origin', origin)
        .send({ username: session.username, password: ADMIN_PASSWORD });
      expect(response.body.code).toBe(0);
    }
    // Reads need no header.
    expect((await session.get('/app/admin/auth/me')).body.code).toBe(0);
  });

  it('never accepts an SDK secret, an IM token or a host-style session in place of the console session', async () => {
    const user = await issueUser(t);
    for (const header of [hostAuth(), bearer(user.token), bearer(TEST_SECRETS.SDK_SECRET)]) {
      const response = await t.http.get('/app/admin/dashboard').set(...header);
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 401, code: 1101 });
      const write = await t.http
        .post('/app/admin/users/status')
        .set(...header)
        .set(...CSRF)
        .send({ user_id: user.userId, disabled: true });
      expect(write.status).toBe(401);
    }
    const phpsid = await t.http.get('/app/admin/dashboard').set('Cookie', `PHPSID=${'A'.repeat(43)}`);
    expect(phpsid.status).toBe(401);
    const inHeader = await t.http.get('/app/admin/dashboard').set('ADMIN_SID', 'A'.repeat(43));
    expect(inHeader.status).toBe(401);
  });

  it('changes the own password: the current one is required, other sessions end, the change is audited', async () => {
    const username = await createAdmin(t, 'viewer');
    const a = sessionFor(t, username, 'viewer', sessionCookie(await login(t, username)));
    const b = sessionFor(t, username, 'viewer', sessionCookie(await login(t, username)));
    const refused = await a.post('/app/admin/auth/password', {
      current_password: 'wrong password!!',
      new_password: 'a brand new passphrase',
    });
    expect(refused.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^current_password/) });
    const short = await a.post('/app/admin/auth/password', { current_password: ADMIN_PASSWORD, new_password: 'short' });
    expect(short.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^new_password/) });
    const changed = await a.post('/app/admin/auth/password', {
      current_password: ADMIN_PASSWORD,
      new_password: 'a brand new passphrase',
    });
    expect(changed.body.code).toBe(0);
    expect((await a.get('/app/admin/auth/me')).body.code).toBe(0);
    expect((await b.get('/app/admin/auth/me')).status).toBe(401);
    expect((await login(t, username)).status).toBe(401);
    expect((await login(t, username, 'a brand new passphrase')).body.code).toBe(0);
    const audit = await a.get('/app/admin/audit', { admin: username });
    expect(audit.body.data.items[0]).toMatchObject({ action: 'admin.password_changed', admin: username });
  });

  it('lets owners manage accounts, keeps one enabled owner, and ends sessions of a disabled account', async () => {
    const owner = await adminSession(t, 'owner');
    const name = adminName('new');
    const created = await owner.post('/app/admin/admins/create', {
      username: name,
      password: ADMIN_PASSWORD,
      role: 'viewer',
    });
    expect(created.body).toMatchObject({ code: 0, data: { username: name, role: 'viewer', disabled: false } });
    const taken = await owner.post('/app/admin/admins/create', {
      username: name,
      password: ADMIN_PASSWORD,
      role: 'viewer',
    });
    expect(taken.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^username/) });
    const victim = sessionFor(t, name, 'viewer', sessionCookie(await login(t, name)));
    const promoted = await owner.post('/app/admin/admins/update', { username: name, role: 'moderator' });
    expect(promoted.body.data.role).toBe('moderator');
    const disabled = await owner.post('/app/admin/admins/update', { username: name, disabled: true });
    expect(disabled.body.data.disabled).toBe(true);
    expect((await victim.get('/app/admin/auth/me')).status).toBe(401);
    expect((await login(t, name)).status).toBe(401);
    const list = await owner.get('/app/admin/admins');
    expect(list.body.data.items.map((a: { username: string }) => a.username)).toEqual(
      expect.arrayContaining([name, owner.username]),
    );
    const removed = await owner.post('/app/admin/admins/delete', { username: name });
    expect(removed.body.code).toBe(0);
    const audit = await owner.get('/app/admin/audit', { target_type: 'admin', target_id: name });
    expect(audit.body.data.items.map((i: { action: string }) => i.action)).toEqual([
      'admin.deleted',
      'admin.updated',
      'admin.updated',
      'admin.created',
    ]);
    expect(audit.body.data.items[1]).toMatchObject({
      before: { username: name, role: 'moderator', disabled: false },
      after: { username: name, role: 'moderator', disabled: true },
      trace_id: expect.any(String),
    });
    expect(JSON.stringify(audit.body)).not.toMatch(/scrypt/);

    // The last enabled owner cannot demote, disable or delete itself. Getting there disables every
    // other owner, which on MariaDB would reach the spec files sharing the database: SQLite only.
    if (t.driver !== 'sqlite') return;
    const repo = t.app.get(AdminAccountsRepository);
    const owners = (await repo.list()).filter((a) => a.role === 'owner' && !a.disabled);
    for (const other of owners.filter((a) => a.username !== owner.username))
      await owner.post('/app/admin/admins/update', { username: other.username, disabled: true });
    const lastOwner = await owner.post('/app/admin/admins/update', { username: owner.username, role: 'viewer' });
    expect(lastOwner.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/last enabled owner/) });
    expect((await owner.post('/app/admin/admins/delete', { username: owner.username })).body.code).toBe(1004);
  });

  it('creates the bootstrap owner once, also when instances start together', async () => {
    const service = t.app.get(AdminAuthService);
    const repo = t.app.get(AdminAccountsRepository);
    // This database already has administrators: bootstrapping adds nobody.
    const before = await repo.count();
    await Promise.all([service.onApplicationBootstrap(), service.onApplicationBootstrap()]);
    expect(await repo.count()).toBe(before);
  });
});

describe('admin console: first administrator', () => {
  it('ADMIN_BOOTSTRAP_PASSWORD creates one owner on an empty console; concurrent starts converge', async () => {
    const t = await startTestApp({
      ADMIN_BOOTSTRAP_USERNAME: 'root.admin',
      ADMIN_BOOTSTRAP_PASSWORD: 'bootstrap passphrase',
    });
    try {
      const repo = t.app.get(AdminAccountsRepository);
      // On MariaDB every spec file shares one database, which already holds administrators:
      // there the bootstrap rightly creates nobody, and only its idempotence is checked.
      if (t.driver === 'sqlite') {
        expect((await repo.list()).map((a) => [a.username, a.role])).toEqual([['root.admin', 'owner']]);
        const response = await login(t, 'root.admin', 'bootstrap passphrase');
        expect(response.body).toMatchObject({ code: 0, data: { admin: { role: 'owner' } } });
      }
      // Two more "instances" starting: the unique username lets nothing more in.
      const service = t.app.get(AdminAuthService);
      const count = await repo.count();
      await Promise.all([service.onApplicationBootstrap(), service.onApplicationBootstrap()]);
      expect(await repo.count()).toBe(count);
    } finally {
      await t.close();
    }
  });

  it('npm run admin:create reads the password from stdin and never prints it', () => {
    // Its own SQLite file on either driver run: the CLI is the same code on both.
    const file = join(tmpdir(), `im-admin-cli-${process.pid}.sqlite`);
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: `sqlite:${file}`,
      MIGRATIONS_RUN: 'true',
      ...TEST_SECRETS,
      LOG_LEVEL: 'error',
    };
    delete (env as Record<string, string | undefined>).ADMIN_PASSWORD;
    const secret = 'cli passphrase 12345';
    const result = spawnSync(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        'src/cli/admin-create.ts',
        '--username',
        'cli.owner',
        '--role',
        'owner',
      ],
      { input: `${secret}\n`, env, encoding: 'utf8', cwd: join(__dirname, '..', '..'), timeout: 120_000 },
    );
    rmSync(file, { force: true });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}')).toEqual({
      created: { username: 'cli.owner', role: 'owner' },
    });
    expect(result.stdout + result.stderr).not.toContain(secret);
  });
});
