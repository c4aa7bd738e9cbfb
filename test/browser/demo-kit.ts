// What the demo chat's browser specs share: the service on a port of its own (restartable on the
// same database and port), Chromium pages that collect console errors, and the steps a user
// takes in the page (sign up, find a friend, answer a request, open a chat, send). Every step
// goes through the page's UI and waits for what the page shows, never for time.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { HOST_PASSWORD, randomPhone } from '../helpers/host-app-client';
import { freePort, launchChromium } from './browser-harness';

/** Generous: a loaded 2-core machine runs the service, Chromium and the test at once. */
export const UI_MS = 30_000;
/** A reconnect after an outage waits out the SDK's backoff (up to 25 s) on top. */
export const RECOVERY_MS = 90_000;
/** One scenario: many steps of up to UI_MS each. */
export const SCENARIO_MS = 600_000;

/**
 * Polls from the test side. The page's policy forbids eval, and Playwright's waitForFunction
 * evaluates its predicate with it once the first check fails.
 */
export async function until(check: () => Promise<boolean>, what: string, timeoutMs = UI_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface DemoService {
  base: string;
  browser: Browser;
  /** The running instance (a new one after `restart`). */
  readonly t: TestApp;
  /** Console errors and page errors of every page; `expected` patterns are left out. */
  problems: string[];
  expected: RegExp[];
  page(viewport?: { width: number; height: number }): Promise<Page>;
  /** Stops the service and starts it again on the same database, media folder and port. */
  restart(between?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Builds the SDK's ES module build (the page loads it), starts the service and Chromium. */
export async function startDemoService(): Promise<DemoService> {
  const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'sdk/web/tsconfig.json'], {
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('the Web SDK did not build');
  const database: IsolatedDatabase = await isolatedDatabase();
  const mediaDir = join(tmpdir(), `im-demo-media-${randomBytes(6).toString('hex')}`);
  mkdirSync(mediaDir, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = { ...database.env, PUBLIC_BASE_URL: base, MEDIA_DIR: mediaDir };
  const boot = async () => {
    const app = await startTestApp(env);
    await app.app.listen(port, '127.0.0.1');
    return app;
  };
  let t = await boot();
  const browser = await launchChromium();
  const problems: string[] = [];
  // Before login the page asks for a host session (401).
  const expected = [/status of 401/];
  /** While the service stops, a request it was still answering may fail with a 5xx: expected then, not after. */
  let stopping = false;
  const outage = /status of 5\d\d/;
  return {
    base,
    browser,
    get t() {
      return t;
    },
    problems,
    expected,
    async page(viewport = { width: 1100, height: 760 }) {
      const context = await browser.newContext({ baseURL: base, viewport });
      const tab = await context.newPage();
      tab.on('console', (message) => {
        if (message.type() !== 'error' || expected.some((e) => e.test(message.text()))) return;
        if (!(stopping && outage.test(message.text()))) problems.push(message.text());
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      // The console names no URL: a failing one is recorded with it.
      tab.on('response', (response) => {
        if (response.status() >= 500 && !stopping) problems.push(`HTTP ${response.status()} ${response.url()}`);
      });
      return tab;
    },
    async restart(between) {
      stopping = true;
      try {
        await t.close();
        await between?.();
        t = await boot();
      } finally {
        stopping = false;
      }
    },
    async close() {
      await browser.close().catch(() => undefined);
      await t.close().catch(() => undefined);
      await database.drop();
      rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

export interface DemoUser {
  page: Page;
  nickname: string;
  username: string;
  phone: string;
  userId: string;
}

/** A username no other test uses. */
export const randomUsername = (name: string): string => `${name.toLowerCase()}_${randomBytes(4).toString('hex')}`;

/** Signs up in the page with a username (the SMS code comes from the development inbox); waits until connected. */
export async function signUp(page: Page, nickname: string): Promise<DemoUser> {
  const username = randomUsername(nickname);
  const phone = randomPhone();
  await page.goto('/demo');
  await page.getByRole('button', { name: 'Create an account' }).click();
  await page.getByLabel('Phone').fill(phone);
  await page.getByLabel('Nickname').fill(nickname);
  await page.getByLabel(/^Username/).fill(username);
  await page.getByLabel(/Password/).fill(HOST_PASSWORD);
  await page.getByRole('button', { name: 'Send code' }).click();
  await until(async () => (await page.locator('input[name=code]').inputValue()).length === 6, 'the code');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.locator('#me', { hasText: `@${username}` }).waitFor({ timeout: UI_MS });
  await online(page);
  const userId = await page.locator('#me').getAttribute('data-user');
  return { page, nickname, username, phone, userId: userId! };
}

/** Logs in again with the password, in a new page; answers the user with that page. */
export async function logIn(page: Page, user: DemoUser): Promise<DemoUser> {
  await page.goto('/demo');
  await page.getByLabel('Phone').fill(user.phone);
  await page.getByLabel('Password').fill(HOST_PASSWORD);
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
  await page.locator('#me', { hasText: `@${user.username}` }).waitFor({ timeout: UI_MS });
  await online(page);
  return { ...user, page };
}

/** The page's real-time connection is up. */
export async function online(page: Page, timeout = UI_MS): Promise<void> {
  await page.locator('#connection[data-state="online"]').waitFor({ timeout });
}

export async function tab(page: Page, name: 'Chats' | 'Contacts'): Promise<void> {
  await page.getByRole('tab', { name }).click();
}

/** Finds `to` by username and sends a friend request, in `from`'s page. */
export async function requestFriend(from: DemoUser, to: DemoUser): Promise<void> {
  await tab(from.page, 'Contacts');
  await from.page.getByLabel('Find by username').fill(to.username);
  await from.page.getByRole('button', { name: 'Find', exact: true }).click();
  const found = from.page.locator('#found li.person', { hasText: to.nickname });
  await found.waitFor({ timeout: UI_MS });
  await found.getByRole('button', { name: 'Send friend request' }).click();
  await from.page
    .getByRole('status')
    .filter({ hasText: `Friend request sent to ${to.nickname}` })
    .waitFor();
}

/** A friend request row in `who`'s Contacts (it arrives by a real-time event). */
export function requestRow(who: DemoUser, from: DemoUser) {
  return who.page.locator('#requests li.person', { hasText: from.nickname });
}

/** `to` accepts `from`'s request in the page; both friend lists then show each other. */
export async function acceptFriend(to: DemoUser, from: DemoUser): Promise<void> {
  await tab(to.page, 'Contacts');
  await requestRow(to, from).getByRole('button', { name: 'Accept' }).click({ timeout: UI_MS });
  for (const [who, other] of [
    [to, from],
    [from, to],
  ] as const)
    await friendRow(who, other).waitFor({ timeout: UI_MS });
}

export function friendRow(who: DemoUser, friend: DemoUser) {
  return who.page.locator('#friends li.person', { hasText: friend.nickname });
}

/** A conversation's entry in the home list, by its title. */
export function homeEntry(who: DemoUser, title: string) {
  return who.page.locator('#home button.conversation', { hasText: title });
}

/** Opens a conversation from the home list (Chats). */
export async function openFromHome(who: DemoUser, title: string): Promise<void> {
  await tab(who.page, 'Chats');
  await homeEntry(who, title).click({ timeout: UI_MS });
  await who.page.locator('#chat-title', { hasText: title }).waitFor();
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/** The text of the chat's stored messages (the local echo left out). */
export const bubbles = (page: Page) => page.locator('#messages li[data-seq] .bubble');
export const texts = (page: Page) => bubbles(page).allTextContents();

/** Waits until a stored message with this text is in the chat. */
export async function sees(page: Page, text: string, timeout = UI_MS): Promise<void> {
  await page.locator('#messages li[data-seq] .bubble', { hasText: text }).first().waitFor({ timeout });
}
