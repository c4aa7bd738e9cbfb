// The demo chat (/demo) in headless Chromium (issue 15): two users log in through the bundled
// host application, exchange messages both ways, one loses its connection and then the whole
// network, and after recovery nothing is missing on either side. Then calls (accepted, then
// declined) and their records, a recall, the sender's own recall of the last message in both
// home lists, a refused send, and the layout on a phone-sized screen.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, Page } from 'playwright-core';
import { RealtimeService } from '../../src/realtime/realtime.service';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { ApiClient, friendCid } from '../helpers/api-client';
import { HOST_PASSWORD, randomPhone } from '../helpers/host-app-client';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Polls from the test side. The page's policy forbids eval, and Playwright's waitForFunction
 * evaluates its predicate with it once the first check fails.
 */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type Box = { x: number; y: number; width: number; height: number };
const overlap = (p: Box, q: Box) =>
  p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;

(existsSync(CHROMIUM) ? describe : describe.skip)('demo chat in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    // The page loads the SDK's ES module build.
    const build = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'sdk/web/tsconfig.json'], {
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('the Web SDK did not build');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function page(): Promise<Page> {
    const context = await browser.newContext({ baseURL: base, viewport: { width: 1100, height: 760 } });
    const tab = await context.newPage();
    tab.on('console', (message) => {
      // Expected: the page asks for a host session before login (401), and the socket cannot
      // connect while the test has taken the network away.
      const expected = /status of 401|ERR_INTERNET_DISCONNECTED/;
      if (message.type() === 'error' && !expected.test(message.text())) problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    return tab;
  }

  /** Signs up in the page (the code comes from the development inbox) and returns the IM user ID. */
  async function signUpInPage(tab: Page, nickname: string): Promise<string> {
    await tab.goto('/demo');
    await tab.getByRole('button', { name: 'Create an account' }).click();
    await tab.getByLabel('Phone').fill(randomPhone());
    await tab.getByLabel('Nickname').fill(nickname);
    await tab.getByLabel(/Password/).fill(HOST_PASSWORD);
    await tab.getByRole('button', { name: 'Send code' }).click();
    await until(async () => (await tab.locator('input[name=code]').inputValue()).length === 6, 'the code');
    await tab.getByRole('button', { name: 'Create account' }).click();
    const me = await tab.locator('#me').filter({ hasText: nickname }).textContent();
    return /\(([^)]+)\)$/.exec(me ?? '')![1];
  }

  async function openChat(tab: Page, conversationId: string): Promise<void> {
    const entry = tab.locator(`button[data-conversation="${conversationId}"]`);
    await entry.waitFor();
    await entry.click();
    await tab.getByRole('list', { name: 'Messages' }).waitFor();
  }

  async function send(tab: Page, text: string): Promise<void> {
    await tab.getByLabel('Message', { exact: true }).fill(text);
    await tab.getByRole('button', { name: 'Send', exact: true }).click();
  }

  const texts = (tab: Page) => tab.locator('#messages .bubble').allTextContents();

  it('two users chat both ways, and after a lost connection and a lost network nothing is missing', async () => {
    const [alice, bob] = [await page(), await page()];
    const aliceId = await signUpInPage(alice, 'Alice');
    const bobId = await signUpInPage(bob, 'Bob');
    await alice.screenshot({ path: join(SHOTS, 'demo-home.png'), fullPage: true });

    // Friends, with a first message so both home lists show the conversation.
    const api = new ApiClient(t);
    const [a, b] = [
      await issueUser(t, { user_id: aliceId, nickname: 'Alice' }),
      await issueUser(t, { user_id: bobId, nickname: 'Bob' }),
    ];
    await api.befriend(a, b);
    await api.send(b, friendCid(a), 'hello Alice');
    await alice.reload();
    await bob.reload();
    await openChat(alice, friendCid(b));
    await openChat(bob, friendCid(a));

    await send(alice, 'hi Bob');
    await bob.locator('#messages .bubble', { hasText: 'hi Bob' }).waitFor();
    await send(bob, 'how are you?');
    await alice.locator('#messages .bubble', { hasText: 'how are you?' }).waitFor();
    // Bob has seen Alice's message: her page marks it read.
    await alice.locator('#messages li.mine .meta', { hasText: 'Read' }).first().waitFor();

    // The instance drops every connection; Bob writes while Alice's page reconnects.
    t.app.get(RealtimeService).disconnectAll();
    for (let i = 1; i <= 3; i++) await api.send(b, friendCid(a), `while reconnecting ${i}`);
    // Alice's network goes away entirely; Bob keeps writing; then the network comes back.
    await alice.context().setOffline(true);
    for (let i = 1; i <= 3; i++) await send(bob, `while offline ${i}`);
    await bob.locator('#messages .bubble', { hasText: 'while offline 3' }).waitFor();
    await alice.context().setOffline(false);

    const expected = [
      'hello Alice',
      'hi Bob',
      'how are you?',
      ...[1, 2, 3].map((i) => `while reconnecting ${i}`),
      ...[1, 2, 3].map((i) => `while offline ${i}`),
    ];
    await until(
      async () => (await alice.locator('#messages .bubble').count()) === expected.length,
      'every message',
      20_000,
    );
    expect(await texts(alice)).toEqual(expected);
    expect(await texts(bob)).toEqual(expected);
    await alice.screenshot({ path: join(SHOTS, 'demo-chat-after-recovery.png'), fullPage: true });
    await bob.screenshot({ path: join(SHOTS, 'demo-chat-peer.png'), fullPage: true });

    // An image, uploaded and shown through the SDK (its bytes need the IM token).
    await alice.getByLabel('Send an image').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    const picture = bob.locator('#messages img.image');
    await picture.waitFor();
    await until(
      async () => (await picture.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) > 0,
      'the image loaded',
    );
    expect(await picture.count()).toBe(1);
    await bob.screenshot({ path: join(SHOTS, 'demo-image.png'), fullPage: true });

    // A call: Alice rings, Bob accepts, Alice hangs up; both pages follow the call's states.
    await alice.getByRole('button', { name: 'Audio call', exact: true }).click();
    await alice.getByRole('region', { name: 'Call' }).filter({ hasText: 'Calling' }).waitFor();
    await bob.getByRole('region', { name: 'Call' }).filter({ hasText: 'Incoming audio call' }).waitFor();
    await bob.getByRole('button', { name: 'Accept' }).click();
    await alice.getByRole('region', { name: 'Call' }).filter({ hasText: 'In call' }).waitFor();
    await bob.screenshot({ path: join(SHOTS, 'demo-call.png'), fullPage: true });
    await alice.getByRole('button', { name: 'Hang up' }).click();
    await bob.getByRole('region', { name: 'Call' }).filter({ hasText: 'Call ended' }).waitFor();

    // The service's summary of the call is a call record on both sides (media, result,
    // duration), never a raw bubble, and nobody can recall it, not even the caller who sent it.
    const records = (tab: Page) => tab.locator('#messages li', { has: tab.locator('.bubble.call-record') });
    for (const tab of [alice, bob]) {
      await records(tab).first().waitFor();
      expect(await records(tab).first().locator('.bubble').textContent()).toMatch(/^Audio call · Ended · \d+:\d\d$/);
    }
    expect(await records(alice).getByRole('button', { name: 'Recall' }).count()).toBe(0);
    expect(await alice.locator('#messages .bubble', { hasText: '[call]' }).count()).toBe(0);

    // Declining ends the ringing on both sides at once: the callee's page sends a reason.
    await alice.getByRole('button', { name: 'Audio call', exact: true }).click();
    await bob.getByRole('region', { name: 'Call' }).filter({ hasText: 'Incoming audio call' }).waitFor();
    await bob.getByRole('button', { name: 'Decline' }).click();
    for (const tab of [bob, alice])
      await tab.getByRole('region', { name: 'Call' }).filter({ hasText: 'Call ended: Declined' }).waitFor();
    expect(await bob.getByRole('button', { name: 'Accept' }).count()).toBe(0);
    expect(await alice.getByRole('button', { name: 'Cancel call' }).count()).toBe(0);
    for (const tab of [alice, bob]) await records(tab).filter({ hasText: 'Audio call · Declined' }).waitFor();
    // The home list's preview of the conversation is the same readable summary.
    for (const [tab, peer] of [
      [alice, b],
      [bob, a],
    ] as const)
      await tab
        .locator(`button[data-conversation="${friendCid(peer)}"] small`, { hasText: 'Audio call · Declined' })
        .waitFor();
    await alice.screenshot({ path: join(SHOTS, 'demo-call-record.png'), fullPage: true });

    // Recall from the page: both sides show the tombstone, and a recalled message is not "Read".
    await alice.locator('#messages li.mine', { hasText: 'hi Bob' }).getByRole('button', { name: 'Recall' }).click();
    await bob.locator('#messages .bubble', { hasText: '(recalled)' }).waitFor();
    const tombstone = alice.locator('#messages li.mine', { hasText: '(recalled)' });
    await tombstone.waitFor();
    expect(await tombstone.locator('.meta', { hasText: 'Read' }).count()).toBe(0);

    // The sender's own recall of the conversation's last message: both home lists' previews
    // follow at once, the sender's as well as the peer's (no reload).
    const previews = [
      [alice, b],
      [bob, a],
    ] as const;
    const preview = (tab: Page, peer: { userId: string }) =>
      tab.locator(`button[data-conversation="${friendCid(peer)}"] small`);
    // Alice's real-time frames pass through the test, which can hold them back: the recall's
    // echo then arrives after its HTTP reply, the order in which the page must not depend on
    // the echo to update its list.
    const frames = { holding: false, held: [] as Array<() => void> };
    await alice.routeWebSocket(/\/socket\.io\//, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((frame) => {
        if (frames.holding) frames.held.push(() => ws.send(frame));
        else ws.send(frame);
      });
    });
    await alice.reload();
    await openChat(alice, friendCid(b));
    const syncs = { started: 0, ended: 0 };
    const isSync = (request: { url(): string }) => request.url().endsWith('/app/sdk/sync');
    alice.on('request', (request) => void (isSync(request) && syncs.started++));
    alice.on('requestfinished', (request) => void (isSync(request) && syncs.ended++));
    alice.on('requestfailed', (request) => void (isSync(request) && syncs.ended++));
    await send(alice, 'secret text');
    for (const [tab, peer] of previews) await preview(tab, peer).filter({ hasText: 'secret text' }).waitFor();
    // Bob has read it and Alice's list is at rest, so no earlier event re-renders it after the
    // recall: the recall alone must.
    await alice
      .locator('#messages li.mine', { hasText: 'secret text' })
      .locator('.meta', { hasText: 'Read' })
      .waitFor();
    await until(async () => syncs.started === syncs.ended, "Alice's home list at rest");
    frames.holding = true;
    // "hi Bob" is already a tombstone, so the new one is told apart by the count.
    const tombstones = alice.locator('#messages li.mine .bubble', { hasText: '(recalled)' });
    const tombstonesBefore = await tombstones.count();
    await alice
      .locator('#messages li.mine', { hasText: 'secret text' })
      .getByRole('button', { name: 'Recall' })
      .click();
    // Her chat shows the tombstone from the reply; only then does the echo come through.
    await until(async () => (await tombstones.count()) === tombstonesBefore + 1, 'the tombstone from the reply');
    expect(await alice.locator('#messages .bubble', { hasText: 'secret text' }).count()).toBe(0);
    frames.holding = false;
    for (const release of frames.held.splice(0)) release();
    for (const [tab, peer] of previews) await preview(tab, peer).filter({ hasText: '(recalled)' }).waitFor();
    for (const [tab] of previews) expect(await tab.locator('#home', { hasText: 'secret text' }).count()).toBe(0);

    // A refused send keeps its text for another try; the status line says why without covering
    // the file input, and clears with the next success.
    await alice.setViewportSize({ width: 1100, height: 420 });
    const tooLong = 'x'.repeat(5001);
    await send(alice, tooLong);
    const status = alice.getByRole('status');
    await status.filter({ hasText: 'content.text' }).waitFor();
    expect(await alice.getByLabel('Message', { exact: true }).inputValue()).toHaveLength(tooLong.length);
    // To the page's end, where the send form is (a page that scrolls as a whole puts it there).
    await alice.evaluate(() => {
      const view = globalThis as unknown as { scrollTo(x: number, y: number): void };
      view.scrollTo(0, Number.MAX_SAFE_INTEGER);
    });
    const [line, picker] = [await status.boundingBox(), await alice.locator('label.image').boundingBox()];
    expect(line && picker).toBeTruthy();
    expect(overlap(line!, picker!)).toBe(false);
    await alice.screenshot({ path: join(SHOTS, 'demo-refused-send.png') });
    await send(alice, 'shorter now');
    await bob.locator('#messages .bubble', { hasText: 'shorter now' }).waitFor();
    await until(async () => (await status.textContent()) === '', 'the status line cleared');
    expect(await alice.getByLabel('Message', { exact: true }).inputValue()).toBe('');

    // A phone-sized screen: no horizontal scroll, and the send form, the file input and one's
    // own (right-aligned) messages are on screen.
    await alice.setViewportSize({ width: 380, height: 800 });
    const widths = await alice.evaluate(() => {
      const page = (
        globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }
      ).document.scrollingElement;
      return { scroll: page.scrollWidth, client: page.clientWidth };
    });
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    // Nor does the main area scroll sideways in place of the page.
    const main = await alice.locator('#main').evaluate((el) => {
      const box = el as unknown as { scrollWidth: number; clientWidth: number };
      return { scroll: box.scrollWidth, client: box.clientWidth };
    });
    expect(main.scroll).toBeLessThanOrEqual(main.client);
    const controls = {
      send: alice.getByRole('button', { name: 'Send', exact: true }),
      file: alice.locator('form.send input[type=file]'),
      message: alice.getByLabel('Message', { exact: true }),
      own: alice.locator('#messages li.mine .bubble').last(),
      chats: alice.locator(`button[data-conversation="${friendCid(b)}"]`),
    };
    const offScreen: string[] = [];
    for (const [name, control] of Object.entries(controls)) {
      const box = await control.boundingBox();
      if (!box || box.x < 0 || box.y < 0 || box.x + box.width > 380 || box.y + box.height > 800) offScreen.push(name);
    }
    expect(offScreen).toEqual([]);
    await alice.screenshot({ path: join(SHOTS, 'demo-narrow.png') });
    expect(problems).toEqual([]);
  });

  it('is not served in production', async () => {
    const production = await startTestApp({ NODE_ENV: 'production', HOST_APP_ENABLED: 'false' });
    try {
      const response = await production.http.get('/demo');
      expect({ status: response.status, code: response.body.code }).toEqual({ status: 404, code: 1004 });
    } finally {
      await production.close();
    }
  });
});
