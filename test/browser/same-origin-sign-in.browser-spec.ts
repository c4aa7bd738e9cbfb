// Sign-in wherever the service is opened (review item 5): with PUBLIC_BASE_URL naming another
// address, the admin console signs in at http://127.0.0.1:PORT/admin and at
// http://localhost:PORT/admin, and the demo chat signs up at http://localhost:PORT/demo: the
// browser's own Origin and Sec-Fetch-Site pass the CSRF check.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ADMIN_PASSWORD, createAdmin } from '../helpers/admin-client';
import { HOST_PASSWORD, randomPhone } from '../helpers/host-app-client';
import { freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';

/** Polls from the test side (the pages' policy forbids the eval waitForFunction needs). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

(existsSync(CHROMIUM) ? describe : describe.skip)('sign-in at any address of the service, in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let port: number;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Console errors: a refused write (403) would show here. */
  const problems: string[] = [];

  beforeAll(async () => {
    // The demo page loads the SDK's ES module build.
    const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'sdk/web/tsconfig.json'], {
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('the Web SDK did not build');
    // A database of its own: on MySQL the shared one is migrated only by the e2e setup.
    database = await isolatedDatabase();
    port = await freePort();
    // Not the address the browser uses: only the page's own origin can let the writes through.
    t = await startTestApp({ ...database.env, PUBLIC_BASE_URL: 'https://im.example.com' });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  async function open(base: string): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1200, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      // The pages ask for a session before anyone has signed in: 401 is expected, nothing else.
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    return page;
  }

  it.each(['127.0.0.1', 'localhost'])('signs in to the admin console at http://%s:PORT/admin', async (host) => {
    const owner = await createAdmin(t, 'owner');
    const page = await open(`http://${host}:${port}`);
    await page.goto('/admin');
    await page.getByLabel('Username').fill(owner);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    const login = page.waitForResponse((response) => response.url().endsWith('/app/admin/auth/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect((await login).status()).toBe(200);
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const cookies = await page.context().cookies();
    expect(cookies.map((cookie) => `${cookie.name}@${cookie.domain}`)).toContain(`ADMIN_SID@${host}`);
    // A write with the session (logout) passes the same check.
    const logout = page.waitForResponse((response) => response.url().endsWith('/app/admin/auth/logout'));
    await page.getByRole('button', { name: 'Log out' }).click();
    expect((await logout).status()).toBe(200);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('signs up in the demo chat at http://localhost:PORT/demo', async () => {
    const page = await open(`http://localhost:${port}`);
    await page.goto('/demo');
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Phone').fill(randomPhone());
    await page.getByLabel('Nickname').fill('Localhost');
    await page.getByLabel(/Password/).fill(HOST_PASSWORD);
    await page.getByRole('button', { name: 'Send code' }).click();
    await until(async () => (await page.locator('input[name=code]').inputValue()).length === 6, 'the code');
    const signup = page.waitForResponse((response) => response.url().endsWith('/app/auth/signup'));
    await page.getByRole('button', { name: 'Create account' }).click();
    expect((await signup).status()).toBe(200);
    await page.locator('#me').filter({ hasText: 'Localhost' }).waitFor();
    expect(problems).toEqual([]);
  });
});
