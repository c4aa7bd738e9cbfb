// The admin console in headless Chromium (issue 14): log in, triage a report to closed, disable
// a user and see 1003 on their next SDK call, close a capability and see 1202, a screenshot of
// every page, and an axe-core accessibility check of every page with no serious violations.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { totpCodeAt } from '../../src/admin/admin-totp';
import { ADMIN_PASSWORD, createAdmin } from '../support/admin-client';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';

const PAGES = ['dashboard', 'reports', 'client-errors', 'users', 'groups', 'settings', 'audit', 'admins', 'account'];

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
    page.on('dialog', (dialog) => void dialog.accept());
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
    await page.goto(`/admin#/${name}`);
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
    await page.getByRole('button', { name: `Open report ${reportId}` }).click();
    for (const status of ['reviewed', 'closed']) {
      await page.getByLabel('New status').selectOption(status);
      await page.getByLabel('Note').fill(`moved to ${status} in the browser`);
      await page.getByRole('button', { name: 'Move report' }).click();
      await page.getByRole('heading', { name: `Report ${reportId} (${status})` }).waitFor();
    }
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
    await page.getByLabel('User ID, username or nickname').fill(user.userId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('button', { name: `Open ${user.userId}` }).click();
    await page.getByRole('button', { name: 'Disable user' }).click();
    await page.getByRole('button', { name: 'Enable user' }).waitFor();
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
    await page.getByRole('status').filter({ hasText: 'Capabilities: saved' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'capability-closed.png'), fullPage: true });
    expect((await request()).body).toMatchObject({ code: 1202, data: null });
    await page.getByRole('button', { name: 'Reset capabilities' }).click();
    await page.getByRole('status').filter({ hasText: 'Capabilities reset: saved' }).waitFor();
    expect((await request()).body.code).not.toBe(1202);
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

  it('passes axe-core on every page with no serious or critical violations', async () => {
    // axe is injected as a script, which the console's own policy forbids: this context bypasses CSP.
    const axeContext = await browser.newContext({ baseURL: base, bypassCSP: true });
    try {
      const axePage = await axeContext.newPage();
      await axePage.goto('/admin');
      const report: string[] = [];
      const check = async (name: string) => {
        await axePage.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
        const violations = (await axePage.evaluate('axe.run(document).then((result) => result.violations)')) as Array<{
          id: string;
          impact: string;
          nodes: unknown[];
        }>;
        report.push(`${name}: ${violations.map((v) => `${v.id}(${v.impact})`).join(', ') || 'none'}`);
        return violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${name}: ${v.id}`);
      };
      const serious = await check('login');
      await axePage.getByLabel('Username').fill(owner);
      await axePage.getByLabel('Password').fill(ADMIN_PASSWORD);
      await axePage.getByRole('button', { name: 'Sign in' }).click();
      await axePage.getByRole('navigation', { name: 'Console sections' }).waitFor();
      for (const name of PAGES) {
        await axePage.goto(`/admin#/${name}`);
        await axePage.getByRole('heading', { level: 1 }).waitFor();
        await axePage.waitForLoadState('networkidle');
        serious.push(...(await check(name)));
      }
      // eslint-disable-next-line no-console
      console.log(`[axe] violations by page: ${report.join('; ')}`);
      expect(serious).toEqual([]);
    } finally {
      await axeContext.close();
    }
  });

  async function cookie(): Promise<string> {
    const cookies = await context.cookies(`${base}/app/admin/`);
    const session = cookies.find((c) => c.name === 'ADMIN_SID');
    if (!session) throw new Error('no console session in the browser');
    return `ADMIN_SID=${session.value}`;
  }
});
