// Each administrator's console language (issue 25): shown in auth/me and the login reply,
// chosen by the administrator alone, validated against the offered list, audited.
import { TestApp, startTestApp } from '../helpers/test-app';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession, login } from '../helpers/admin-client';

type Me = { admin: { username: string; locale: string; updated_at: number } };

describe('admin console language', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const auditOf = async (session: AdminSession, username: string) =>
    expectOk<{ items: Array<{ action: string; before: unknown; after: unknown; admin: string }> }>(
      await session.get('/app/admin/audit', {
        target_type: 'admin',
        target_id: username,
        action: 'admin.locale_changed',
      }),
    ).items;

  it('starts in English, switches to Simplified Chinese and back, audited, for every role', async () => {
    for (const role of ['viewer', 'moderator', 'owner'] as const) {
      const session = await adminSession(t, role);
      expect(expectOk<Me>(await session.get('/app/admin/auth/me')).admin.locale).toBe('en');

      const changed = expectOk<Me>(await session.post('/app/admin/auth/locale', { locale: 'zh-CN' }));
      expect(changed.admin).toMatchObject({ username: session.username, locale: 'zh-CN' });
      expect(expectOk<Me>(await session.get('/app/admin/auth/me')).admin.locale).toBe('zh-CN');
      // The next sign-in answers in the chosen language's terms too.
      const again = await login(t, session.username);
      expect(again.body.data.admin.locale).toBe('zh-CN');

      expectOk(await session.post('/app/admin/auth/locale', { locale: 'en' }));
      const rows = await auditOf(session, session.username);
      expect(rows.map((r) => [r.admin, r.before, r.after])).toEqual([
        [session.username, { locale: 'zh-CN' }, { locale: 'en' }],
        [session.username, { locale: 'en' }, { locale: 'zh-CN' }],
      ]);
    }
  });

  it('choosing the language in force writes nothing', async () => {
    const session = await adminSession(t, 'viewer');
    const before = expectOk<Me>(await session.get('/app/admin/auth/me')).admin;
    const same = expectOk<Me>(await session.post('/app/admin/auth/locale', { locale: 'en' })).admin;
    expect(same).toEqual(before);
    expect(await auditOf(session, session.username)).toEqual([]);
  });

  it('refuses a language not offered, a missing one and an unknown field, changing nothing', async () => {
    const session = await adminSession(t, 'moderator');
    const cases: Array<[object, string]> = [
      [{ locale: 'fr' }, 'locale: must be one of en, zh-CN'],
      [{ locale: 'zh-cn' }, 'locale: must be one of en, zh-CN'],
      [{ locale: 'zh-CN ' }, 'locale: must be one of en, zh-CN'],
      [{ locale: 1 }, 'locale: must be one of en, zh-CN'],
      [{}, 'locale'],
      [{ locale: 'zh-CN', username: 'someone-else' }, 'username: unknown field'],
    ];
    for (const [body, msg] of cases) {
      const response = await session.post('/app/admin/auth/locale', body);
      expect({ body, status: response.status, code: response.body.code, data: response.body.data }).toEqual({
        body,
        status: 200,
        code: 1004,
        data: null,
      });
      expect(response.body.msg).toContain(msg);
    }
    expect(expectOk<Me>(await session.get('/app/admin/auth/me')).admin.locale).toBe('en');
    expect(await auditOf(session, session.username)).toEqual([]);
  });

  it("changes only the caller's own account", async () => {
    const [owner, viewer] = [await adminSession(t, 'owner'), await adminSession(t, 'viewer')];
    expectOk(await viewer.post('/app/admin/auth/locale', { locale: 'zh-CN' }));
    expect(expectOk<Me>(await owner.get('/app/admin/auth/me')).admin.locale).toBe('en');
    const listed = expectOk<{ items: Array<{ username: string; locale: string }> }>(
      await owner.get('/app/admin/admins'),
    );
    expect(listed.items.find((a) => a.username === viewer.username)?.locale).toBe('zh-CN');
    expect(listed.items.find((a) => a.username === owner.username)?.locale).toBe('en');
  });

  it('answers 401 without a session', async () => {
    const response = await t.http.post('/app/admin/auth/locale').set('X-Admin-CSRF', '1').send({ locale: 'zh-CN' });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 401, code: 1101 });
  });
});
