import { TestApp, hostAuth, issueUser, startTestApp } from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { RtClient, connect, listen, refusal, waitForDisconnect } from '../helpers/realtime';
import { DataSource } from 'typeorm';
import { DisableExpiryService } from '../../src/users/disable-expiry.service';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';

interface AdminUser {
  user_id: string;
  disabled: boolean;
  disabled_until: number | null;
  disabled_reason: string | null;
  last_active_at: number | null;
}

/** Issue 25: the operator disables a user for a while or for good, with a reason the user's client is shown. */
describe('admin: timed disable with a reason', () => {
  // A database of the file's own: every instance flips back the timed disables that have lapsed
  // by its own clock, once a minute, and on the shared MySQL database another file's instance,
  // its clock held minutes or days ahead, would end these tests' disables while they check them.
  let database: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  let moderator: AdminSession;
  let viewer: AdminSession;
  const clients: RtClient[] = [];

  beforeAll(async () => {
    database = await isolatedDatabase();
    t = await startTestApp(database.env);
    api = new ApiClient(t);
    url = await listen(t);
    moderator = await adminSession(t, 'moderator');
    viewer = await adminSession(t, 'viewer');
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
    t.clock.release();
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  const status = (body: Record<string, unknown>) => moderator.post('/app/admin/users/status', body);
  const detail = async (userId: string) =>
    expectOk<{ user: AdminUser }>(await viewer.get('/app/admin/users/detail', { user_id: userId })).user;
  const auditOf = async (userId: string) =>
    expectOk<{ items: Array<Record<string, unknown>> }>(
      await viewer.get('/app/admin/audit', { target_type: 'user', target_id: userId }),
    ).items;

  it('disables for 60 s with a reason: 1003 with the reason as msg (HTTP, token, socket), then works again by itself', async () => {
    const user = await issueUser(t);
    const live = await connect(url, { auth: { token: user.token } });
    clients.push(live);
    const now = Date.now();
    t.clock.set(now);
    const reply = expectOk<AdminUser>(
      await status({ user_id: user.userId, disabled: true, duration_seconds: 60, reason: '  Spam in group chats ' }),
    );
    expect(reply).toMatchObject({
      user_id: user.userId,
      disabled: true,
      disabled_until: now + 60_000,
      disabled_reason: 'Spam in group chats',
    });
    expect(Object.keys(reply)).toEqual(expect.arrayContaining(['last_active_at']));

    const sdk = await api.raw.sync(user);
    expect(sdk.body).toEqual({ code: 1003, msg: 'Spam in group chats', data: null });
    // The live socket is told why, then closed; a new handshake is refused with the same msg.
    const revoked = await live.waitFor(() => live.of('session.revoked')[0], 15_000, 'session.revoked');
    expect(revoked.data).toEqual({ code: 1003, msg: 'Spam in group chats' });
    await waitForDisconnect(live, 10_000);
    expect(await refusal(url, { auth: { token: user.token } })).toEqual({ code: 1003, msg: 'Spam in group chats' });
    // The host's token endpoint refuses too, with the reason.
    const token = await t.http
      .post('/app/sdk/token')
      .set(...hostAuth())
      .send({ user_id: user.userId, nickname: 'N' });
    expect(token.body).toEqual({ code: 1003, msg: 'Spam in group chats', data: null });
    expect(await detail(user.userId)).toMatchObject({ disabled: true, disabled_until: now + 60_000 });

    // One second before the end: still disabled. At the end: enabled, before any sweep ran.
    t.clock.set(now + 59_000);
    expect((await api.raw.sync(user)).body.code).toBe(1003);
    t.clock.set(now + 60_000);
    expect((await api.raw.sync(user)).body.code).toBe(0);
    expect(await detail(user.userId)).toMatchObject({ disabled: false, disabled_until: null, disabled_reason: null });
    const again = await connect(url, { auth: { token: user.token } });
    clients.push(again);
    expect(again.socket.connected).toBe(true);

    // The sweep flips the stored row back (lists and filters read the column).
    await t.app.get(DisableExpiryService).runOnce();
    const row = (await t.app
      .get(DataSource)
      .query('SELECT disabled, disabled_until, disabled_reason FROM users WHERE external_id = ?', [
        user.userId,
      ])) as Array<{ disabled: number | boolean; disabled_until: unknown; disabled_reason: unknown }>;
    expect({ ...row[0], disabled: Boolean(Number(row[0].disabled)) }).toEqual({
      disabled: false,
      disabled_until: null,
      disabled_reason: null,
    });

    const [audit] = await auditOf(user.userId);
    expect(audit).toMatchObject({
      action: 'user.disabled',
      before: { disabled: false, disabled_until: null, disabled_reason: null },
      after: { disabled: true, disabled_until: now + 60_000, disabled_reason: 'Spam in group chats' },
    });
  });

  it('disables for good without a reason (default msg), and enabling clears the end and the reason', async () => {
    const user = await issueUser(t);
    expectOk(await status({ user_id: user.userId, disabled: true }));
    expect((await api.raw.sync(user)).body).toEqual({ code: 1003, msg: 'user is disabled', data: null });
    // For good: no end (the token would expire long before a year passed, so the row is what says so).
    expect(await detail(user.userId)).toMatchObject({ disabled: true, disabled_until: null, disabled_reason: null });

    // A timed disable would quietly shorten it: refused, nothing changes. A new reason for good is fine.
    const shorter = await status({ user_id: user.userId, disabled: true, duration_seconds: 3600, reason: 'Cool down' });
    expect(shorter.body).toEqual({
      code: 1004,
      msg: 'duration_seconds: the user is already disabled for good; enable first',
      data: null,
    });
    expect(await detail(user.userId)).toMatchObject({ disabled: true, disabled_until: null, disabled_reason: null });
    expectOk(await status({ user_id: user.userId, disabled: true, reason: 'Cool down' }));
    expect((await api.raw.sync(user)).body.msg).toBe('Cool down');
    const enabled = expectOk<AdminUser>(await status({ user_id: user.userId, disabled: false }));
    expect(enabled).toMatchObject({ disabled: false, disabled_until: null, disabled_reason: null });
    expect((await api.raw.sync(user)).body.code).toBe(0);
    expect((await auditOf(user.userId)).map((a) => [a.action, a.after])).toEqual([
      ['user.enabled', { disabled: false, disabled_until: null, disabled_reason: null, token_version: 0 }],
      ['user.disabled', { disabled: true, disabled_until: null, disabled_reason: 'Cool down', token_version: 0 }],
      ['user.disabled', { disabled: true, disabled_until: null, disabled_reason: null, token_version: 0 }],
    ]);
  });

  it("a timed disable replaces a timed one, but never the host's disable for good", async () => {
    const user = await issueUser(t);
    expectOk(await status({ user_id: user.userId, disabled: true, duration_seconds: 600, reason: 'Wait' }));
    const longer = expectOk<AdminUser>(
      await status({ user_id: user.userId, disabled: true, duration_seconds: 7200, reason: 'Wait longer' }),
    );
    expect(longer).toMatchObject({
      disabled: true,
      disabled_reason: 'Wait longer',
      disabled_until: expect.any(Number),
    });

    const banned = await issueUser(t);
    expectOk(
      await t.http
        .post('/app/sdk/users/status')
        .set(...hostAuth())
        .send({ user_id: banned.userId, disabled: true }),
    );
    const refused = await status({ user_id: banned.userId, disabled: true, duration_seconds: 86400, reason: 'spam' });
    expect(refused.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^duration_seconds: /) });
    expect(await detail(banned.userId)).toMatchObject({ disabled: true, disabled_until: null, disabled_reason: null });
    expect(await auditOf(banned.userId)).toEqual([]);
  });

  it('concurrent changes of one user each audit the state the previous one left', async () => {
    const user = await issueUser(t);
    const reasons = ['one', 'two', 'three', 'four'];
    const replies = await Promise.all(
      reasons.map((reason) => status({ user_id: user.userId, disabled: true, duration_seconds: 600, reason })),
    );
    for (const reply of replies) expect(reply.body.code).toBe(0);
    const rows = (await auditOf(user.userId)).reverse();
    expect(rows).toHaveLength(reasons.length);
    expect((rows[0].before as AdminUser).disabled_reason).toBeNull();
    for (let i = 1; i < rows.length; i += 1)
      expect((rows[i].before as AdminUser).disabled_reason).toBe((rows[i - 1].after as AdminUser).disabled_reason);
    expect(new Set(rows.map((r) => (r.after as AdminUser).disabled_reason)).size).toBe(reasons.length);
  });

  it('takes no report_id: an action is linked to a report only through /reports/act', async () => {
    const user = await issueUser(t);
    const response = await status({ user_id: user.userId, disabled: true, reason: 'x', report_id: '1' });
    expect(response.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^report_id: /) });
    expect(await detail(user.userId)).toMatchObject({ disabled: false });
    expect(await auditOf(user.userId)).toEqual([]);
  });

  it("the host's enable clears an operator's end and reason; its disable is for good", async () => {
    const user = await issueUser(t);
    expectOk(await status({ user_id: user.userId, disabled: true, duration_seconds: 600, reason: 'Wait' }));
    const hostEnable = await t.http
      .post('/app/sdk/users/status')
      .set(...hostAuth())
      .send({ user_id: user.userId, disabled: false });
    expect(hostEnable.body).toEqual({ code: 0, msg: 'ok', data: { user_id: user.userId, disabled: false } });
    expect(await detail(user.userId)).toMatchObject({ disabled: false, disabled_until: null, disabled_reason: null });
    expect((await api.raw.sync(user)).body.code).toBe(0);
  });

  it('refuses bad durations, reasons, nulls and huge values naming the field, and changes nothing', async () => {
    const user = await issueUser(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ disabled: true, duration_seconds: 59 }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: 0 }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: -60 }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: 31_536_001 }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: 1e300 }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: 60.5 }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: '3600' }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: null }, 'duration_seconds'],
      [{ disabled: true, duration_seconds: true }, 'duration_seconds'],
      [{ disabled: true, reason: '' }, 'reason'],
      [{ disabled: true, reason: '   ' }, 'reason'],
      [{ disabled: true, reason: 'x'.repeat(201) }, 'reason'],
      [{ disabled: true, reason: 'line\nbreak' }, 'reason'],
      [{ disabled: true, reason: 'nul\u0000' }, 'reason'],
      [{ disabled: true, reason: null }, 'reason'],
      [{ disabled: true, reason: 42 }, 'reason'],
      [{ disabled: true, reason: ['x'] }, 'reason'],
      [{ disabled: false, duration_seconds: 60 }, 'duration_seconds'],
      [{ disabled: false, reason: 'why' }, 'reason'],
      [{ disabled: true, report_id: 'abc' }, 'report_id'],
      [{ disabled: true, report_id: null }, 'report_id'],
    ];
    for (const [body, field] of cases) {
      const response = await status({ user_id: user.userId, ...body });
      expect({ body, status: response.status, code: response.body.code, data: response.body.data }).toEqual({
        body,
        status: 200,
        code: 1004,
        data: null,
      });
      expect({ body, msg: response.body.msg as string }).toEqual({
        body,
        msg: expect.stringMatching(new RegExp(`^${field}`)),
      });
    }
    expect((await api.raw.sync(user)).body.code).toBe(0);
    expect(await detail(user.userId)).toMatchObject({ disabled: false, disabled_until: null, disabled_reason: null });
    expect(await auditOf(user.userId)).toEqual([]);
    // The longest allowed values are accepted.
    const longest = expectOk<AdminUser>(
      await status({ user_id: user.userId, disabled: true, duration_seconds: 31_536_000, reason: 'é'.repeat(200) }),
    );
    expect(longest.disabled_reason).toBe('é'.repeat(200));
  });

  it('a viewer is refused (403 / 1004) and nothing changes', async () => {
    const user = await issueUser(t);
    const response = await viewer.post('/app/admin/users/status', {
      user_id: user.userId,
      disabled: true,
      duration_seconds: 60,
      reason: 'nope',
    });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 1004 });
    expect((await api.raw.sync(user)).body.code).toBe(0);
  });
});
