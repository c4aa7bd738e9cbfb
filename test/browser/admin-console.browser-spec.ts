// The admin console in headless Chromium (issue 14): log in, triage a report to closed, disable
// a user and see 1003 on their next SDK call, close a capability and see 1202, a screenshot of
// every page, and an axe-core accessibility check of every page with no serious violations.
// Also the layout (no sideways scrolling at 1280 and 390 px, a collapsing menu, no focus ring
// on <main>), the two-factor QR code, confirmations of the consequential switches and role
// changes, Save offered only for a changed setting, status messages cleared on a page change, an
// owner's password reset of another administrator, and report reasons by name.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { totpCodeAt } from '../../src/admin/admin-totp';
import { toString as qrSvg } from 'qrcode';
import { ADMIN_PASSWORD, CSRF, createAdmin, login } from '../helpers/admin-client';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';
import { answerConfirm, navPages, setAdminLocale } from './console-pages';

/** Polls from the test side (the page's policy forbids the eval that waitForFunction needs). */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The sections an owner's navigation offers (read from the page: a new page is covered at once). */
let PAGES: string[] = [];

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: string;
  /** Console errors and CSP violations: the pages must produce none. */
  const problems: string[] = [];

  beforeAll(async () => {
    database = await isolatedDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // The page's own origin is the service's: the console's writes pass the Origin check.
    t = await startTestApp({ ...database.env, PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    owner = await createAdmin(t, 'owner');
    browser = await launchChromium();
    context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      // The 401s are the page asking for a session before login and the wrong password on purpose.
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    // Confirmations are asked in the page (dom.js confirmAction), never by the browser.
    page.on('dialog', (dialog) => {
      problems.push(`a browser dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
  });
  // A test that fails half-way must not leave the SDK or a capability off for the next ones.
  afterEach(async () => {
    const session = (await context.cookies(`${base}/app/admin/`)).find((c) => c.name === 'ADMIN_SID');
    if (!session) return;
    const as = `ADMIN_SID=${session.value}`;
    const { overridden } = (await t.http.get('/app/admin/settings').set('Cookie', as)).body.data as {
      overridden: string[];
    };
    const keys = ['sdk_enabled', 'capabilities'].filter((key) => overridden.includes(key));
    if (keys.length)
      await t.http
        .post('/app/admin/settings/reset')
        .set('Cookie', as)
        .set(...CSRF)
        .set('Origin', base)
        .send({ keys });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  const sdk = (token: string) => ({
    post: (path: string, body: object) => t.http.post(path).set('Authorization', `Bearer ${token}`).send(body),
  });

  async function goTo(name: string): Promise<void> {
    // The same hash again is no navigation: reload, so the page shows what changed since.
    if (page.url().endsWith(`#/${name}`)) await page.reload();
    else await page.goto(`/admin#/${name}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
  }

  it('serves the console with a strict content security policy', async () => {
    const response = await t.http.get('/admin');
    expect(response.status).toBe(200);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect((await t.http.get('/admin/assets/../../package.json')).status).toBe(404);
    expect((await t.http.get('/admin/assets/nothing.js')).body).toMatchObject({ code: 1004, data: null });
  });

  it('refuses a wrong password in the page, then logs in', async () => {
    await page.goto('/admin');
    await page.getByLabel('Username').fill(owner);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /incorrect|wrong|invalid/i })
      .waitFor();
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    PAGES = await navPages(page);
    expect(PAGES).toEqual(expect.arrayContaining(['dashboard', 'settings', 'webhooks', 'push', 'admins', 'account']));
    await page.locator('canvas').first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'dashboard.png'), fullPage: true });
  });

  it('triages a report from pending through reviewed to closed', async () => {
    const [reporter, target] = [await issueUser(t), await issueUser(t)];
    const filed = await sdk(reporter.token).post('/app/sdk/reports/user', {
      request_id: randomUUID(),
      reason_code: 3,
      user_id: target.userId,
      description: 'spam in every chat',
    });
    expect(filed.body.code).toBe(0);
    const { body } = await t.http
      .get('/app/admin/reports')
      .set('Cookie', await cookie())
      .query({ status: 'pending' });
    const reportId = (body.data.items as Array<{ report_id: string; target_id: string }>).find(
      (r) => r.target_id === target.userId,
    )!.report_id;

    await goTo('reports');
    // Each report has its own page (#/reports/<id>): marked reviewed, then closed with a note.
    await page.getByRole('link', { name: `Report ${reportId}`, exact: true }).click();
    await page.getByRole('button', { name: 'Mark reviewed' }).click();
    expect(await answerConfirm(page, true)).toContain(reportId);
    await page.getByRole('heading', { name: `Report ${reportId} reviewed`, exact: true }).waitFor();
    await page.getByLabel('Note').fill('moved to closed in the browser');
    await page.getByRole('button', { name: 'Close report…' }).click();
    expect(await answerConfirm(page, true)).toContain('moved to closed in the browser');
    await page.getByRole('heading', { name: `Report ${reportId} closed` }).waitFor();
    await page.getByRole('cell', { name: 'moved to closed in the browser' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'report-closed.png'), fullPage: true });
    const detail = await t.http
      .get('/app/admin/reports/detail')
      .set('Cookie', await cookie())
      .query({ report_id: reportId });
    expect(detail.body.data.report.status).toBe('closed');
  });

  it('disables a user: their next SDK call answers 1003', async () => {
    const user = await issueUser(t);
    expect((await sdk(user.token).post('/app/sdk/sync', {})).body.code).toBe(0);
    await goTo('users');
    await page.getByLabel('User ID, username or start of nickname').fill(user.userId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: user.userId }).click();
    await page.getByRole('button', { name: 'Disable user' }).click();
    expect(await answerConfirm(page, true)).toContain(user.userId);
    await page.getByRole('button', { name: 'Enable user' }).waitFor();
    // The list says so too once back on it.
    await goTo('users');
    await page.getByLabel('User ID, username or start of nickname').fill(user.userId);
    await page.getByRole('button', { name: 'Apply' }).click();
    const row = page
      .getByRole('region', { name: 'Users', exact: true })
      .getByRole('row')
      .filter({ hasText: user.userId });
    await row.getByRole('cell', { name: 'disabled', exact: true }).waitFor({ timeout: 10_000 });
    await page.screenshot({ path: join(SHOTS, 'user-disabled.png'), fullPage: true });
    expect((await sdk(user.token).post('/app/sdk/sync', {})).body).toMatchObject({ code: 1003, data: null });
  });

  it('closes a capability in Settings: its endpoints answer 1202', async () => {
    const [x, y] = [await issueUser(t), await issueUser(t)];
    const request = () =>
      sdk(x.token).post('/app/sdk/friends/requests', {
        user_id: y.userId,
        request_id: `fr-${randomBytes(6).toString('hex')}`,
      });
    expect((await request()).body.code).toBe(0);
    await goTo('settings');
    await page.getByLabel('friends open').uncheck();
    await page.getByRole('button', { name: 'Save capabilities' }).click();
    expect(await answerConfirm(page, true)).toContain('friends: open → closed');
    await page.getByRole('status').filter({ hasText: 'Capabilities: saved' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'capability-closed.png'), fullPage: true });
    expect((await request()).body).toMatchObject({ code: 1202, data: null });
    await page.getByRole('button', { name: 'Reset capabilities' }).click();
    await page.getByRole('status').filter({ hasText: 'Capabilities reset: saved' }).waitFor();
    expect((await request()).body.code).not.toBe(1202);
  });

  it('asks before switching the SDK off: cancelling changes nothing', async () => {
    const settings = async () =>
      (await t.http.get('/app/admin/settings').set('Cookie', await cookie())).body.data as { sdk_enabled: boolean };
    await goTo('settings');
    await page.getByLabel(/SDK enabled/).uncheck();
    await page.getByRole('button', { name: 'Save sdk' }).click();
    expect(await answerConfirm(page, false)).toMatch(/SDK: on → off/);
    expect((await settings()).sdk_enabled).toBe(true);
    await page.getByRole('button', { name: 'Save sdk' }).click();
    await answerConfirm(page, true);
    await page.getByRole('status').filter({ hasText: 'SDK: saved' }).waitFor();
    expect((await settings()).sdk_enabled).toBe(false);
    await page.getByRole('button', { name: 'Reset sdk' }).click();
    await page.getByRole('status').filter({ hasText: 'SDK reset: saved' }).waitFor();
    expect((await settings()).sdk_enabled).toBe(true);
  });

  it('offers Save only once a setting differs from the value in force', async () => {
    await goTo('settings');
    const save = page.getByRole('button', { name: 'Save recall window' });
    const recall = page.getByLabel('Seconds a sender may recall a message');
    const shown = await recall.inputValue();
    expect(await save.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Save sdk' }).isDisabled()).toBe(true);
    await recall.fill(String(Number(shown) + 1));
    expect(await save.isEnabled()).toBe(true);
    await recall.fill(shown);
    expect(await save.isDisabled()).toBe(true);
    await page.getByLabel(/SDK enabled/).uncheck();
    expect(await page.getByRole('button', { name: 'Save sdk' }).isEnabled()).toBe(true);
    await page.getByLabel(/SDK enabled/).check();
    expect(await page.getByRole('button', { name: 'Save sdk' }).isDisabled()).toBe(true);
  });

  it('clears a status message when another page is chosen', async () => {
    await goTo('settings');
    await page.getByLabel(/Rules as JSON/).fill('[not json');
    await page.getByRole('button', { name: 'Save push rules' }).click();
    const status = page.getByRole('status');
    await status.filter({ hasText: 'push_rules: the text is not valid JSON' }).waitFor();
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    expect((await status.innerText()).trim()).toBe('');
  });

  it('asks before closing a capability: cancelling changes nothing', async () => {
    await goTo('settings');
    await page.getByLabel('groups open').uncheck();
    await page.getByRole('button', { name: 'Save capabilities' }).click();
    expect(await answerConfirm(page, false)).toMatch(/groups/);
    const { body } = await t.http.get('/app/admin/settings').set('Cookie', await cookie());
    expect(body.data.capabilities.groups).toBe(true);
  });

  it('asks before disabling an administrator: cancelling changes nothing', async () => {
    const moderator = await createAdmin(t, 'moderator');
    const disabled = async () => {
      const { body } = await t.http.get('/app/admin/admins').set('Cookie', await cookie());
      return (body.data.items as Array<{ username: string; disabled: boolean }>).find((a) => a.username === moderator)!
        .disabled;
    };
    await goTo('admins');
    await page.getByRole('button', { name: `Disable ${moderator}` }).click();
    expect(await answerConfirm(page, false)).toContain(moderator);
    expect(await disabled()).toBe(false);
    await page.getByRole('button', { name: `Disable ${moderator}` }).click();
    await answerConfirm(page, true);
    await page.getByRole('button', { name: `Enable ${moderator}` }).waitFor();
    expect(await disabled()).toBe(true);
  });

  it("asks before lowering another administrator's role or touching an owner: cancelling sends nothing", async () => {
    const [owner2, viewer] = [await createAdmin(t, 'owner'), await createAdmin(t, 'viewer')];
    const roleOf = async (username: string) => {
      const { body } = await t.http.get('/app/admin/admins').set('Cookie', await cookie());
      return (body.data.items as Array<{ username: string; role: string }>).find((a) => a.username === username)!.role;
    };
    const updates: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().endsWith('/app/admin/admins/update')) updates.push(request.url());
    };
    page.on('request', onRequest);
    try {
      await goTo('admins');
      await page.getByLabel(`Role of ${owner2}`).selectOption('viewer');
      await page.getByRole('button', { name: `Set role of ${owner2}` }).click();
      const asked = await answerConfirm(page, false);
      expect(asked).toContain(owner2);
      expect(asked).toContain('owner → viewer');
      expect(updates).toEqual([]);
      expect(await roleOf(owner2)).toBe('owner');
      await page.getByRole('button', { name: `Set role of ${owner2}` }).click();
      await answerConfirm(page, true);
      await page
        .getByRole('status')
        .filter({ hasText: `Role of ${owner2}: done.` })
        .waitFor();
      expect(await roleOf(owner2)).toBe('viewer');
      // Raising a viewer to moderator takes nothing away: it does not ask.
      await page.getByLabel(`Role of ${viewer}`).selectOption('moderator');
      await page.getByRole('button', { name: `Set role of ${viewer}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Role of ${viewer}: done.` })
        .waitFor();
      expect(await roleOf(viewer)).toBe('moderator');
      expect(await page.locator('dialog').count()).toBe(0);
    } finally {
      page.off('request', onRequest);
    }
  });

  it("resets another administrator's password as owner (confirmed, audited): the new one signs in", async () => {
    const moderator = await createAdmin(t, 'moderator');
    const fresh = `fresh password ${randomBytes(4).toString('hex')}`;
    await goTo('admins');
    const form = page.getByRole('form', { name: 'Reset a password' });
    await form.getByLabel('Administrator').selectOption(moderator);
    await form.getByLabel(/New password/).fill(fresh);
    await form.getByRole('button', { name: 'Reset password' }).click();
    expect(await answerConfirm(page, false)).toContain(moderator);
    expect((await login(t, moderator, fresh)).body.code).toBe(1102);
    await form.getByRole('button', { name: 'Reset password' }).click();
    await answerConfirm(page, true);
    await page
      .getByRole('status')
      .filter({ hasText: `Password of ${moderator}: done.` })
      .waitFor();
    expect((await login(t, moderator, fresh)).body.code).toBe(0);
    expect((await login(t, moderator, ADMIN_PASSWORD)).body.code).toBe(1102);
    const audit = await t.http
      .get('/app/admin/audit')
      .set('Cookie', await cookie())
      .query({ action: 'admin.updated', target_id: moderator });
    expect(audit.body.data.items[0]).toMatchObject({ admin: owner, after: { password_reset: true } });
    expect(JSON.stringify(audit.body)).not.toContain(fresh);
  });

  it('shows report reasons by name and filters by name', async () => {
    const [reporter, target] = [await issueUser(t), await issueUser(t)];
    const file = async (reason_code: number) =>
      expect(
        (
          await sdk(reporter.token).post('/app/sdk/reports/user', {
            request_id: randomUUID(),
            reason_code,
            user_id: target.userId,
          })
        ).body.code,
      ).toBe(0);
    await file(5);
    await file(1);
    await goTo('reports');
    const rows = page.getByRole('region', { name: 'Reports', exact: true }).getByRole('row').filter({
      hasText: target.userId,
    });
    await rows.first().waitFor();
    const reasons = async () => (await rows.allInnerTexts()).map((text) => text.split('\t')[3]?.trim()).sort();
    expect(await reasons()).toEqual(['harassment', 'impersonation']);
    const filters = page.getByRole('form', { name: 'Filter reports' });
    await filters.getByLabel('Reason').selectOption({ label: 'impersonation' });
    await filters.getByRole('button', { name: 'Apply' }).click();
    await until(async () => (await rows.count()) === 1, 'the filtered list');
    expect(await reasons()).toEqual(['impersonation']);
    await page.screenshot({ path: join(SHOTS, 'reports-by-reason.png'), fullPage: true });
  });

  it('fits the audit log in a 1280 px viewport, however long its JSON and trace IDs', async () => {
    // A long settings change puts long unbroken JSON into the Before/After cells.
    const words = Array.from({ length: 40 }, (_, i) => `unbrokenkeyword${i}${randomBytes(6).toString('hex')}`);
    const update = await t.http
      .post('/app/admin/settings/update')
      .set('Cookie', await cookie())
      .set(...CSRF)
      .set('Origin', base)
      .send({ blocked_keywords: words });
    expect(update.body.code).toBe(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    try {
      await goTo('audit');
      await page
        .getByRole('cell', { name: /unbrokenkeyword0/ })
        .first()
        .waitFor();
      // As expressions: the test's compiler has no DOM types.
      const widths = (await page.evaluate(`({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        table: document.querySelector('main table').getBoundingClientRect().right,
        main: document.getElementById('main').getBoundingClientRect().right,
      })`)) as { scroll: number; client: number; table: number; main: number };
      await page.screenshot({ path: join(SHOTS, 'audit-1280.png'), fullPage: true });
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      // The table itself fits (its cells wrap), rather than scrolling inside a box.
      expect(widths.table).toBeLessThanOrEqual(widths.main);
    } finally {
      await t.http
        .post('/app/admin/settings/reset')
        .set('Cookie', await cookie())
        .set(...CSRF)
        .set('Origin', base)
        .send({ keys: ['blocked_keywords'] });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('at 390 px: no page scrolls sideways and the sections sit behind a menu button', async () => {
    const phone = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const tab = await phone.newPage();
      await tab.goto('/admin#/dashboard');
      await tab.getByRole('heading', { name: 'Dashboard' }).waitFor();
      const nav = tab.getByRole('navigation', { name: 'Console sections' });
      const menu = tab.getByRole('button', { name: 'Menu' });
      await menu.waitFor({ timeout: 10_000 });
      expect(await nav.isVisible()).toBe(false);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await nav.getByRole('link', { name: 'Audit log' }).click();
      await tab.getByRole('heading', { name: 'Audit log' }).waitFor();
      expect(await nav.isVisible()).toBe(false);
      const overflowing: string[] = [];
      for (const name of PAGES) {
        await tab.goto(`/admin#/${name}`);
        await tab.getByRole('heading', { level: 1 }).waitFor();
        await tab.waitForLoadState('networkidle');
        const [scroll, client] = (await tab.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        if (scroll > client) overflowing.push(`${name}: ${scroll} > ${client}`);
        await tab.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true });
      }
      expect(overflowing).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('moves focus to <main> on load without drawing a focus ring around it', async () => {
    // A new document: focus-visible depends on how the page was used before.
    const tab = await context.newPage();
    try {
      await tab.goto('/admin#/dashboard');
      await tab.getByRole('heading', { name: 'Dashboard' }).waitFor();
      await until(async () => (await tab.evaluate('document.activeElement?.id')) === 'main', 'focus on <main>');
      const outline = (await tab.evaluate(
        "(({ outlineStyle, outlineWidth }) => ({ style: outlineStyle, width: outlineWidth }))(getComputedStyle(document.getElementById('main')))",
      )) as { style: string; width: string };
      expect(outline.style === 'none' || outline.width === '0px').toBe(true);
    } finally {
      await tab.close();
    }
  });

  it('shows every page, with a screenshot of each and no console errors or CSP violations', async () => {
    for (const name of PAGES) {
      await goTo(name);
      await page.waitForLoadState('networkidle');
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    }
    expect(problems).toEqual([]);
  });

  it('hides what a viewer may not do', async () => {
    const viewer = await createAdmin(t, 'viewer');
    const viewerContext = await browser.newContext({ baseURL: base });
    try {
      const viewerPage = await viewerContext.newPage();
      await viewerPage.goto('/admin');
      await viewerPage.getByLabel('Username').fill(viewer);
      await viewerPage.getByLabel('Password').fill(ADMIN_PASSWORD);
      await viewerPage.getByRole('button', { name: 'Sign in' }).click();
      await viewerPage.getByRole('navigation', { name: 'Console sections' }).waitFor();
      expect(await viewerPage.getByRole('link', { name: 'Administrators' }).count()).toBe(0);
      await viewerPage.goto('/admin#/settings');
      await viewerPage.getByRole('heading', { name: 'Capabilities' }).waitFor();
      expect(await viewerPage.getByRole('button', { name: 'Save capabilities' }).count()).toBe(0);
      expect(await viewerPage.getByLabel('friends open').isDisabled()).toBe(true);
      await viewerPage.screenshot({ path: join(SHOTS, 'settings-viewer.png'), fullPage: true });
    } finally {
      await viewerContext.close();
    }
  });

  it('turns on two-factor sign-in from My account, then needs the code to sign in', async () => {
    const username = await createAdmin(t, 'moderator');
    const own = await browser.newContext({ baseURL: base });
    try {
      const tab = await own.newPage();
      const signIn = async (code?: string) => {
        await tab.goto('/admin');
        await tab.getByLabel('Username').fill(username);
        await tab.getByLabel('Password').fill(ADMIN_PASSWORD);
        if (code) await tab.getByLabel(/Authentication code/).fill(code);
        await tab.getByRole('button', { name: 'Sign in' }).click();
      };
      await signIn();
      await tab.getByRole('navigation', { name: 'Console sections' }).waitFor();
      await tab.goto('/admin#/account');
      await tab.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
      const secret = (await tab.locator('p', { hasText: 'Key:' }).locator('code').textContent()) ?? '';
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      // The QR code is the otpauth link's URI (the one with this secret), drawn as an image.
      const uri = (await tab.getByRole('link', { name: 'Open in an authenticator app' }).getAttribute('href')) ?? '';
      expect(uri).toContain(`secret=${secret}`);
      const qr = tab.getByRole('img', { name: /QR code/ });
      await qr.waitFor({ timeout: 10_000 });
      const src = (await qr.getAttribute('src')) ?? '';
      expect(src).toMatch(/^data:image\/svg\+xml;base64,/);
      const svg = Buffer.from(src.split(',')[1], 'base64').toString('utf8');
      expect(svg).toBe(await qrSvg(uri, { type: 'svg', errorCorrectionLevel: 'M' }));
      await until(
        async () => await qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0),
        'the QR image to load',
      );
      await tab.screenshot({ path: join(SHOTS, 'account-two-factor-setup.png'), fullPage: true });
      await tab.getByLabel('Code from the app').fill(totpCodeAt(secret, t.clock.now()));
      await tab.getByRole('button', { name: 'Turn on' }).click();
      await tab.getByRole('status').filter({ hasText: 'Two-factor sign-in is on.' }).waitFor();
      await tab.screenshot({ path: join(SHOTS, 'account-two-factor.png'), fullPage: true });
      await tab.getByRole('button', { name: 'Log out' }).click();
      await signIn();
      await tab.getByRole('alert').filter({ hasText: 'incorrect' }).waitFor();
      t.clock.advance(30_000);
      await signIn(totpCodeAt(secret, t.clock.now()));
      await tab.getByRole('navigation', { name: 'Console sections' }).waitFor();
    } finally {
      await own.close();
    }
  });

  it('passes axe-core on every page of the nav, in English and in Simplified Chinese, with no serious or critical violations', async () => {
    const zhOwner = await createAdmin(t, 'owner');
    await setAdminLocale(t, base, zhOwner, 'zh-CN');
    const serious: string[] = [];
    const report: string[] = [];
    // Each language in a browser of that language: the login page follows navigator.language.
    for (const [locale, username] of [
      ['en', owner],
      ['zh-CN', zhOwner],
    ]) {
      // axe is injected as a script, which the console's own policy forbids: this context bypasses CSP.
      const axeContext = await browser.newContext({ baseURL: base, bypassCSP: true, locale });
      try {
        const axePage = await axeContext.newPage();
        await axePage.goto('/admin');
        const check = async (name: string) => {
          expect(await axePage.evaluate('document.documentElement.lang')).toBe(locale);
          await axePage.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
          const violations = (await axePage.evaluate(
            'axe.run(document).then((result) => result.violations)',
          )) as Array<{ id: string; impact: string; nodes: unknown[] }>;
          report.push(`${locale} ${name}: ${violations.map((v) => `${v.id}(${v.impact})`).join(', ') || 'none'}`);
          serious.push(
            ...violations
              .filter((v) => v.impact === 'serious' || v.impact === 'critical')
              .map((v) => `${locale} ${name}: ${v.id}`),
          );
        };
        await axePage.locator('input[name=username]').waitFor();
        await check('login');
        await axePage.locator('input[name=username]').fill(username);
        await axePage.locator('input[name=password]').fill(ADMIN_PASSWORD);
        await axePage.locator('form.login button[type=submit]').click();
        await axePage.locator('#nav a').first().waitFor();
        for (const name of await navPages(axePage)) {
          await axePage.goto(`/admin#/${name}`);
          await axePage.getByRole('heading', { level: 1 }).waitFor();
          await axePage.waitForLoadState('networkidle');
          await check(name);
        }
      } finally {
        await axeContext.close();
      }
    }
    // eslint-disable-next-line no-console
    console.log(`[axe] violations by page: ${report.join('; ')}`);
    expect(serious).toEqual([]);
  });

  async function cookie(): Promise<string> {
    const cookies = await context.cookies(`${base}/app/admin/`);
    const session = cookies.find((c) => c.name === 'ADMIN_SID');
    if (!session) throw new Error('no console session in the browser');
    return `ADMIN_SID=${session.value}`;
  }
});
