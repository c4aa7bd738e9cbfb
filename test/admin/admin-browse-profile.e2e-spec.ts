// Editing the host-owned profile fields from the console (issue 25): only where the bundled host
// app runs (HOST_APP_ENABLED, this service then owns the profiles); elsewhere refused with 1202.
import { DataSource } from 'typeorm';
import { ApiClient } from '../helpers/api-client';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';

describe('admin profile editing (issue 25)', () => {
  let t: TestApp;
  let api: ApiClient;
  let moderator: AdminSession;
  let viewer: AdminSession;
  beforeAll(async () => {
    t = await startTestApp({ HOST_APP_ENABLED: 'true' });
    api = new ApiClient(t);
    moderator = await adminSession(t, 'moderator');
    viewer = await adminSession(t, 'viewer');
  });
  afterAll(() => t.close());

  it('edits nickname and avatar where the bundled host app runs: the user and friends hear it, audited', async () => {
    const [u, friend] = [await issueUser(t), await issueUser(t)];
    await api.befriend(u, friend);
    expect(
      expectOk<{ profile_editable: boolean }>(await viewer.get('/app/admin/users/overview', { user_id: u.userId }))
        .profile_editable,
    ).toBe(true);
    const edited = expectOk<{ nickname: string; avatar: string }>(
      await moderator.post('/app/admin/users/profile', {
        user_id: u.userId,
        nickname: 'Renamed by ops',
        avatar: 'https://cdn.example.com/a.png',
      }),
    );
    expect(edited).toMatchObject({ nickname: 'Renamed by ops', avatar: 'https://cdn.example.com/a.png' });
    expect(await api.me(u)).toMatchObject({ nickname: 'Renamed by ops' });
    const heard = (await t.app
      .get(DataSource)
      .query(
        "SELECT r.user_id FROM outbox_events e JOIN outbox_recipients r ON r.event_row_id = e.id WHERE e.type = 'user.profile_updated' AND r.user_id IN (?, ?)",
        [u.id, friend.id],
      )) as Array<{ user_id: string | number }>;
    expect(new Set(heard.map((r) => String(r.user_id)))).toEqual(new Set([u.id, friend.id]));
    const audit = expectOk<{ items: Array<{ action: string; before: unknown; after: unknown }> }>(
      await viewer.get('/app/admin/audit', { target_type: 'user', target_id: u.userId }),
    ).items;
    expect(audit[0]).toMatchObject({
      action: 'user.profile_edited',
      after: { nickname: 'Renamed by ops', avatar: 'https://cdn.example.com/a.png' },
    });
    // The same values again change nothing and write no second row.
    expectOk(await moderator.post('/app/admin/users/profile', { user_id: u.userId, nickname: 'Renamed by ops' }));
    const again = expectOk<{ items: unknown[] }>(
      await viewer.get('/app/admin/audit', { target_type: 'user', target_id: u.userId, action: 'user.profile_edited' }),
    ).items;
    expect(again).toHaveLength(1);
  });

  it('refuses bad input naming the field, a viewer, and an unknown user, changing nothing', async () => {
    const u = await issueUser(t, { nickname: 'Original' });
    const cases: Array<[object, string]> = [
      [{ user_id: u.userId }, 'body'],
      [{ user_id: u.userId, nickname: null }, 'nickname'],
      [{ user_id: u.userId, nickname: '' }, 'nickname'],
      [{ user_id: u.userId, nickname: ' padded' }, 'nickname'],
      [{ user_id: u.userId, avatar: 'javascript:alert(1)' }, 'avatar'],
      [{ user_id: u.userId, nickname: 'x', signature: 'no' }, 'signature'],
      [{ user_id: null, nickname: 'x' }, 'user_id'],
    ];
    for (const [body, field] of cases) {
      const response = await moderator.post('/app/admin/users/profile', body);
      expect({ code: response.body.code, field: String(response.body.msg).split(/[ :]/)[0] }).toEqual({
        code: 1004,
        field,
      });
    }
    const refused = await viewer.post('/app/admin/users/profile', { user_id: u.userId, nickname: 'Viewer' });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 1004 });
    const missing = await moderator.post('/app/admin/users/profile', { user_id: 'nobody-here', nickname: 'x' });
    expect(missing.body.code).toBe(1204);
    expect(await api.me(u)).toMatchObject({ nickname: 'Original' });
  });

  it('refuses with 1202 where the host owns the profiles (no bundled host app)', async () => {
    const hosted = await startTestApp({ HOST_APP_ENABLED: 'false' });
    try {
      const u = await issueUser(hosted, { nickname: 'Host owned' });
      const session = await adminSession(hosted, 'moderator');
      const response = await session.post('/app/admin/users/profile', { user_id: u.userId, nickname: 'Changed' });
      expect(response.body.code).toBe(1202);
      expect(response.body.msg).toMatch(/^profile: /);
      expect(
        expectOk<{ profile_editable: boolean }>(await session.get('/app/admin/users/overview', { user_id: u.userId }))
          .profile_editable,
      ).toBe(false);
      expect(await new ApiClient(hosted).me(u)).toMatchObject({ nickname: 'Host owned' });
    } finally {
      await hosted.close();
    }
  });
});
