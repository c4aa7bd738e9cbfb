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
import { act, detail, fileReport } from '../admin/report-admin-kit';
import {
  ADMIN_PASSWORD,
  AdminSession,
  CSRF,
  adminSession,
  createAdmin,
  login,
  sessionCookie,
} from '../helpers/admin-client';
import { ApiClient, IssuedUser, friendCid } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
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
  // Another moderator, working the same queue through the API.
  let other: AdminSession;
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
    other = await adminSession(t, 'moderator');
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
      // The disable's details say for how long as well as why.
      expect(await row.innerText()).toMatch(
        /disabled until \d{4}-\d\d-\d\d .*reason: “Insults reported by other users”/s,
      );
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

  const heading = (page: Page, id: string, status: string) =>
    page.getByRole('heading', { level: 2, name: `Report ${id} ${status}` });

  it('asks before Mark reviewed, and reloads the report after an action another moderator made stale', async () => {
    const second = await fileReport(
      t,
      reporter,
      { user_id: target.userId },
      { conversation_id: friendCid(target), message_ids: [mids[0]] },
    );
    const [context, page] = await signedIn(moderator);
    try {
      await page.goto(`/admin#/reports/${second}`);
      await heading(page, second, 'pending').waitFor();
      await page.getByRole('button', { name: 'Mark reviewed' }).click();
      const asked = await answerConfirm(page, false);
      expect(asked).toContain(`Mark report ${second} reviewed?`);
      expect(asked).toContain(`Report ${second} will be marked reviewed`);
      expect((await detail(other, second)).report.status).toBe('pending');
      await page.getByRole('button', { name: 'Mark reviewed' }).click();
      await answerConfirm(page, true);
      await heading(page, second, 'reviewed').waitFor();
      expect((await detail(other, second)).report.status).toBe('reviewed');

      // Another moderator closes it meanwhile: this page still offers Close, which is refused;
      // the page then shows the report as it now is.
      expectOk(await act(other, { report_id: second, action: 'close', note: 'handled elsewhere' }));
      await page.getByRole('button', { name: 'Close report…' }).click();
      await answerConfirm(page, true);
      await page.getByRole('status').filter({ hasText: 'already closed' }).waitFor();
      await heading(page, second, 'closed').waitFor();
      expect(await page.getByRole('button', { name: 'Close report…' }).count()).toBe(0);
      const history = page.getByRole('table', { name: /Actions on this report/ });
      await history.getByRole('row').filter({ hasText: 'handled elsewhere' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists which messages a recall touched in the history, with linked targets there and in the audit log', async () => {
    const third = await fileReport(
      t,
      reporter,
      { user_id: target.userId },
      { conversation_id: friendCid(target), message_ids: [mids[0], mids[2]] },
    );
    const [context, page] = await signedIn(moderator);
    try {
      await page.goto(`/admin#/reports/${third}`);
      await heading(page, third, 'pending').waitFor();
      const form = page.locator('form.action-form').filter({ hasText: 'Reported messages' });
      await form.locator(`input[name=message_ids][value="${mids[2]}"]`).uncheck();
      await form.getByRole('button', { name: 'Recall chosen…' }).click();
      expect(await answerConfirm(page, true)).toContain('Recall 1 messages');
      await heading(page, third, 'reviewed').waitFor();
      const history = page.getByRole('table', { name: /Actions on this report/ });
      const recalled = history.getByRole('row').filter({ hasText: 'message.recalled' });
      await recalled.waitFor();
      const text = await recalled.innerText();
      expect(text).toContain(`messages ${mids[0]}: recalled`);
      expect(text).not.toContain(`${mids[2]}: `);
      // The conversation by the reporter's ID for it, not the internal one.
      expect(text).toContain(`conversation ${friendCid(target)}`);
      const moved = history.getByRole('row').filter({ hasText: 'report.transitioned' });
      expect(await moved.getByRole('link', { name: `Report ${third}` }).getAttribute('href')).toBe(
        `#/reports/${third}`,
      );
      expect(await moved.innerText()).toContain('status: reviewed');

      // The audit log links each user, group or report target to its page.
      await page.goto('/admin#/audit');
      const audit = page.getByRole('table', { name: 'Audit log, newest first' });
      const disabled = audit.getByRole('row').filter({ hasText: 'user.disabled' }).first();
      await disabled.waitFor();
      expect(await disabled.getByRole('link', { name: target.userId }).getAttribute('href')).toBe(
        `#/users/${target.userId}`,
      );
      const transitioned = audit.getByRole('row').filter({ hasText: 'report.transitioned' }).first();
      expect(await transitioned.getByRole('link', { name: `Report ${third}` }).count()).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
