// The console's Analytics page and dashboard in headless Chromium, against rollup rows seeded
// through the application's repository: each chart draws, and its table ("Show the numbers")
// holds the seeded figures; the range switches to 90 days; the dashboard's cards show DAU, MAU
// and today's messages; axe-core finds no violation; nothing scrolls sideways at 390 px
// (screenshots at 390 and 1280 px); no console error along the way.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { ActivityTracker } from '../../src/analytics/activity-tracker.service';
import { AnalyticsRollupsRepository } from '../../src/analytics/analytics-rollups.repository';
import { DAY_MS, HOUR_MS, dayOf, hourOf } from '../../src/analytics/rollup';
import { ADMIN_PASSWORD, createAdmin } from '../helpers/admin-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, bearer, issueUser, startTestApp } from '../helpers/test-app';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';

jest.setTimeout(180_000);

async function signIn(tab: Page, username: string): Promise<void> {
  await tab.goto('/admin');
  await tab.getByLabel('Username').fill(username);
  await tab.getByLabel('Password').fill(ADMIN_PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

const label = (ms: number, from: number, to: number): string => new Date(ms).toISOString().slice(from, to);
const hourLabel = (ms: number): string => `${label(ms, 5, 13).replace('T', ' ')}:00`;

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

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console: analytics in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let viewer: string;
  const problems: string[] = [];
  const now = Date.now();
  const today = dayOf(now);
  const lastHour = hourOf(now) - HOUR_MS;

  beforeAll(async () => {
    database = await isolatedDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ ...database.env, ANALYTICS_JOB: 'false', PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    const rollups = t.app.get(AnalyticsRollupsRepository);
    await rollups.upsert(
      'analytics_daily',
      [
        { bucket: today, metric: 'messages', dimension: 'text', value: 120 },
        { bucket: today, metric: 'messages', dimension: 'image', value: 30 },
        { bucket: today - DAY_MS, metric: 'messages', dimension: 'text', value: 80 },
        { bucket: today - DAY_MS, metric: 'messages', dimension: 'custom', value: 5 },
        { bucket: today - DAY_MS, metric: 'calls', dimension: 'video', value: 4 },
        { bucket: today - DAY_MS, metric: 'call_seconds', dimension: 'video', value: 600 },
        { bucket: today - DAY_MS, metric: 'dau', dimension: '', value: 17 },
        { bucket: today - DAY_MS, metric: 'mau', dimension: '', value: 23 },
      ],
      'add',
    );
    await rollups.upsert(
      'analytics_hourly',
      [
        { bucket: lastHour, metric: 'peak_connections', dimension: '', value: 64 },
        { bucket: lastHour, metric: 'requests', dimension: '', value: 1000 },
        { bucket: lastHour, metric: 'client_errors', dimension: '', value: 20 },
        { bucket: lastHour, metric: 'server_errors', dimension: '', value: 5 },
      ],
      'add',
    );
    // The job stored yesterday's DAU/MAU (days after its cursor are counted live).
    await t.app
      .get(DataSource)
      .query("UPDATE analytics_jobs SET cursor_at = ? WHERE name = 'active_days'", [today - DAY_MS]);
    // One user active today (an SDK request), so today's DAU/MAU are 1.
    const user = await issueUser(t);
    await t.http.get('/app/sdk/users/me').set(...bearer(user.token));
    await t.app.get(ActivityTracker).flush();
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

  it('draws every chart of the analytics page, each with the seeded numbers in its table', async () => {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    await page.locator('figure.chart canvas').first().waitFor();
    expect(await page.locator('figure.chart canvas').count()).toBe(5);
    // Chart.js drew on every canvas (its size set, pixels not all blank).
    const drawn = (await page.evaluate(`[...document.querySelectorAll('figure.chart canvas')].map((c) => {
      const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      return c.width > 0 && data.some((v, i) => i % 4 === 3 && v > 0);
    })`)) as boolean[];
    expect(drawn).toEqual([true, true, true, true, true]);

    const cards = await page.locator('.card').allInnerTexts();
    expect(cards.map((c) => c.replace(/\s+/g, ' ').trim())).toEqual(
      expect.arrayContaining([
        'Active today (DAU) 1',
        'Active in 30 days (MAU) 1',
        'Messages in 30 days 235',
        'Calls in 30 days 4',
        'Call minutes in 30 days 10',
      ]),
    );
    const active = await numbers(page, 'Active users');
    expect(active).toHaveLength(30);
    expect(active[28]).toEqual([label(today - DAY_MS, 5, 10), '17', '23']);
    expect(active[29]).toEqual([label(today, 5, 10), '1', '1']);
    const messages = await numbers(page, 'Messages per day by type');
    expect(messages[28]).toEqual([label(today - DAY_MS, 5, 10), '5', '0', '80']);
    expect(messages[29]).toEqual([label(today, 5, 10), '0', '30', '120']);
    const calls = await numbers(page, 'Calls and call minutes per day');
    expect(calls[28]).toEqual([label(today - DAY_MS, 5, 10), '4', '10']);
    const peaks = await numbers(page, 'Peak concurrent connections');
    expect(peaks).toHaveLength(48);
    expect(peaks[46]).toEqual([hourLabel(lastHour), '64']);
    const requests = await numbers(page, 'API requests and error rate');
    expect(requests[46]).toEqual([hourLabel(lastHour), '1000', '20', '5', '2.50 %']);
    await page.screenshot({ path: join(SHOTS, 'analytics-1280.png'), fullPage: true });

    await page.getByLabel('Period').selectOption('90d');
    await page.waitForURL(/#\/analytics\/90d$/);
    await page.getByRole('heading', { name: 'Per day (UTC), the last 90 days' }).waitFor();
    expect(await numbers(page, 'Active users')).toHaveLength(90);
  });

  it('shows DAU, MAU and messages today on the dashboard, with its charts and tables', async () => {
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    const cards = (await page.locator('.card').allInnerTexts()).map((c) => c.replace(/\s+/g, ' ').trim());
    expect(cards).toEqual(
      expect.arrayContaining(['Active today (DAU) 1', 'Active in 30 days (MAU) 1', 'Messages today 150']),
    );
    const perDay = await numbers(page, 'Messages per day (UTC), the last 14 days');
    expect(perDay.slice(-2)).toEqual([
      [label(today - DAY_MS, 5, 10), '85'],
      [label(today, 5, 10), '150'],
    ]);
    await page.screenshot({ path: join(SHOTS, 'dashboard-1280.png'), fullPage: true });
  });

  it('passes axe-core with no violations on the analytics page and the dashboard', async () => {
    const axeContext = await browser.newContext({ baseURL: base, bypassCSP: true });
    try {
      const tab = await axeContext.newPage();
      await signIn(tab, viewer);
      const found: string[] = [];
      for (const hash of ['#/analytics', '#/dashboard']) {
        await tab.goto(`/admin${hash}`);
        await tab.locator('figure.chart canvas').first().waitFor();
        for (const summary of await tab.locator('figure.chart summary').all()) await summary.click();
        await tab.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
        const violations = (await tab.evaluate('axe.run(document).then((result) => result.violations)')) as Array<{
          id: string;
          impact: string;
          nodes: Array<{ target: unknown }>;
        }>;
        found.push(
          ...violations.map((v) => `${hash}: ${v.id} (${v.impact}) ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        );
      }
      expect(found).toEqual([]);
    } finally {
      await axeContext.close();
    }
  });

  it('at 390 px: the pages and their open tables do not scroll sideways; no console errors', async () => {
    const phone = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const tab = await phone.newPage();
      for (const [hash, shot] of [
        ['#/analytics', 'analytics-390.png'],
        ['#/dashboard', 'dashboard-390.png'],
      ]) {
        await tab.goto(`/admin${hash}`);
        await tab.locator('figure.chart canvas').first().waitFor();
        for (const summary of await tab.locator('figure.chart summary').all()) await summary.click();
        const [scroll, client] = (await tab.evaluate(
          '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
        )) as [number, number];
        await tab.screenshot({ path: join(SHOTS, shot), fullPage: true });
        expect({ hash, scroll: scroll <= client }).toEqual({ hash, scroll: true });
      }
    } finally {
      await phone.close();
    }
    expect(problems).toEqual([]);
  });
});
