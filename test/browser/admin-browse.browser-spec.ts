// Browsing in headless Chromium (issue 25): the Users list shows its first page without a search,
// sorts and filters, pages on with "Next page", and exports the filtered list as CSV (downloaded
// through the page's link); a moderator opens a user and disables them for a day with a reason
// (their next SDK call answers 1003 with it), opens a group, mutes one member and removes
// another through the in-page confirmation. A viewer sees no action buttons and no export.
// Screenshots at 390 and 1280 px without sideways scrolling; axe-core on the four pages.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { act, fileReport } from '../admin/report-admin-kit';
import { ADMIN_PASSWORD, adminSession, createAdmin, login, sessionCookie } from '../helpers/admin-client';
import { ApiClient, IssuedUser } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { connect } from '../helpers/realtime';
import { TestApp, issueUser, randomUserId, startTestApp } from '../helpers/test-app';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { answerConfirm, keysShown, setAdminLocale } from './console-pages';
import { CHROMIUM } from './ensure-chromium';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const pngWidth = (path: string): number => readFileSync(path).subarray(0, 24).readUInt32BE(16);

(existsSync(CHROMIUM) ? describe : describe.skip)('browsing users and groups in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let base: string;
  let browser: Browser;
  let moderator: string;
  let viewer: string;
  const P = `bb${randomBytes(3).toString('hex')}`;
  const users: IssuedUser[] = [];
  let owner: IssuedUser;
  let members: IssuedUser[];
  let groupId: string;
  // A user with reports against them in each status, one they filed, client errors and admin
  // actions on them; the group has a report too: the tables the zh-CN and 390 px checks read.
  let subject: IssuedUser;
  const problems: string[] = [];

  beforeAll(async () => {
    database = await isolatedDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ ...database.env, PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    api = new ApiClient(t);
    moderator = await createAdmin(t, 'moderator');
    viewer = await createAdmin(t, 'viewer');
    browser = await launchChromium();
    for (let i = 0; i < 55; i += 1)
      users.push(
        await issueUser(t, { user_id: randomUserId('bb'), nickname: `${P} ${String(54 - i).padStart(2, '0')}` }),
      );
    [owner, ...members] = [await issueUser(t), await issueUser(t), await issueUser(t), await issueUser(t)];
    groupId = await api.createGroup(owner, members, { name: `${P} group` });

    subject = users[7];
    const mod = await adminSession(t, 'moderator');
    const against: string[] = [];
    for (const reporter of [users[8], users[9], users[11]])
      against.push(await fileReport(t, reporter, { user_id: subject.userId }, { reason_code: 2 }));
    expectOk(await mod.post('/app/admin/reports/transition', { report_id: against[1], status: 'reviewed' }));
    expectOk(await act(mod, { report_id: against[2], action: 'close', note: 'handled' }));
    await fileReport(t, subject, { user_id: users[12].userId }, { reason_code: 3 });
    for (const severity of ['fatal', 'normal'])
      expectOk(
        await t.http
          .post('/app/sdk/client-errors')
          .set('Authorization', `Bearer ${subject.token}`)
          .send(
            clientErrorBody(
              { userId: subject.userId },
              {
                severity,
                error_code: `net.${severity}_failure_while_syncing`,
                message: 'ConnectionResetByPeerWhileSynchronisingConversations',
              },
            ),
          ),
      );
    expectOk(
      await mod.post('/app/admin/users/status', {
        user_id: subject.userId,
        disabled: true,
        duration_seconds: 3600,
        reason: 'checking',
      }),
    );
    expectOk(await mod.post('/app/admin/users/status', { user_id: subject.userId, disabled: false }));
    const groupReport = await fileReport(t, members[2], { group_id: groupId }, { reason_code: 2 });
    expectOk(await mod.post('/app/admin/reports/transition', { report_id: groupReport, status: 'reviewed' }));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  async function signedIn(username: string, options: { bypassCSP?: boolean } = {}): Promise<[BrowserContext, Page]> {
    const context = await browser.newContext({
      baseURL: base,
      viewport: VIEWPORTS[1],
      acceptDownloads: true,
      ...options,
    });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => {
      problems.push(`a browser dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto('/admin');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    return [context, page];
  }

  async function shots(page: Page, name: string): Promise<string[]> {
    const wide: string[] = [];
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      const [scroll, client] = (await page.evaluate(
        '[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]',
      )) as [number, number];
      if (scroll > client) wide.push(`${name} at ${viewport.width}: ${scroll} > ${client}`);
      const path = join(SHOTS, `${name}-${viewport.width}.png`);
      await page.screenshot({ path, fullPage: true });
      if (pngWidth(path) !== viewport.width) wide.push(`${name} at ${viewport.width}: shot ${pngWidth(path)} px wide`);
    }
    await page.setViewportSize(VIEWPORTS[1]);
    return wide;
  }

  const rowsOf = (page: Page, caption: RegExp) => page.getByRole('table', { name: caption }).locator('tbody tr');

  it('lists users without a search, sorts, filters, pages on and exports the filtered list', async () => {
    const [context, page] = await signedIn(moderator);
    try {
      await page.goto('/admin#/users');
      await rowsOf(page, /^Users, page 1$/)
        .first()
        .waitFor();
      expect(await rowsOf(page, /^Users, page 1$/).count()).toBe(50);
      const wide = await shots(page, 'users-list');

      const form = page.getByRole('form', { name: 'Find users' });
      await form.getByLabel('User ID, username or start of nickname').fill(P);
      await form.getByLabel('Sort by').selectOption({ label: 'Nickname' });
      await form.getByLabel('Disabled').selectOption({ label: 'Active only' });
      await form.getByRole('button', { name: 'Apply' }).click();
      // Nicknames "<P> 54" … "<P> 00" were made newest last: by name, "<P> 00" (the newest) comes first.
      await page
        .getByRole('table', { name: /^Users, page 1$/ })
        .getByRole('cell', { name: `${P} 00` })
        .waitFor();
      const first = await rowsOf(page, /^Users, page 1$/)
        .first()
        .innerText();
      expect(first).toContain(users[54].userId);
      expect(await rowsOf(page, /^Users, page 1$/).count()).toBe(50);
      await page.getByRole('button', { name: 'Next page' }).click();
      await rowsOf(page, /^Users, page 2$/)
        .first()
        .waitFor();
      expect(await rowsOf(page, /^Users, page 2$/).count()).toBe(5);
      expect(
        await rowsOf(page, /^Users, page 2$/)
          .last()
          .innerText(),
      ).toContain(users[0].userId);
      expect(await page.getByRole('button', { name: 'Next page' }).count()).toBe(0);

      const link = page.getByRole('link', { name: 'Export CSV' });
      expect(await link.getAttribute('href')).toBe(`/app/admin/users/export?q=${P}&sort=name&disabled=false`);
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const csv = readFileSync((await download.path())!, 'utf8');
      expect(csv.charCodeAt(0)).toBe(0xfeff);
      const lines = csv.slice(1).split('\r\n');
      expect(lines[0]).toMatch(/^user_id,username,nickname,/);
      expect(lines).toHaveLength(1 + 55 + 1);
      expect(lines[1]).toContain(users[54].userId);
      wide.push(...(await shots(page, 'users-filtered')));
      expect(wide).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("opens a user's page and disables them for a day with a reason: their next SDK call answers 1003 with it", async () => {
    const [context, page] = await signedIn(moderator);
    const target = users[3];
    try {
      await page.goto('/admin#/users');
      await page
        .getByRole('form', { name: 'Find users' })
        .getByLabel('User ID, username or start of nickname')
        .fill(target.userId);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('link', { name: target.userId }).click();
      await page.getByRole('heading', { level: 2, name: new RegExp(target.userId) }).waitFor();
      expect(page.url()).toContain(`#/users/${target.userId}`);
      for (const section of ['Friends (0)', 'Groups (0)', 'Admin actions on them'])
        await page.getByRole('heading', { level: 3, name: section }).waitFor();
      const wide = await shots(page, 'user-page');
      // The bundled host app runs in tests: the service owns the profile, so the form is there.
      const profile = page.getByRole('form', { name: 'Profile' });
      await profile.getByLabel('Nickname').fill('Renamed in the console');
      await profile.getByRole('button', { name: 'Save profile' }).click();
      expect(await answerConfirm(page, true)).toContain(`${target.userId} will be shown as “Renamed in the console”`);
      await page.getByRole('heading', { level: 2, name: `Renamed in the console (${target.userId})` }).waitFor();
      await page.getByLabel('For how long').selectOption({ label: 'for 1 day' });
      await page.getByLabel('Reason (the user’s app shows it)').fill('Spam in many groups');
      await page.getByRole('button', { name: 'Disable user' }).click();
      const asked = await answerConfirm(page, true);
      for (const words of [target.userId, 'for 1 day', '“Spam in many groups”']) expect(asked).toContain(words);
      await page.getByRole('button', { name: 'Enable user' }).waitFor();
      await page.getByText(/^disabled until /).waitFor();
      await page.getByRole('cell', { name: 'user.disabled' }).waitFor();
      const refused = await t.http.post('/app/sdk/sync').set('Authorization', `Bearer ${target.token}`).send({});
      expect(refused.body).toMatchObject({ code: 1003, msg: 'Spam in many groups' });
      wide.push(...(await shots(page, 'user-disabled')));
      expect(wide).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("lists the user's live connections with what each device named", async () => {
    const target = await issueUser(t);
    const device = { platform: 'android', device_id: `${P}-phone`, app_version: '7.0.1' };
    const socket = await connect(base, { auth: { token: target.token, device } });
    const [context, page] = await signedIn(viewer);
    try {
      await page.goto(`/admin#/users/${target.userId}`);
      await page.getByRole('heading', { level: 3, name: 'Connected devices (1)' }).waitFor();
      const row = page
        .getByRole('table', { name: /^Live connections on every instance that answered/ })
        .getByRole('row')
        .filter({ hasText: device.device_id });
      await row.waitFor();
      const cells = await row.getByRole('cell').allInnerTexts();
      expect(cells).toHaveLength(6);
      expect([cells[0], cells[1], cells[2]]).toEqual(['android', device.device_id, '7.0.1']);
      expect(cells[4]).toMatch(/:[0-9]+$/);
      expect(cells[5]).toMatch(/127\.0\.0\.1$/);
    } finally {
      socket.close();
      await context.close();
    }
  });

  it('loads an avatar from another host only when asked: opening the page tells that host nothing', async () => {
    const avatarUrl = `https://avatars.example.invalid/${P}.png`;
    const target = await issueUser(t, { avatar: avatarUrl });
    const [context, page] = await signedIn(viewer);
    const asked: string[] = [];
    // The host stands in for the avatar's (a 1×1 PNG), recording each request it gets.
    await page.route('https://avatars.example.invalid/**', (route) => {
      asked.push(route.request().url());
      return route.fulfill({ contentType: 'image/png', body: Buffer.from(PIXEL, 'base64') });
    });
    try {
      await page.goto(`/admin#/users/${target.userId}`);
      await page.getByRole('heading', { level: 3, name: 'Admin actions on them' }).waitFor();
      const load = page.getByRole('button', { name: 'Load the avatar from avatars.example.invalid' });
      await load.waitFor();
      expect(await page.locator('img.avatar').count()).toBe(0);
      expect(asked).toEqual([]);
      await load.click();
      await page.locator('img.avatar').waitFor({ state: 'attached' });
      expect(await page.locator('img.avatar').getAttribute('src')).toBe(avatarUrl);
      expect(await page.locator('img.avatar').getAttribute('referrerpolicy')).toBe('no-referrer');
      await page.waitForFunction(
        "document.querySelector('img.avatar')?.complete && document.querySelector('img.avatar').naturalWidth === 1",
      );
      expect(asked).toEqual([avatarUrl]);
    } finally {
      await context.close();
    }
  });

  it("opens a group's page, mutes one member and removes another through the in-page confirmation", async () => {
    const [context, page] = await signedIn(moderator);
    const [muted, removed] = members;
    try {
      await page.goto('/admin#/groups');
      await page.getByRole('form', { name: 'Find groups' }).getByLabel('Group ID or start of name').fill(P);
      await page
        .getByRole('form', { name: 'Find groups' })
        .getByLabel('Sort by')
        .selectOption({ label: 'Last active' });
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('columnheader', { name: 'Last message' }).waitFor();
      await page.getByRole('row').filter({ hasText: groupId }).waitFor();
      expect(await shots(page, 'groups-by-activity')).toEqual([]);
      await page.getByRole('link', { name: groupId }).click();
      await page.getByRole('heading', { level: 2, name: new RegExp(groupId) }).waitFor();
      const membersTable = page.getByRole('table', { name: /^Current members with their roles, page 1$/ });
      await membersTable.getByRole('row').filter({ hasText: muted.userId }).waitFor();
      const wide = await shots(page, 'group-page');

      await page.getByLabel(`Mute ${muted.userId} for`).selectOption({ label: '1 hour' });
      await page
        .getByRole('form', { name: `Mute ${muted.userId}` })
        .getByRole('button', { name: 'Mute' })
        .click();
      const askedMute = await answerConfirm(page, true);
      expect(askedMute).toContain(`${muted.userId} will not be able to send in group ${groupId} for 1 hour`);
      await page.getByRole('button', { name: `Unmute ${muted.userId}` }).waitFor();

      // Make owner says what the API does to the old owner (an admin), and Cancel changes nothing.
      await page.getByRole('button', { name: `Make owner: ${members[2].userId}` }).click();
      expect(await answerConfirm(page, false)).toContain('the current owner becomes an admin');

      await page.getByRole('button', { name: `Remove ${removed.userId}` }).click();
      expect(await answerConfirm(page, true)).toContain(`${removed.userId} will be removed from group ${groupId}`);
      await page
        .getByRole('status')
        .filter({ hasText: `${removed.userId} is removed from ${groupId}` })
        .waitFor();
      await membersTable.getByRole('row').filter({ hasText: muted.userId }).waitFor();
      expect(await membersTable.getByRole('row').filter({ hasText: removed.userId }).count()).toBe(0);

      const cookie = sessionCookie(await login(t, viewer));
      const list = (await t.http.get('/app/admin/groups/members').set('Cookie', cookie).query({ group_id: groupId }))
        .body.data as { items: Array<{ user_id: string; muted_until: number }> };
      expect(list.items.map((m) => m.user_id)).not.toContain(removed.userId);
      expect(list.items.find((m) => m.user_id === muted.userId)!.muted_until).toBeGreaterThan(Date.now());
      wide.push(...(await shots(page, 'group-after-actions')));
      expect(wide).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a viewer no action buttons and no export', async () => {
    const [context, page] = await signedIn(viewer);
    try {
      await page.goto('/admin#/users');
      await rowsOf(page, /^Users, page 1$/)
        .first()
        .waitFor();
      expect(await page.getByRole('link', { name: 'Export CSV' }).count()).toBe(0);
      await page.goto(`/admin#/users/${users[10].userId}`);
      await page.getByRole('heading', { level: 2, name: new RegExp(users[10].userId) }).waitFor();
      for (const name of ['Disable user', 'Enable user', 'Revoke tokens'])
        expect(await page.getByRole('button', { name }).count()).toBe(0);
      await page.goto(`/admin#/groups/${groupId}`);
      await page.getByRole('heading', { level: 2, name: new RegExp(groupId) }).waitFor();
      await page
        .getByRole('table', { name: /^Current members/ })
        .locator('tbody tr')
        .first()
        .waitFor();
      for (const name of [/^Remove /, /^Make /, /^Mute$/, 'Disable group', 'Dismiss group'])
        expect(await page.getByRole('button', { name }).count()).toBe(0);
      expect(await shots(page, 'group-viewer')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('passes axe-core on the four pages with no serious or critical violations', async () => {
    const [context, page] = await signedIn(moderator, { bypassCSP: true });
    try {
      const serious: string[] = [];
      for (const hash of ['#/users', `#/users/${users[5].userId}`, '#/groups', `#/groups/${groupId}`]) {
        await page.goto(`/admin${hash}`);
        await page.locator('table tbody tr').first().waitFor();
        await page.waitForLoadState('networkidle');
        await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
        const violations = (await page.evaluate('axe.run(document).then((result) => result.violations)')) as Array<{
          id: string;
          impact: string;
        }>;
        serious.push(
          ...violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${hash}: ${v.id}`),
        );
      }
      expect(serious).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  /** Signs in whatever the account's language (the nav is named in it), at the phone's width. */
  async function signedInAnyLanguage(username: string): Promise<[BrowserContext, Page]> {
    const context = await browser.newContext({ baseURL: base, viewport: VIEWPORTS[0], bypassCSP: true });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto('/admin');
    await page.locator('input[name=username]').fill(username);
    await page.locator('input[name=password]').fill(ADMIN_PASSWORD);
    await page.locator('form button[type=submit]').click();
    await page.locator('#nav a').first().waitFor({ state: 'attached' });
    return [context, page];
  }

  /** axe-core's serious and critical violations on the page as it is now (axe is injected: CSP bypassed). */
  async function seriousViolations(page: Page, where: string): Promise<string[]> {
    await page.waitForLoadState('networkidle');
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    const violations = (await page.evaluate('axe.run(document).then((result) => result.violations)')) as Array<{
      id: string;
      impact: string;
    }>;
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${where}: ${v.id}`);
  }

  /** Each table box wider than its content allows must be a named region keyboard users can focus. */
  async function unfocusableScrollers(page: Page): Promise<{ scrolling: number; bad: string[] }> {
    return (await page.evaluate(`(() => {
      const boxes = [...document.querySelectorAll('.table-wrap')].filter((b) => b.scrollWidth > b.clientWidth);
      return {
        scrolling: boxes.length,
        bad: boxes
          .filter((b) => b.getAttribute('tabindex') !== '0' || b.getAttribute('role') !== 'region' || !b.getAttribute('aria-label'))
          .map((b) => b.getAttribute('aria-label') || b.querySelector('caption')?.textContent || '?'),
      };
    })()`)) as { scrolling: number; bad: string[] };
  }

  it('passes axe-core at 390 px on a user page with reports, client errors and admin actions: its wide tables are focusable', async () => {
    const [context, page] = await signedInAnyLanguage(moderator);
    try {
      await page.goto(`/admin#/users/${subject.userId}`);
      await page.getByRole('heading', { level: 3, name: /^Client errors/ }).waitFor();
      await page.getByRole('cell', { name: 'user.enabled' }).waitFor();
      const scrollers = await unfocusableScrollers(page);
      expect(scrollers.scrolling).toBeGreaterThan(0);
      expect(scrollers.bad).toEqual([]);
      // A scrolling box takes focus, with the console's visible ring, and is named after its caption.
      const box = page.locator('.table-wrap[tabindex="0"]').first();
      // Reached by the keyboard (Tab away and back), as a keyboard user reaches it.
      await box.focus();
      await page.keyboard.press('Tab');
      await page.keyboard.press('Shift+Tab');
      expect(await page.evaluate('document.activeElement.className')).toBe('table-wrap');
      expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
      expect(await box.getAttribute('aria-label')).toBe(
        `${await box.locator('caption').innerText()} (scrolls sideways)`,
      );
      expect(await seriousViolations(page, `#/users/${subject.userId} at 390`)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a zh-CN administrator report statuses, reasons and error severities in Chinese on the user and group pages', async () => {
    const chinese = await createAdmin(t, 'moderator');
    await setAdminLocale(t, base, chinese, 'zh-CN');
    const [context, page] = await signedInAnyLanguage(chinese);
    const english = /\b(pending|reviewed|closed|normal|serious|fatal|harassment|fraud|inappropriate content)\b/;
    try {
      await page.goto(`/admin#/users/${subject.userId}`);
      const against = page.getByRole('table', { name: '针对该用户的最近 5 条举报' });
      await against.locator('tbody tr').nth(2).waitFor();
      const againstText = await against.innerText();
      for (const words of ['待处理', '已审核', '已关闭', '不当内容']) expect(againstText).toContain(words);
      const filed = await page.getByRole('table', { name: '该用户提交的最近 5 条举报' }).innerText();
      for (const words of ['待处理', '欺诈']) expect(filed).toContain(words);
      const errors = await page
        .locator('section.detail')
        .filter({ hasText: 'net.fatal_failure_while_syncing' })
        .innerText();
      for (const words of ['致命', '一般']) expect(errors).toContain(words);
      const userMain = await page.locator('main').innerText();
      // Identifiers (error codes, action names) stay as they are; status, severity and reason words do not.
      expect(userMain.replace(/net\.\w+|[a-z]+\.[a-z_]+/g, '').match(english)).toBeNull();
      expect(keysShown(userMain)).toEqual([]);

      await page.goto(`/admin#/groups/${groupId}`);
      const groupReports = page.getByRole('table', { name: '针对该群组的最近 5 条举报' });
      await groupReports.locator('tbody tr').first().waitFor();
      const groupText = await groupReports.innerText();
      for (const words of ['已审核', '不当内容', members[2].userId]) expect(groupText).toContain(words);
      expect(groupText.match(english)).toBeNull();
      expect(groupText).not.toContain(', ');
      expect(await seriousViolations(page, `#/groups/${groupId} zh-CN at 390`)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
