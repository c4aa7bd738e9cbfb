// The console's Client errors pages in headless Chromium (issue 25), on errors reported through
// the SDK endpoint: the list shows one row per (error code, platform, build) with its severity
// as a labelled badge and its counts; a group opens at its own URL with its 24 h and 30 d charts
// (drawn, with the numbers in tables) and its occurrences; an occurrence's detail (scrubbed stack
// trace and context) opens from its row; axe-core finds no violation; nothing scrolls sideways at
// 390 px (screenshots at 390 and 1280 px); no console error along the way.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, createAdmin } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';

jest.setTimeout(180_000);

const HOUR = 3_600_000;
const CODE = 'net.timeout';
const GROUP_HASH = `#/client-errors/${CODE}/ios/7.1.0`;

async function signIn(tab: Page, username: string): Promise<void> {
  await tab.goto('/admin');
  await tab.getByLabel('Username').fill(username);
  await tab.getByLabel('Password').fill(ADMIN_PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

/** The rows of the table under the chart captioned `title`, each as its cells' texts. */
async function numbers(tab: Page, title: string): Promise<string[][]> {
  const figure = tab.locator('figure.chart').filter({ has: tab.locator('figcaption', { hasText: title }) });
  await figure.locator('summary').click();
  const rows = figure.locator('tbody tr');
  const count = await rows.count();
  const out: string[][] = [];
  for (let i = 0; i < count; i++) out.push((await rows.nth(i).locator('td').allInnerTexts()).map((s) => s.trim()));
  return out;
}

async function openGroup(tab: Page): Promise<void> {
  await tab.goto(`/admin${GROUP_HASH}`);
  await tab.getByRole('heading', { level: 2, name: `${CODE} on ios, build 7.1.0` }).waitFor();
  await tab.getByRole('table', { name: 'Occurrences of this group, newest first' }).waitFor();
}

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console: client errors in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let viewer: string;
  let alice: IssuedUser;
  const problems: string[] = [];

  async function report(user: IssuedUser, over: Record<string, unknown>): Promise<void> {
    expectOk(
      await t.http
        .post('/app/sdk/client-errors')
        .set('Authorization', `Bearer ${user.token}`)
        .send(clientErrorBody({ userId: user.userId }, over)),
    );
  }

  beforeAll(async () => {
    database = await isolatedDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ ...database.env, PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    alice = await issueUser(t);
    const bob = await issueUser(t);
    const group = { error_code: CODE, platform: 'ios', build_id: '7.1.0' };
    // Two hours ago, once; now, three times from two users (one report fatal).
    t.clock.set(Date.now() - 2 * HOUR);
    await report(alice, { ...group, device_id: 'alice-phone', message: 'timed out (early)' });
    t.clock.set(Date.now());
    t.clock.release();
    await report(alice, {
      ...group,
      device_id: 'alice-phone',
      stack_trace: 'at Sync.run (sync.ts:42)',
      context: { screen: 'chat', authorization: 'Bearer secret-value' },
    });
    await report(bob, { ...group, device_id: 'bob-phone', severity: 'fatal', message: 'timed out, gave up' });
    await report(bob, { ...group, device_id: 'bob-tablet', severity: 'fatal', message: 'timed out, gave up' });
    await report(bob, { error_code: 'db.locked', platform: 'android', build_id: '6.0', severity: 'serious' });
    viewer = await createAdmin(t, 'viewer');
    browser = await launchChromium();
    context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page, viewer);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  it('lists one row per error code, platform and build with severity and counts', async () => {
    await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Client errors' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Client errors' }).waitFor();
    const list = page.getByRole('table', { name: 'Client errors grouped by error code, platform and build' });
    await list.getByRole('link', { name: CODE }).waitFor();
    const headings = (await list.locator('thead th').allInnerTexts()).map((s) => s.trim());
    const row = async (code: string): Promise<Record<string, string>> => {
      const cells = await list
        .getByRole('row')
        .filter({ has: page.getByRole('link', { name: code }) })
        .getByRole('cell')
        .allInnerTexts();
      return Object.fromEntries(headings.map((heading, i) => [heading, cells[i].trim()]));
    };
    expect(await row(CODE)).toMatchObject({
      Platform: 'ios',
      Build: '7.1.0',
      Severity: 'Fatal',
      Occurrences: '4',
      Users: '2',
      Devices: '3',
      'Latest message': 'timed out, gave up',
    });
    expect(await row('db.locked')).toMatchObject({ Platform: 'android', Severity: 'Serious', Occurrences: '1' });
    // The severity is a word in a badge, not a colour alone.
    expect(await list.locator('.badge.danger').first().innerText()).toBe('Fatal');

    await page.getByLabel('Severity').selectOption('serious');
    await page.getByRole('button', { name: 'Apply' }).click();
    await list.getByRole('link', { name: CODE }).waitFor({ state: 'detached' });
    expect(await list.getByRole('link').allInnerTexts()).toEqual(['db.locked']);
    await page.getByLabel('Severity').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await list.getByRole('link', { name: CODE }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'client-errors-1280.png'), fullPage: true });
  });

  it("opens a group at its own URL with its charts, numbers and occurrences, and an occurrence's detail", async () => {
    await page.getByRole('link', { name: CODE }).click();
    await page.waitForURL((url) => url.hash === GROUP_HASH);
    await page.getByRole('heading', { level: 2, name: `${CODE} on ios, build 7.1.0` }).waitFor();
    const cards = (await page.locator('.card').allInnerTexts()).map((c) => c.replace(/\s+/g, ' ').trim());
    expect(cards).toEqual(['Severity Fatal', 'Occurrences 4', 'Users 2', 'Devices 3']);
    await page.locator('figure.chart canvas').first().waitFor();
    const drawn = (await page.evaluate(`[...document.querySelectorAll('figure.chart canvas')].map((c) => {
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      return c.width > 0 && data.some((v, i) => i % 4 === 3 && v > 0);
    })`)) as boolean[];
    expect(drawn).toEqual([true, true]);
    const perHour = await numbers(page, 'Occurrences per hour (UTC), the last 24 hours');
    expect(perHour).toHaveLength(24);
    expect(perHour[23][1]).toBe('3');
    expect(perHour[21][1]).toBe('1');
    const perDay = await numbers(page, 'Occurrences per day (UTC), the last 30 days');
    expect(perDay).toHaveLength(30);
    expect(perDay.reduce((sum, r) => sum + Number(r[1]), 0)).toBe(4);

    const occurrences = page.getByRole('table', { name: 'Occurrences of this group, newest first' });
    await occurrences.locator('tbody tr').first().waitFor();
    // alice-phone twice (two hours apart: two records), bob-phone, bob-tablet.
    expect(await occurrences.locator('tbody tr').count()).toBe(4);
    const aliceRow = occurrences
      .getByRole('row')
      .filter({ hasText: 'alice-phone' })
      .filter({ has: page.getByRole('cell', { name: alice.userId }) })
      .first();
    await aliceRow.getByRole('button', { name: /^Details of the occurrence on device alice-phone/ }).click();
    const heading = page.getByRole('heading', { level: 3, name: /^Occurrence at / });
    await heading.waitFor();
    expect(await heading.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    const detail = await page.locator('.detail').innerText();
    expect(detail).toContain('at Sync.run (sync.ts:42)');
    expect(detail).toContain('"screen": "chat"');
    expect(detail).not.toContain('secret-value');
    await page.screenshot({ path: join(SHOTS, 'client-errors-group-1280.png'), fullPage: true });
  });

  it('passes axe-core with no violations on the list and on a group with an occurrence open', async () => {
    const axeContext = await browser.newContext({ baseURL: base, bypassCSP: true });
    try {
      const tab = await axeContext.newPage();
      await signIn(tab, viewer);
      const found: string[] = [];
      const check = async (where: string): Promise<void> => {
        await tab.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
        const violations = (await tab.evaluate('axe.run(document).then((result) => result.violations)')) as Array<{
          id: string;
          impact: string;
          nodes: Array<{ target: unknown }>;
        }>;
        found.push(
          ...violations.map((v) => `${where}: ${v.id} (${v.impact}) ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        );
      };
      await tab.goto('/admin#/client-errors');
      await tab.getByRole('link', { name: CODE }).waitFor();
      await check('list');
      await openGroup(tab);
      for (const summary of await tab.locator('figure.chart summary').all()) await summary.click();
      await tab
        .getByRole('button', { name: /^Details of the occurrence/ })
        .first()
        .click();
      await tab.getByRole('heading', { level: 3 }).waitFor();
      await check('group');
      expect(found).toEqual([]);
    } finally {
      await axeContext.close();
    }
  });

  it('at 390 px: the list and a group do not scroll sideways; no console errors', async () => {
    const phone = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const tab = await phone.newPage();
      const fits = async (where: string, shot: string): Promise<void> => {
        const [scroll, client] = (await tab.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        await tab.screenshot({ path: join(SHOTS, shot), fullPage: true });
        expect({ where, fits: scroll <= client }).toEqual({ where, fits: true });
      };
      await tab.goto('/admin#/client-errors');
      await tab.getByRole('link', { name: CODE }).waitFor();
      await fits('list', 'client-errors-390.png');
      await openGroup(tab);
      for (const summary of await tab.locator('figure.chart summary').all()) await summary.click();
      await tab
        .getByRole('button', { name: /^Details of the occurrence/ })
        .first()
        .click();
      await tab.getByRole('heading', { level: 3 }).waitFor();
      await fits('group', 'client-errors-group-390.png');
    } finally {
      await phone.close();
    }
    expect(problems).toEqual([]);
  });
});
