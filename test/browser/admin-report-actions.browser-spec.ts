// Moderation from a report in headless Chromium (issue 25): a moderator opens a report by its
// URL, views a reported message's context, disables the reported user for a day with a reason
// through the in-page confirmation, and the user's next SDK call answers 1003 with that reason;
// the report's history lists the action with a link to the user. A viewer sees no action panel
// and the API refuses them. Screenshots at 390 and 1280 px, no sideways scrolling, axe-core.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { ADMIN_PASSWORD, CSRF, createAdmin, login, sessionCookie } from '../helpers/admin-client';
import { ApiClient, IssuedUser, friendCid } from '../helpers/api-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { answerConfirm } from './console-pages';
import { CHROMIUM } from './ensure-chromium';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
];

/** The width a PNG file says it has (its IHDR chunk). */
const pngWidth = (path: string): number => readFileSync(path).subarray(0, 24).readUInt32BE(16);

(existsSync(CHROMIUM) ? describe : describe.skip)('moderation from a report in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let base: string;
  let browser: Browser;
  let moderator: string;
  let viewer: string;
  let reporter: IssuedUser;
  let target: IssuedUser;
  let mids: string[];
  let reportId: string;
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

    [reporter, target] = await api.users(2);
    await api.befriend(reporter, target);
    await api.send(reporter, friendCid(target), 'hello there');
    mids = (await api.sendMany(target, friendCid(reporter), 3, 'abusive line')).map((m) => m.mid);
    await api.send(reporter, friendCid(target), 'please stop');
    const requestId = randomUUID();
    const filed = await t.http
      .post('/app/sdk/reports/user')
      .set('Authorization', `Bearer ${reporter.token}`)
      .send({
        request_id: requestId,
        reason_code: 1,
        user_id: target.userId,
        description: 'insults in our chat',
        conversation_id: friendCid(target),
        message_ids: [mids[1]],
      });
    expect(filed.body.code).toBe(0);
    const rows = (await t.app
      .get(DataSource)
      .query('SELECT id FROM reports WHERE reporter_id = ? AND request_id = ?', [reporter.id, requestId])) as Array<{
      id: string | number;
    }>;
    reportId = String(rows[0].id);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  async function signedIn(username: string, options: { bypassCSP?: boolean } = {}): Promise<[BrowserContext, Page]> {
    const context = await browser.newContext({ baseURL: base, viewport: VIEWPORTS[1], ...options });
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

  /** Screenshots at each width; the page never scrolls sideways and each shot is as wide as the viewport. */
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

  it('opens a report by its URL, shows the context, disables the user for a day with a reason: 1003 with it', async () => {
    const [context, page] = await signedIn(moderator);
    try {
      await page.goto(`/admin#/reports/${reportId}`);
      await page.getByRole('heading', { name: `Report ${reportId} pending` }).waitFor();
      await page.getByRole('link', { name: target.userId }).first().waitFor();
      expect(await page.getByRole('link', { name: target.userId }).first().getAttribute('href')).toBe(
        `#/users/${target.userId}`,
      );
      expect(await page.locator('dl.facts').innerText()).toContain('harassment');

      // Context on demand, said to be audited; the reporter's whole conversation around the message.
      await expect(page.getByText('recorded in the audit log').first().isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: `Show context of message ${mids[1]}` }).click();
      await page.getByRole('heading', { name: `Context of message ${mids[1]}` }).waitFor();
      const contextText = await page.getByRole('table', { name: /5 messages/ }).innerText();
      for (const text of [
        'hello there',
        'abusive line 1',
        '[reported] abusive line 2',
        'abusive line 3',
        'please stop',
      ])
        expect(contextText).toContain(text);

      // The viewing itself is in the history at once.
      await page
        .getByRole('table', { name: /Actions on this report/ })
        .getByRole('row')
        .filter({ hasText: 'report.context_viewed' })
        .waitFor();

      const form = page.locator('form.action-form').filter({ hasText: 'Disable the user' });
      await form.getByLabel('Duration').selectOption({ label: 'for 1 day' });
      await form.getByLabel('Reason (the user sees it)').fill('Insults reported by other users');
      const wide = await shots(page, 'report-detail');
      await form.getByRole('button', { name: 'Disable user…' }).click();
      const asked = await answerConfirm(page, true);
      for (const words of [target.userId, 'for 1 day', '“Insults reported by other users”', `Report ${reportId}`])
        expect(asked).toContain(words);
      await page.getByRole('heading', { name: `Report ${reportId} reviewed` }).waitFor();

      // The user's own SDK call, with their token: refused with the reason as msg.
      const refused = await t.http.post('/app/sdk/sync').set('Authorization', `Bearer ${target.token}`).send({});
      expect(refused.body).toEqual({ code: 1003, msg: 'Insults reported by other users', data: null });

      // The history lists the action, linking to the user, and the report's own move.
      const history = page.getByRole('table', { name: /Actions on this report/ });
      const row = history.getByRole('row').filter({ hasText: 'user.disabled' });
      await row.waitFor();
      expect(await row.getByRole('link', { name: target.userId }).getAttribute('href')).toBe(
        `#/users/${target.userId}`,
      );
      expect(await history.innerText()).toContain('report.context_viewed');
      expect(await history.innerText()).toContain('report.transitioned');
      wide.push(...(await shots(page, 'report-after-action')));
      expect(wide).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists the report in the queue and grouped by target, with links to the report', async () => {
    const [context, page] = await signedIn(moderator);
    try {
      await page.goto('/admin#/reports/by-target');
      // The report was acted on (reviewed): it counts among all reports, not the open ones.
      const filters = page.getByRole('form', { name: 'Group and sort the targets' });
      await filters.getByLabel('Status').selectOption({ label: 'all reports' });
      await filters.getByRole('button', { name: 'Apply' }).click();
      const table = page.getByRole('table', { name: /most reports first/ });
      const row = table.getByRole('row').filter({ hasText: target.userId });
      await row.waitFor();
      expect(await row.innerText()).toContain('harassment');
      await page.getByRole('link', { name: 'Queue' }).click();
      await page.getByLabel('Status').first().selectOption({ label: 'any' });
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('link', { name: `Report ${reportId}`, exact: true }).click();
      await page.getByRole('heading', { name: new RegExp(`^Report ${reportId} `) }).waitFor();
      expect(page.url()).toContain(`#/reports/${reportId}`);
      expect(await shots(page, 'reports-by-target')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows a viewer no action panel and no context button, and the API refuses their action', async () => {
    const [context, page] = await signedIn(viewer);
    try {
      await page.goto(`/admin#/reports/${reportId}`);
      await page.getByRole('heading', { name: new RegExp(`^Report ${reportId} `) }).waitFor();
      await page.getByText('Acting on a report needs the moderator role.').waitFor();
      expect(await page.locator('form.action-form').count()).toBe(0);
      expect(await page.getByRole('button', { name: /Show context/ }).count()).toBe(0);
      const cookie = sessionCookie(await login(t, viewer));
      const refused = await t.http
        .post('/app/admin/reports/act')
        .set('Cookie', cookie)
        .set(...CSRF)
        .set('Origin', base)
        .send({ report_id: reportId, action: 'close', note: 'by a viewer' });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 1004 });
      const context2 = await t.http
        .get('/app/admin/reports/context')
        .set('Cookie', cookie)
        .query({ report_id: reportId, message_id: mids[1] });
      expect(context2.status).toBe(403);
      expect(await shots(page, 'report-viewer')).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('passes axe-core on the report page with no serious or critical violations', async () => {
    // axe is injected as a script, which the console's own policy forbids: this context bypasses CSP.
    const [context, page] = await signedIn(moderator, { bypassCSP: true });
    try {
      const serious: string[] = [];
      for (const hash of [`#/reports/${reportId}`, '#/reports/by-target']) {
        await page.goto(`/admin${hash}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        if (hash.includes(reportId)) {
          await page.getByRole('button', { name: `Show context of message ${mids[1]}` }).click();
          await page.getByRole('heading', { name: `Context of message ${mids[1]}` }).waitFor();
        }
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
});
