// What the console's browser specs share about the page itself: the sections its navigation
// offers (so a page added to the nav is covered by every spec reading it) and the in-page
// confirmation dialog (dom.js confirmAction), answered as an administrator would.
import type { Page } from 'playwright-core';
import { CSRF, login, sessionCookie } from '../helpers/admin-client';
import { consoleStrings } from '../helpers/console-strings';
import type { TestApp } from '../helpers/test-app';

/** The paths of the sections in the console's navigation (#nav), in its order: "dashboard", … */
export async function navPages(tab: Page): Promise<string[]> {
  const links = tab.locator('#nav a');
  await links.first().waitFor({ state: 'attached' });
  const hrefs = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  return hrefs.map((href) => href.replace(/^#\//, '')).filter(Boolean);
}

/**
 * Waits for the in-page confirmation, returns its text (title and body) and answers it: the
 * action when `accept`, otherwise Cancel (the dialog's first button, whatever its language).
 */
export async function answerConfirm(tab: Page, accept: boolean): Promise<string> {
  const dialog = tab.locator('dialog.confirm[open]');
  await dialog.waitFor();
  const text = await dialog.innerText();
  await dialog
    .locator('.actions button')
    .nth(accept ? 1 : 0)
    .click();
  await dialog.waitFor({ state: 'detached' });
  return text;
}

/** Sets `username`'s console language through the API (POST auth/locale), as the account page does. */
export async function setAdminLocale(t: TestApp, base: string, username: string, locale: string): Promise<void> {
  const cookie = sessionCookie(await login(t, username));
  const reply = await t.http
    .post('/app/admin/auth/locale')
    .set('Cookie', cookie)
    .set(...CSRF)
    .set('Origin', base)
    .send({ locale });
  if (reply.body.code !== 0) throw new Error(`auth/locale: ${JSON.stringify(reply.body)}`);
}

/**
 * Keys of the strings files showing as text: a string that is missing from the language's file
 * shows as its key (i18n.js t()), e.g. "settings.sdk.title". Returns the ones found in `text`.
 */
export function keysShown(text: string): string[] {
  const keys = new Set(Object.keys(consoleStrings('en')));
  return [...new Set(text.match(/\b[a-z-]+\.[a-z0-9_.-]+\b/g) ?? [])].filter((word) => keys.has(word));
}
