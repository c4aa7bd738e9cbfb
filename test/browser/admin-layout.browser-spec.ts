// The console's layout, keyboard use and languages (issue 25), over every page its navigation
// offers (read from the page, so a page added to the nav is covered without editing this file):
// at 390×844 and 1280×800 no page scrolls sideways, and its full-page screenshot is exactly as
// wide as the viewport (compared by size and overflow, never by pixels); the skip link and Tab
// reach <main>, the sections and the page's first control; the in-page confirmation takes
// Escape; and in Simplified Chinese (chosen on the account page) every page is in that language:
// html lang, titles, and no string key shown in place of a missing translation.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_PASSWORD, CSRF, createAdmin, login, sessionCookie } from '../helpers/admin-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { answerConfirm, keysShown, navPages } from './console-pages';
import { CHROMIUM } from './ensure-chromium';

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** Polls from the test side (the page's policy forbids the eval that waitForFunction needs). */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The width and height a PNG file says it has (its IHDR chunk). */
function pngSize(path: string): { width: number; height: number } {
  const header = readFileSync(path).subarray(0, 24);
  return { width: header.readUInt32BE(16), height: header.readUInt32BE(20) };
}

/** What has focus, in words a failure message can show. */
const FOCUSED = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return { where: 'body', tag: 'body', text: '' };
  const where = e.closest('#nav') ? 'nav' : e.closest('main') ? 'main' : e.closest('header') ? 'header' : 'other';
  return { where, tag: e.tagName.toLowerCase(), id: e.id, cls: e.className, text: (e.textContent || '').trim().slice(0, 40) };
})()`;
type Focused = { where: string; tag: string; id?: string; cls?: string; text: string };

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console layout, keyboard and languages', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let owner: string;
  const problems: string[] = [];

  beforeAll(async () => {
    database = await isolatedDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ ...database.env, PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    owner = await createAdmin(t, 'owner');
    // Something to show in the lists: users, and a report with a long reason note.
    const [a, b] = [await issueUser(t), await issueUser(t)];
    const report = await t.http
      .post('/app/sdk/reports/user')
      .set('Authorization', `Bearer ${a.token}`)
      .send({ request_id: `r-${Date.now()}`, reason_code: 1, user_id: b.userId, description: 'long '.repeat(50) });
    expect(report.body.code).toBe(0);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  /** A browser of `viewport` size and language, signed in as `username`. */
  async function signedIn(
    username: string,
    viewport: { width: number; height: number },
    locale = 'en-US',
  ): Promise<{ context: BrowserContext; tab: Page }> {
    const context = await browser.newContext({ baseURL: base, viewport, locale });
    const tab = await context.newPage();
    tab.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    tab.on('dialog', (dialog) => {
      problems.push(`a browser dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await tab.goto('/admin');
    await tab.locator('input[name=username]').fill(username);
    await tab.locator('input[name=password]').fill(ADMIN_PASSWORD);
    await tab.locator('form.login button[type=submit]').click();
    await tab.locator('#nav a').first().waitFor({ state: 'attached' });
    return { context, tab };
  }

  async function show(tab: Page, name: string): Promise<void> {
    await tab.goto(`/admin#/${name}`);
    await tab.getByRole('heading', { level: 1 }).waitFor();
    await tab.waitForLoadState('networkidle');
  }

  const overflow = async (tab: Page) =>
    (await tab.evaluate('[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]')) as [
      number,
      number,
    ];

  /** Focus before the first element of the document: the next Tab goes to its first stop. */
  const fromTheTop = (tab: Page) =>
    tab.evaluate(
      "(() => { const html = document.documentElement; html.tabIndex = -1; html.focus(); html.removeAttribute('tabindex'); })()",
    );

  /** Whether <main> holds anything Tab can stop at (a page of figures only may have none). */
  const mainHasControl = async (tab: Page) =>
    (await tab.evaluate(
      '[...document.querySelectorAll(\'main a[href], main button, main input, main select, main textarea, main [tabindex]:not([tabindex="-1"])\')].some((e) => !e.disabled && e.getClientRects().length > 0)',
    )) as boolean;

  /**
   * Tabs from the top of the document (focus cleared) until focus is on a control in <main>,
   * opening the Menu on the way when the sections are folded behind it. Returns where focus went.
   */
  async function tabThrough(tab: Page): Promise<Focused[]> {
    await fromTheTop(tab);
    const seen: Focused[] = [];
    for (let i = 0; i < 60; i++) {
      await tab.keyboard.press('Tab');
      const now = (await tab.evaluate(FOCUSED)) as Focused;
      seen.push(now);
      if (now.id === 'menu' && (await tab.locator('#menu').getAttribute('aria-expanded')) === 'false')
        await tab.keyboard.press('Enter');
      if (now.where === 'main' && now.tag !== 'main') break;
    }
    return seen;
  }

  it.each(VIEWPORTS)(
    'at $width px: every page fits the width, its screenshot is the viewport wide, Tab reaches the sections and the first control',
    async (viewport) => {
      const { context, tab } = await signedIn(owner, viewport);
      try {
        const pages = await navPages(tab);
        expect(pages).toEqual(
          expect.arrayContaining(['dashboard', 'settings', 'webhooks', 'push', 'audit', 'admins', 'account']),
        );
        const overflowing: string[] = [];
        const keyboard: string[] = [];
        for (const name of pages) {
          await show(tab, name);
          const [scroll, client] = await overflow(tab);
          if (scroll > client) overflowing.push(`${name}: ${scroll} > ${client}`);
          const shot = join(SHOTS, `layout-${name}-${viewport.width}.png`);
          await tab.screenshot({ path: shot, fullPage: true });
          const size = pngSize(shot);
          if (size.width !== viewport.width) overflowing.push(`${name}: screenshot ${size.width} px wide`);
          if (size.height < Math.min(viewport.height, 200))
            overflowing.push(`${name}: screenshot ${size.height} px high`);

          const path = await tabThrough(tab);
          const trail = path.map((f) => `${f.where}:${f.tag}${f.id ? `#${f.id}` : ''}`).join(' → ');
          if (!path.some((f) => f.where === 'nav' && f.tag === 'a')) keyboard.push(`${name}: no nav link (${trail})`);
          const last = path[path.length - 1];
          if ((await mainHasControl(tab)) && (last.where !== 'main' || last.tag === 'main'))
            keyboard.push(`${name}: no control in main (${trail})`);
          // The skip link comes first and is seen when focused.
          if (path[0].cls !== 'skip') keyboard.push(`${name}: the first stop is not the skip link (${trail})`);
        }
        expect({ overflowing, keyboard }).toEqual({ overflowing: [], keyboard: [] });
        // The Menu folds the sections on a phone and only there.
        const menuShown = await tab.locator('#menu').isVisible();
        expect(menuShown).toBe(viewport.width < 760);
      } finally {
        await context.close();
      }
    },
  );

  it('the skip link moves focus to <main> without leaving the page', async () => {
    const { context, tab } = await signedIn(owner, VIEWPORTS[1]);
    try {
      await show(tab, 'audit');
      await fromTheTop(tab);
      await tab.keyboard.press('Tab');
      const skip = tab.locator('a.skip');
      expect(await tab.evaluate('document.activeElement.className')).toBe('skip');
      const box = await skip.boundingBox();
      expect(box && box.x >= 0 && box.y >= 0).toBe(true);
      await tab.keyboard.press('Enter');
      expect(await tab.evaluate('document.activeElement.id')).toBe('main');
      expect(new URL(tab.url()).hash).toBe('#/audit');
      await tab.keyboard.press('Tab');
      expect((await tab.evaluate(FOCUSED)) as Focused).toMatchObject({ where: 'main' });
    } finally {
      await context.close();
    }
  });

  it('asks in the page, Cancel first, Escape cancels; the dialog fits a phone', async () => {
    const { context, tab } = await signedIn(owner, VIEWPORTS[0]);
    try {
      await show(tab, 'settings');
      await tab.getByLabel(/SDK enabled/).uncheck();
      await tab.getByRole('button', { name: 'Save sdk' }).click();
      const dialog = tab.getByRole('dialog', { name: 'Switch the SDK off?' });
      await dialog.waitFor();
      expect(await dialog.innerText()).toContain('SDK: on → off');
      expect(((await tab.evaluate(FOCUSED)) as Focused).text).toBe('Cancel');
      const box = await dialog.boundingBox();
      expect(box!.x).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width).toBeLessThanOrEqual(VIEWPORTS[0].width);
      await tab.screenshot({ path: join(SHOTS, 'layout-confirm-390.png') });
      await tab.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      const cookie = sessionCookie(await login(t, owner));
      const settings = await t.http.get('/app/admin/settings').set('Cookie', cookie);
      expect(settings.body.data.sdk_enabled).toBe(true);
      // Asked again, and answered with the action this time, it saves (then the default returns).
      await tab.getByRole('button', { name: 'Save sdk' }).click();
      await answerConfirm(tab, true);
      await tab.getByRole('status').filter({ hasText: 'SDK: saved' }).waitFor();
      await t.http
        .post('/app/admin/settings/reset')
        .set('Cookie', cookie)
        .set(...CSRF)
        .set('Origin', base)
        .send({ keys: ['sdk_enabled'] });
    } finally {
      await context.close();
    }
  });

  it('in Simplified Chinese (chosen on the account page): every page in it, fitting 390 and 1280 px', async () => {
    const chinese = await createAdmin(t, 'owner');
    const me = async () => {
      const cookie = sessionCookie(await login(t, chinese));
      return (await t.http.get('/app/admin/auth/me').set('Cookie', cookie)).body.data.admin as { locale: string };
    };
    // An English browser: the choice on the account page, not the browser, decides after sign-in.
    const first = await signedIn(chinese, VIEWPORTS[1]);
    try {
      await show(first.tab, 'account');
      await first.tab.getByLabel('Console language').selectOption('zh-CN');
      await until(async () => (await first.tab.evaluate('document.documentElement.lang')) === 'zh-CN', 'lang zh-CN');
      await first.tab.getByRole('heading', { level: 1, name: '我的账号' }).waitFor();
      await first.tab.getByRole('navigation', { name: '控制台栏目' }).getByRole('link', { name: '审计日志' }).waitFor();
      // Focus stays on the select the administrator used.
      expect(await first.tab.evaluate('document.activeElement.id')).toBe('account-locale');
      expect(await first.tab.title()).toBe('我的账号 · IM 管理控制台');
      expect((await me()).locale).toBe('zh-CN');
    } finally {
      await first.context.close();
    }

    for (const viewport of VIEWPORTS) {
      const { context, tab } = await signedIn(chinese, viewport);
      try {
        const found: string[] = [];
        for (const name of await navPages(tab)) {
          await show(tab, name);
          if ((await tab.evaluate('document.documentElement.lang')) !== 'zh-CN') found.push(`${name}: lang`);
          const text = await tab.locator('body').innerText();
          const keys = keysShown(`${text} ${await tab.title()}`);
          if (keys.length) found.push(`${name}: keys shown ${keys.join(', ')}`);
          if (!/[\u4e00-\u9fff]/.test(await tab.locator('main').innerText())) found.push(`${name}: no Chinese in main`);
          if (!(await tab.title()).endsWith(' · IM 管理控制台')) found.push(`${name}: title ${await tab.title()}`);
          const [scroll, client] = await overflow(tab);
          if (scroll > client) found.push(`${name}: ${scroll} > ${client}`);
          const shot = join(SHOTS, `layout-${name}-${viewport.width}-zh-CN.png`);
          await tab.screenshot({ path: shot, fullPage: true });
          if (pngSize(shot).width !== viewport.width) found.push(`${name}: screenshot ${pngSize(shot).width} px wide`);
        }
        expect(found).toEqual([]);
        // Signed out, the console follows the browser's language: English here.
        await tab.locator('#who button').click();
        await tab.locator('input[name=username]').waitFor();
        expect(await tab.evaluate('document.documentElement.lang')).toBe('en');
      } finally {
        await context.close();
      }
    }

    // A Chinese browser shows the sign-in page in Chinese, before anyone is known.
    const zhBrowser = await browser.newContext({ baseURL: base, locale: 'zh-CN' });
    try {
      const tab = await zhBrowser.newPage();
      await tab.goto('/admin');
      await tab.getByRole('heading', { level: 1, name: '登录' }).waitFor();
      expect(await tab.evaluate('document.documentElement.lang')).toBe('zh-CN');
      expect(await tab.getByLabel('用户名').count()).toBe(1);
    } finally {
      await zhBrowser.close();
    }
    expect(problems).toEqual([]);
  });
});
