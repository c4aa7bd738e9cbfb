import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { ApiClient, groupCid, friendCid } from '../helpers/api-client';
import { expectOk, recipientIds, storedEvent } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';
import { ADMIN_PASSWORD, AdminSession, adminName, adminSession } from '../helpers/admin-client';
import type { AdminRole } from '../../src/admin/admin.entities';
import { UserAccessEvents } from '../../src/users/user-access-events';
import { AnalyticsRollupJob } from '../../src/analytics/analytics-rollup-job.service';
import { dayOf } from '../../src/analytics/rollup';

type Endpoint = {
  method: 'GET' | 'POST';
  path: string;
  least: AdminRole;
  body?: object;
  query?: Record<string, string>;
};

/** Every admin endpoint with the least role that may call it (the login is public). */
const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/app/admin/auth/logout', least: 'viewer' },
  { method: 'GET', path: '/app/admin/auth/me', least: 'viewer' },
  {
    method: 'POST',
    path: '/app/admin/auth/password',
    least: 'viewer',
    body: { current_password: 'x', new_password: 'y' },
  },
  // Setup only makes a pending secret; '000000' is refused (no setup yet, or a wrong code).
  { method: 'POST', path: '/app/admin/auth/totp/setup', least: 'viewer' },
  { method: 'POST', path: '/app/admin/auth/totp/enable', least: 'viewer', body: { code: 'x' } },
  { method: 'POST', path: '/app/admin/auth/totp/disable', least: 'viewer', body: { password: 'x', code: 'x' } },
  { method: 'POST', path: '/app/admin/auth/locale', least: 'viewer', body: { locale: 'xx' } },
  { method: 'GET', path: '/app/admin/admins', least: 'owner' },
  {
    method: 'POST',
    path: '/app/admin/admins/create',
    least: 'owner',
    body: { username: 'zz-none', password: 'x', role: 'viewer' },
  },
  { method: 'POST', path: '/app/admin/admins/update', least: 'owner', body: { username: 'zz-none' } },
  { method: 'POST', path: '/app/admin/admins/delete', least: 'owner', body: { username: 'zz-none' } },
  { method: 'GET', path: '/app/admin/audit', least: 'viewer' },
  { method: 'GET', path: '/app/admin/reports', least: 'viewer' },
  { method: 'GET', path: '/app/admin/reports/detail', least: 'viewer', query: { report_id: '999999999' } },
  {
    method: 'POST',
    path: '/app/admin/reports/transition',
    least: 'moderator',
    body: { report_id: '999999999', status: 'closed' },
  },
  {
    method: 'POST',
    path: '/app/admin/reports/act',
    least: 'moderator',
    body: { report_id: '999999999', action: 'close' },
  },
  {
    method: 'GET',
    path: '/app/admin/reports/context',
    least: 'moderator',
    query: { report_id: '999999999', message_id: '1' },
  },
  { method: 'GET', path: '/app/admin/reports/targets', least: 'viewer' },
  { method: 'GET', path: '/app/admin/client-errors', least: 'viewer' },
  {
    method: 'GET',
    path: '/app/admin/client-errors/group',
    least: 'viewer',
    query: { error_code: 'no.such.group', platform: 'ios' },
  },
  {
    method: 'GET',
    path: '/app/admin/client-errors/occurrences',
    least: 'viewer',
    query: { error_code: 'no.such.group', platform: 'ios' },
  },
  { method: 'GET', path: '/app/admin/client-errors/detail', least: 'viewer', query: { merge_key: '0'.repeat(64) } },
  { method: 'GET', path: '/app/admin/dashboard', least: 'viewer' },
  { method: 'GET', path: '/app/admin/users', least: 'viewer' },
  { method: 'GET', path: '/app/admin/users/detail', least: 'viewer', query: { user_id: 'nobody-here' } },
  {
    method: 'POST',
    path: '/app/admin/users/status',
    least: 'moderator',
    body: { user_id: 'nobody-here', disabled: true },
  },
  { method: 'POST', path: '/app/admin/users/force-logout', least: 'moderator', body: { user_id: 'nobody-here' } },
  { method: 'GET', path: '/app/admin/groups', least: 'viewer' },
  { method: 'GET', path: '/app/admin/users/overview', least: 'viewer', query: { user_id: 'nobody-here' } },
  { method: 'GET', path: '/app/admin/users/export', least: 'moderator', query: { q: 'nobody-here' } },
  {
    method: 'POST',
    path: '/app/admin/users/profile',
    least: 'moderator',
    body: { user_id: 'nobody-here', nickname: 'x' },
  },
  { method: 'GET', path: '/app/admin/groups/overview', least: 'viewer', query: { group_id: 'no-such-group' } },
  { method: 'GET', path: '/app/admin/groups/export', least: 'moderator', query: { q: 'no-such-group' } },
  { method: 'GET', path: '/app/admin/groups/members', least: 'viewer', query: { group_id: 'no-such-group' } },
  {
    method: 'POST',
    path: '/app/admin/groups/status',
    least: 'moderator',
    body: { group_id: 'no-such-group', disabled: true },
  },
  { method: 'POST', path: '/app/admin/groups/dismiss', least: 'moderator', body: { group_id: 'no-such-group' } },
  {
    method: 'POST',
    path: '/app/admin/groups/members/mute',
    least: 'moderator',
    body: { group_id: 'no-such-group', user_id: 'nobody-here', duration_seconds: 60 },
  },
  {
    method: 'POST',
    path: '/app/admin/groups/members/remove',
    least: 'moderator',
    body: { group_id: 'no-such-group', user_id: 'nobody-here' },
  },
  {
    method: 'POST',
    path: '/app/admin/groups/transfer',
    least: 'moderator',
    body: { group_id: 'no-such-group', user_id: 'nobody-here' },
  },
  {
    method: 'POST',
    path: '/app/admin/messages/recall',
    least: 'moderator',
    body: { conversation_id: '999999999999', message_ids: ['1'] },
  },
  {
    method: 'POST',
    path: '/app/admin/messages/delete',
    least: 'moderator',
    body: { conversation_id: '999999999999', message_ids: ['1'] },
  },
  // The settings apply to every user of the shared database: these bodies are all refused (1004).
  { method: 'GET', path: '/app/admin/settings', least: 'viewer' },
  { method: 'POST', path: '/app/admin/settings/update', least: 'owner', body: { capabilities: {} } },
  { method: 'POST', path: '/app/admin/settings/reset', least: 'owner', body: { keys: ['nothing'] } },
  { method: 'POST', path: '/app/admin/settings/rtc-callback-key/stage', least: 'owner', body: { key: 'short' } },
  { method: 'POST', path: '/app/admin/settings/rtc-callback-key/promote', least: 'owner' },
  { method: 'POST', path: '/app/admin/settings/rtc-callback-key/cancel', least: 'owner' },
];
const ROLES: AdminRole[] = ['viewer', 'moderator', 'owner'];
const rank = (role: AdminRole): number => ROLES.indexOf(role);

describe('admin console API (issue 14)', () => {
  let t: TestApp;
  let api: ApiClient;
  const sessions = {} as Record<AdminRole, AdminSession>;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    for (const role of ROLES) sessions[role] = await adminSession(t, role);
  });
  afterAll(() => t.close());

  const call = (s: AdminSession | null, e: Endpoint) => {
    if (!s)
      return e.method === 'GET'
        ? t.http.get(e.path).query(e.query ?? {})
        : t.http
            .post(e.path)
            .set('X-Admin-CSRF', '1')
            .send(e.body ?? {});
    return e.method === 'GET' ? s.get(e.path, e.query) : s.post(e.path, e.body ?? {});
  };

  describe.each(ENDPOINTS)('$method $path', (endpoint) => {
    it('answers 401 / 1101 without a session', async () => {
      const response = await call(null, endpoint);
      expect({ status: response.status, code: response.body.code, data: response.body.data }).toEqual({
        status: 401,
        code: 1101,
        data: null,
      });
    });

    it.each(ROLES)('as %s: 403 / 1004 below the least role, otherwise past the guard', async (role) => {
      const response = await call(sessions[role], endpoint);
      if (rank(role) < rank(endpoint.least)) {
        expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 1004 });
        expect(response.body.msg).toMatch(/^role: /);
      } else {
        expect(response.status).toBe(200);
        // A CSV export's success has no envelope.
        expect(String(response.body.msg ?? '')).not.toMatch(/^role: /);
      }
      // Logging out ends the session the table uses: log the role in again.
      if (endpoint.path.endsWith('/logout') && response.status === 200) sessions[role] = await adminSession(t, role);
    });
  });

  it('answers malformed input on every endpoint with an envelope, never HTTP 500 (authenticated)', async () => {
    const odd: unknown[] = [null, 1.5, -1, true, [], ['x'], { a: 1 }, '', ' x ', 'x'.repeat(5000), '\u0000', '\uD800'];
    for (const endpoint of ENDPOINTS) {
      if (endpoint.path.endsWith('/logout')) continue;
      const fields = Object.keys({ ...(endpoint.body ?? {}), ...(endpoint.query ?? {}), cursor: 1, q: 1, status: 1 });
      for (const field of fields)
        for (const value of odd) {
          const response =
            endpoint.method === 'GET'
              ? await sessions.owner.get(endpoint.path, {
                  ...endpoint.query,
                  [field]: typeof value === 'string' ? value : JSON.stringify(value),
                })
              : await sessions.owner.post(endpoint.path, { ...endpoint.body, [field]: value });
          expect({ path: endpoint.path, field, status: response.status }).toEqual({
            path: endpoint.path,
            field,
            status: 200,
          });
          // The CSV exports answer a value they accept (an ignored key, a search) with the file.
          if (String(response.headers['content-type']).startsWith('text/csv')) continue;
          expect(Object.keys(response.body).sort()).toEqual(['code', 'data', 'msg']);
        }
    }
    // Several thousand requests: generous on a loaded machine.
  }, 300_000);

  const auditOf = async (targetType: string, targetId: string) =>
    expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/audit', { target_type: targetType, target_id: targetId }),
    ).items;

  it('refuses a misspelt key beside valid ones on every write (1004 naming it) and changes nothing', async () => {
    const [user, groupOwner, member] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(groupOwner, [member]);
    expectOk(
      await t.http
        .post('/app/sdk/reports/user')
        .set('Authorization', `Bearer ${user.token}`)
        .send({ request_id: randomUUID(), reason_code: 1, user_id: member.userId }),
    );
    const reportId = String(
      expectOk<{ items: Array<Record<string, unknown>> }>(
        await sessions.viewer.get('/app/admin/reports', { status: 'pending' }),
      ).items.find((r) => r.reporter_user_id === user.userId)!.report_id,
    );
    const viewer = await adminSession(t, 'viewer');
    const newName = adminName('typo');
    const cases: Array<[AdminSession, string, object, string]> = [
      [
        sessions.owner,
        'admins/create',
        { username: newName, password: ADMIN_PASSWORD, role: 'viewer', rol: 'owner' },
        'rol',
      ],
      [sessions.owner, 'admins/update', { username: viewer.username, role: 'moderator', disbled: true }, 'disbled'],
      [sessions.owner, 'admins/delete', { username: viewer.username, force: true }, 'force'],
      [sessions.moderator, 'reports/transition', { report_id: reportId, status: 'closed', notes: 'typo' }, 'notes'],
      [sessions.moderator, 'users/status', { user_id: user.userId, disabled: true, reasn: 'spam' }, 'reasn'],
      [sessions.moderator, 'users/force-logout', { user_id: user.userId, all: true }, 'all'],
      [sessions.moderator, 'groups/status', { group_id: groupId, disabled: true, note: '' }, 'note'],
      [sessions.moderator, 'groups/dismiss', { group_id: groupId, confirm: true }, 'confirm'],
      [
        viewer,
        'auth/password',
        { current_password: ADMIN_PASSWORD, new_password: 'x'.repeat(20), new_pasword: 'y' },
        'new_pasword',
      ],
      [viewer, 'auth/totp/enable', { code: '123456', cdoe: '1' }, 'cdoe'],
      [viewer, 'auth/locale', { locale: 'zh-CN', locael: 'en' }, 'locael'],
    ];
    for (const [session, path, body, key] of cases) {
      const response = await session.post(`/app/admin/${path}`, body);
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 200,
        body: { code: 1004, msg: `${key}: unknown field`, data: null },
      });
    }
    const login = await t.http
      .post('/app/admin/auth/login')
      .set('X-Admin-CSRF', '1')
      .send({ username: viewer.username, password: ADMIN_PASSWORD, totp: '123456' });
    expect(login.body).toEqual({ code: 1004, msg: 'totp: unknown field', data: null });

    // Nothing changed: no account, role, report move, user or group state, token revocation or audit row.
    const admins = expectOk<{ items: Array<{ username: string; role: string; disabled: boolean }> }>(
      await sessions.owner.get('/app/admin/admins'),
    ).items;
    expect(admins.find((a) => a.username === newName)).toBeUndefined();
    expect(admins.find((a) => a.username === viewer.username)).toMatchObject({ role: 'viewer', disabled: false });
    expect(expectOk(await viewer.get('/app/admin/auth/me'))).toMatchObject({
      admin: { username: viewer.username, locale: 'en' },
    });
    expect(
      expectOk<{ report: { status: string } }>(
        await sessions.viewer.get('/app/admin/reports/detail', { report_id: reportId }),
      ).report.status,
    ).toBe('pending');
    expect((await api.raw.sendText(member, groupCid(groupId), 'still here')).body.code).toBe(0);
    expect((await t.http.post('/app/sdk/sync').set('Authorization', `Bearer ${user.token}`).send({})).body.code).toBe(
      0,
    );
    for (const [type, id] of [
      ['admin', newName],
      ['admin', viewer.username],
      ['report', reportId],
      ['user', user.userId],
      ['group', groupId],
    ])
      expect({ type, id, audit: await auditOf(type, id) }).toEqual({ type, id, audit: [] });
    // A query still ignores a key it does not know, like every query of the API.
    expect((await sessions.viewer.get('/app/admin/users/detail', { user_id: user.userId, extra: '1' })).body.code).toBe(
      0,
    );
  });

  it('disables a user (1003 on the next SDK call, as the host endpoint) and enables again, audited', async () => {
    const user = await issueUser(t);
    const changes: Array<[string, string]> = [];
    t.app.get(UserAccessEvents).subscribe((id, change) => changes.push([id, change]));
    expect((await api.raw.sync(user)).body.code).toBe(0);
    const disabled = expectOk<Record<string, unknown>>(
      await sessions.moderator.post('/app/admin/users/status', { user_id: user.userId, disabled: true }),
    );
    expect(disabled).toMatchObject({ user_id: user.userId, disabled: true, token_version: 0 });
    expect((await api.raw.sync(user)).body.code).toBe(1003);
    // What closes the user's sockets (the gateway listens to these).
    expect(changes.filter(([id]) => id === user.id)).toEqual([[user.id, 'disabled']]);
    const detail = expectOk<Record<string, unknown>>(
      await sessions.viewer.get('/app/admin/users/detail', { user_id: user.userId }),
    );
    expect(detail).toEqual({
      user: expect.objectContaining({ user_id: user.userId, disabled: true }),
      group_count: 0,
      conversation_count: 0,
      online: false,
      last_seen_at: null,
    });
    expectOk(await sessions.moderator.post('/app/admin/users/status', { user_id: user.userId, disabled: false }));
    expect((await api.raw.sync(user)).body.code).toBe(0);
    const audit = await auditOf('user', user.userId);
    expect(audit.map((a) => [a.action, a.admin, a.before, a.after])).toEqual([
      [
        'user.enabled',
        sessions.moderator.username,
        { disabled: true, disabled_until: null, disabled_reason: null, token_version: 0 },
        { disabled: false, disabled_until: null, disabled_reason: null, token_version: 0 },
      ],
      [
        'user.disabled',
        sessions.moderator.username,
        { disabled: false, disabled_until: null, disabled_reason: null, token_version: 0 },
        { disabled: true, disabled_until: null, disabled_reason: null, token_version: 0 },
      ],
    ]);
    const unknown = await sessions.moderator.post('/app/admin/users/status', {
      user_id: 'nobody-here',
      disabled: true,
    });
    expect(unknown.body.code).toBe(1204);
  });

  it('forces a logout: older tokens fail with 1102, newly issued ones work', async () => {
    const user = await issueUser(t);
    const reply = expectOk<Record<string, unknown>>(
      await sessions.owner.post('/app/admin/users/force-logout', { user_id: user.userId }),
    );
    expect(reply.token_version).toBe(1);
    expect((await api.raw.sync(user)).body.code).toBe(1102);
    const again = await issueUser(t, { user_id: user.userId });
    expect((await api.raw.sync(again)).body.code).toBe(0);
    expect((await auditOf('user', user.userId))[0]).toMatchObject({
      action: 'user.tokens_revoked',
      before: { token_version: 0 },
      after: { token_version: 1 },
    });
  });

  it('searches users by user ID, username and nickname prefix, with counts but no message contents', async () => {
    const nickname = `Zq_%${randomUUID().slice(0, 8)}`;
    const alice = await issueUser(t, { username: `al${Date.now()}`, nickname });
    const bob = await issueUser(t);
    await api.befriend(alice, bob);
    await api.send(alice, friendCid(bob), 'secret words');
    const byId = expectOk<{ items: Array<{ user_id: string }> }>(
      await sessions.viewer.get('/app/admin/users', { q: alice.userId }),
    );
    expect(byId.items.map((u) => u.user_id)).toEqual([alice.userId]);
    const byNick = expectOk<{ items: Array<{ user_id: string }> }>(
      await sessions.viewer.get('/app/admin/users', { q: nickname.slice(0, -1) }),
    );
    expect(byNick.items.map((u) => u.user_id)).toEqual([alice.userId]);
    // '%' and '_' are literal in the prefix.
    const wildcard = expectOk<{ items: unknown[] }>(await sessions.viewer.get('/app/admin/users', { q: 'Zq%' }));
    expect(wildcard.items).toEqual([]);
    const detail = await sessions.viewer.get('/app/admin/users/detail', { user_id: alice.userId });
    expect(expectOk<Record<string, unknown>>(detail)).toMatchObject({ group_count: 0, conversation_count: 1 });
    expect(JSON.stringify(detail.body)).not.toContain('secret words');
  });

  it('disables a group (1218 on send), enables it, and dismisses it exactly as its owner would', async () => {
    const owner = await issueUser(t);
    const member = await issueUser(t);
    const groupId = await api.createGroup(owner, [member]);
    const search = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/groups', { q: groupId }),
    );
    expect(search.items).toEqual([
      expect.objectContaining({
        group_id: groupId,
        owner_user_id: owner.userId,
        member_count: 2,
        disabled: false,
        dismissed_at: null,
      }),
    ]);
    const members = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/groups/members', { group_id: groupId }),
    );
    expect(members.items.map((m) => [m.user_id, m.role]).sort()).toEqual(
      [
        [owner.userId, 'owner'],
        [member.userId, 'member'],
      ].sort(),
    );

    expectOk(await sessions.moderator.post('/app/admin/groups/status', { group_id: groupId, disabled: true }));
    const refused = await api.raw.sendText(member, groupCid(groupId), 'hi');
    expect(refused.body.code).toBe(1218);
    expectOk(await sessions.moderator.post('/app/admin/groups/status', { group_id: groupId, disabled: false }));
    await api.send(member, groupCid(groupId), 'back');

    const dismissed = expectOk<{ group_id: string; dismissed_at: number; event_id: string }>(
      await sessions.moderator.post('/app/admin/groups/dismiss', { group_id: groupId }),
    );
    expect(dismissed).toEqual({ group_id: groupId, dismissed_at: expect.any(Number), event_id: expect.any(String) });
    const event = await storedEvent(t, dismissed.event_id);
    expect(event.type).toBe('group.dismissed');
    expect(event.payload).toMatchObject({ operator_user_id: owner.userId, dismissed_at: dismissed.dismissed_at });
    expect(recipientIds(event)).toEqual([owner.id, member.id].sort());
    const after = await t.http
      .get('/app/sdk/groups/get')
      .set('Authorization', `Bearer ${owner.token}`)
      .query({ group_id: groupId });
    expect(after.body.code).toBe(1209);
    expect(after.body.msg).toContain('dismissed');
    const twice = await sessions.moderator.post('/app/admin/groups/dismiss', { group_id: groupId });
    expect(twice.body.code).toBe(1209);
    expect((await auditOf('group', groupId)).map((a) => a.action)).toEqual([
      'group.dismissed',
      'group.enabled',
      'group.disabled',
    ]);
  });

  it('moves reports pending → reviewed → closed with notes, refuses illegal moves, and shows the evidence', async () => {
    const reporter = await issueUser(t);
    const target = await issueUser(t);
    await api.befriend(reporter, target);
    const sent = await api.send(target, friendCid(reporter), 'abusive text');
    const mid = (sent as unknown as { message: { mid: string } }).message.mid;
    const requestId = randomUUID();
    expectOk(
      await t.http
        .post('/app/sdk/reports/user')
        .set('Authorization', `Bearer ${reporter.token}`)
        .send({
          request_id: requestId,
          reason_code: 7,
          user_id: target.userId,
          conversation_id: friendCid(target),
          message_ids: [mid],
        }),
    );
    const page = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/reports', { status: 'pending', target_type: 'user', reason: '7' }),
    );
    const report = page.items.find((r) => r.reporter_user_id === reporter.userId)!;
    expect(report).toMatchObject({ status: 'pending', target_id: target.userId, reason_code: 7, message_ids: [mid] });
    const reportId = String(report.report_id);

    const detail = expectOk<{ messages: Array<Record<string, unknown>>; history: unknown[] }>(
      await sessions.viewer.get('/app/admin/reports/detail', { report_id: reportId }),
    );
    expect(detail.messages).toEqual([
      expect.objectContaining({
        mid,
        sender_id: target.userId,
        content: { text: 'abusive text' },
        status: 'normal',
        conversation_id: friendCid(target),
      }),
    ]);
    expect(detail.history).toEqual([]);

    const viewerTry = await sessions.viewer.post('/app/admin/reports/transition', {
      report_id: reportId,
      status: 'reviewed',
    });
    expect(viewerTry.status).toBe(403);
    const reviewed = await sessions.moderator.post('/app/admin/reports/transition', {
      report_id: reportId,
      status: 'reviewed',
      note: 'looked at it',
    });
    expect(expectOk<Record<string, unknown>>(reviewed).status).toBe('reviewed');
    const again = await sessions.moderator.post('/app/admin/reports/transition', {
      report_id: reportId,
      status: 'reviewed',
    });
    expect(again.body).toMatchObject({ code: 1004, msg: 'status: a reviewed report cannot become reviewed' });
    const pendingBack = await sessions.moderator.post('/app/admin/reports/transition', {
      report_id: reportId,
      status: 'pending',
    });
    expect(pendingBack.body.code).toBe(1004);
    expectOk(
      await sessions.moderator.post('/app/admin/reports/transition', {
        report_id: reportId,
        status: 'closed',
        note: 'warned',
      }),
    );
    const closedAgain = await sessions.owner.post('/app/admin/reports/transition', {
      report_id: reportId,
      status: 'closed',
    });
    expect(closedAgain.body).toMatchObject({ code: 1004, msg: 'status: a closed report cannot become closed' });
    const history = expectOk<{ history: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/reports/detail', { report_id: reportId }),
    ).history;
    expect(history.map((h) => [h.action, h.before, h.after])).toEqual([
      ['report.transitioned', { status: 'reviewed' }, { status: 'closed', note: 'warned' }],
      ['report.transitioned', { status: 'pending' }, { status: 'reviewed', note: 'looked at it' }],
    ]);
    // Recalled evidence shows as the reporter sees it: a tombstone.
    expectOk(await api.raw.recall(target, friendCid(reporter), mid));
    const tomb = expectOk<{ messages: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/reports/detail', { report_id: reportId }),
    );
    expect(tomb.messages).toEqual([expect.objectContaining({ mid, status: 'recalled', content: null })]);

    // pending → closed directly is allowed.
    expectOk(
      await t.http
        .post('/app/sdk/reports/user')
        .set('Authorization', `Bearer ${reporter.token}`)
        .send({ request_id: randomUUID(), reason_code: 8, user_id: target.userId }),
    );
    const second = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/reports', { reason: '8', status: 'pending' }),
    ).items.find((r) => r.reporter_user_id === reporter.userId)!;
    expect(second.conversation_id).toBe('');
    expect(
      expectOk<{ messages: unknown }>(
        await sessions.viewer.get('/app/admin/reports/detail', { report_id: String(second.report_id) }),
      ).messages,
    ).toBeNull();
    expectOk(
      await sessions.moderator.post('/app/admin/reports/transition', {
        report_id: String(second.report_id),
        status: 'closed',
      }),
    );
    const closed = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/reports', { status: 'closed', reason: '8' }),
    );
    expect(closed.items.map((r) => r.report_id)).toContain(second.report_id);
  });

  it('pages the reports queue and the audit log with bound cursors', async () => {
    // Fifteen minutes ahead of real time: other suites filing reason-6 reports against the same
    // database stay outside [since, until] (the admin session's idle limit is 30 minutes).
    t.clock.advance(15 * 60_000);
    const since = t.clock.now();
    const reporter = await issueUser(t);
    const targets = await Promise.all(Array.from({ length: 3 }, () => issueUser(t)));
    for (const target of targets)
      expectOk(
        await t.http
          .post('/app/sdk/reports/user')
          .set('Authorization', `Bearer ${reporter.token}`)
          .send({ request_id: randomUUID(), reason_code: 6, user_id: target.userId }),
      );
    const first = expectOk<{ items: unknown[]; next_cursor: string | null; has_more: boolean }>(
      await sessions.viewer.get('/app/admin/reports', {
        reason: '6',
        from: String(since),
        to: String(t.clock.now() + 1),
      }),
    );
    expect(first).toMatchObject({ has_more: false, next_cursor: null });
    expect(first.items).toHaveLength(3);
    const badCursor = await sessions.viewer.get('/app/admin/reports', { reason: '6', cursor: 'abc.def' });
    expect(badCursor.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^cursor/) });
    const limit = await sessions.viewer.get('/app/admin/audit', { limit: '5' });
    expect(limit.body.code).toBe(1004);
  });

  it('groups client errors by error code, platform and build with counts and filters, and shows the scrubbed detail', async () => {
    const user = await issueUser(t);
    const errorCode = `admin.actions.${randomUUID().slice(0, 8)}`;
    const secretish = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl';
    for (let i = 0; i < 3; i++)
      expectOk(
        await t.http
          .post('/app/sdk/client-errors')
          .set('Authorization', `Bearer ${user.token}`)
          .send(
            clientErrorBody(
              { userId: user.userId },
              {
                platform: 'android',
                build_id: 'v9.9.9',
                device_id: 'dev-admin',
                error_code: errorCode,
                message: `failed ${secretish}`,
              },
            ),
          ),
      );
    const page = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/client-errors', {
        platform: 'android',
        build_id: 'v9.9.9',
        error_code: errorCode,
      }),
    );
    expect(page.items).toHaveLength(1);
    const group = page.items[0];
    expect(group).toMatchObject({ platform: 'android', build_id: 'v9.9.9', occurrence_count: 3, user_count: 1 });
    expect(String(group.last_message)).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    const other = expectOk<{ items: Array<Record<string, unknown>> }>(
      await sessions.viewer.get('/app/admin/client-errors', {
        platform: 'ios',
        build_id: 'v9.9.9',
        error_code: errorCode,
      }),
    );
    expect(other.items).toEqual([]);
    const ref = { error_code: errorCode, platform: 'android', build_id: 'v9.9.9' };
    const occurrences = expectOk<{ items: Array<{ merge_key: string; user_id: string; message: string }> }>(
      await sessions.viewer.get('/app/admin/client-errors/occurrences', ref),
    );
    expect(occurrences.items).toHaveLength(1);
    expect(occurrences.items[0].user_id).toBe(user.userId);
    expect(occurrences.items[0].message).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    const detail = expectOk<{ group: Record<string, unknown>; similar_per_hour: Array<{ count: number }> }>(
      await sessions.viewer.get('/app/admin/client-errors/detail', { merge_key: occurrences.items[0].merge_key }),
    );
    expect(detail.group).toMatchObject({ user_id: user.userId, error_code: errorCode, occurrence_count: 3 });
    expect(detail.similar_per_hour).toHaveLength(24);
    expect(detail.similar_per_hour.reduce((sum, b) => sum + b.count, 0)).toBeGreaterThanOrEqual(3);
    const missing = await sessions.viewer.get('/app/admin/client-errors/detail', { merge_key: 'f'.repeat(64) });
    expect(missing.body.code).toBe(1004);
  });

  it('counts users, open reports, messages per day and client errors per hour on the dashboard', async () => {
    const before = expectOk<Record<string, unknown> & { messages_per_day: Array<{ start: number; count: number }> }>(
      await sessions.viewer.get('/app/admin/dashboard'),
    );
    const a = await issueUser(t);
    const b = await issueUser(t);
    await api.befriend(a, b);
    const sentDay = dayOf(t.clock.now());
    await api.send(a, friendCid(b), 'one');
    await api.send(b, friendCid(a), 'two');
    // The dashboard reads the rollup: run the job as its schedule would, once the messages settled
    // (a minute). Another suite's instance on the shared database may hold the job's lease, taken
    // with its own clock held hours or days ahead: free it, as its expiry would, and claim it.
    t.clock.advance(240_000);
    const job = t.app.get(AnalyticsRollupJob);
    const db = t.app.get(DataSource);
    let held = false;
    for (let i = 0; i < 5 && !held; i++) {
      await db.query("UPDATE analytics_jobs SET lease_owner = NULL, lease_until = 0 WHERE name = 'lease'");
      held = (await job.runOnce()).held;
    }
    expect(held).toBe(true);
    const after = expectOk<typeof before & { client_errors_per_hour: unknown[] }>(
      await sessions.viewer.get('/app/admin/dashboard'),
    );
    // Other suites create users in the same database while this one runs (two jest workers), so
    // the total is bounded from below; an exact equality here was flaky on MariaDB in CI.
    expect(Number(after.users)).toBeGreaterThanOrEqual(Number(before.users) + 2);
    expect(after.messages_per_day).toHaveLength(14);
    expect(after.client_errors_per_hour).toHaveLength(24);
    const onSentDay = (series: Array<{ start: number; count: number }>) =>
      series.find((d) => d.start === sentDay)?.count ?? 0;
    expect(onSentDay(after.messages_per_day) - onSentDay(before.messages_per_day)).toBeGreaterThanOrEqual(2);
    expect(typeof after.open_reports).toBe('number');
  });
});
