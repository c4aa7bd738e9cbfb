// The demo chat (/demo) in headless Chromium: two users go from nothing to a conversation
// through the page alone (sign up, find by username, a friend request made and accepted, a chat
// both ways with unread badges and read marks), then an image, a recall that the page shows
// before its real-time echo, a refused send whose text stays in the input, and the layout on a
// phone-sized screen (one column).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { startTestApp } from '../helpers/test-app';
import { SHOTS } from './browser-harness';
import {
  DemoService,
  SCENARIO_MS,
  UI_MS,
  acceptFriend,
  friendRow,
  homeEntry,
  openFromHome,
  requestFriend,
  requestRow,
  send,
  sees,
  signUp,
  startDemoService,
  tab,
  texts,
  until,
} from './demo-kit';
import { CHROMIUM } from './ensure-chromium';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

type Box = { x: number; y: number; width: number; height: number };
const overlap = (p: Box, q: Box) =>
  p.x < q.x + q.width && q.x < p.x + p.width && p.y < q.y + q.height && q.y < p.y + p.height;

(existsSync(CHROMIUM) ? describe : describe.skip)('demo chat in Chromium: from nothing to a conversation', () => {
  let demo: DemoService;

  beforeAll(async () => {
    demo = await startDemoService();
  }, 180_000);
  afterAll(async () => {
    await demo?.close();
  });

  it(
    'two users sign up, become friends in the page and chat both ways',
    async () => {
      const alice = await signUp(await demo.page(), 'Alice');
      const bob = await signUp(await demo.page(), 'Bob');
      await alice.page.screenshot({ path: join(SHOTS, 'demo-home.png'), fullPage: true });
      // Nothing yet: no conversation, no friend.
      await alice.page.locator('#home .empty', { hasText: 'No conversations yet' }).waitFor();

      // A first request is rejected; Bob asks again and Alice accepts.
      await requestFriend(alice, bob);
      await tab(bob.page, 'Contacts');
      await requestRow(bob, alice).getByRole('button', { name: 'Reject' }).click({ timeout: UI_MS });
      await bob.page.getByRole('status').filter({ hasText: 'Request rejected' }).waitFor();
      await alice.page.locator('#requests li.person', { hasText: bob.nickname }).waitFor({ state: 'detached' });
      expect(await friendRow(alice, bob).count()).toBe(0);
      await requestFriend(bob, alice);
      await requestRow(alice, bob).waitFor({ timeout: UI_MS });
      await alice.page.screenshot({ path: join(SHOTS, 'demo-contacts.png'), fullPage: true });
      await acceptFriend(alice, bob);

      // Alice starts the chat from her friends; Bob sees it arrive with its unread badge.
      await friendRow(alice, bob).getByRole('button', { name: 'Chat' }).click();
      await alice.page.locator('#chat-title', { hasText: bob.nickname }).waitFor();
      // Bob is online, as the chat's title and her friends list show.
      await alice.page.locator('#chat-title .dot.online').waitFor({ timeout: UI_MS });
      await tab(alice.page, 'Contacts');
      await friendRow(alice, bob).locator('.dot.online').waitFor();
      await send(alice.page, 'hi Bob');
      await sees(alice.page, 'hi Bob');
      await tab(bob.page, 'Chats');
      await homeEntry(bob, alice.nickname).locator('.badge', { hasText: '1' }).waitFor({ timeout: UI_MS });
      await bob.page.locator('#badge', { hasText: '1' }).waitFor();
      await openFromHome(bob, alice.nickname);
      await sees(bob.page, 'hi Bob');
      // Opened and seen: the badges clear, and Alice's page marks her message read.
      await homeEntry(bob, alice.nickname).locator('.badge').waitFor({ state: 'detached', timeout: UI_MS });
      await until(async () => (await bob.page.locator('#badge').textContent()) === '', 'the header badge cleared');
      await alice.page.locator('#messages li.mine', { hasText: 'hi Bob' }).locator('.read').waitFor({ timeout: UI_MS });

      await send(bob.page, 'how are you?');
      await sees(alice.page, 'how are you?');
      await send(alice.page, 'fine, thanks');
      await sees(bob.page, 'fine, thanks');
      const expected = ['hi Bob', 'how are you?', 'fine, thanks'];
      for (const user of [alice, bob]) expect(await texts(user.page)).toEqual(expected);
      // The home list's preview and time follow the last message.
      for (const [user, peer] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        await tab(user.page, 'Chats');
        await homeEntry(user, peer.nickname).locator('.preview', { hasText: 'fine, thanks' }).waitFor();
        expect(await homeEntry(user, peer.nickname).locator('time').count()).toBe(1);
      }
      await alice.page.screenshot({ path: join(SHOTS, 'demo-chat.png'), fullPage: true });

      // An image, uploaded and shown through the SDK (its bytes need the IM token).
      await alice.page
        .getByLabel('Send an image')
        .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
      const picture = bob.page.locator('#messages img.image');
      await picture.waitFor({ timeout: UI_MS });
      await until(
        async () => (await picture.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) > 0,
        'the image loaded',
      );
      await homeEntry(bob, alice.nickname).locator('.preview', { hasText: '[Image]' }).waitFor();

      await recallBeforeItsEcho(alice.page, bob.page, alice.nickname, bob.nickname);
      await refusedSendKeepsItsText(alice.page, bob.page);
      await narrowScreen(alice.page, bob.nickname);
      expect(demo.problems).toEqual([]);
    },
    SCENARIO_MS,
  );

  /**
   * Recall from the page: both sides show the tombstone and both home lists' previews follow.
   * Alice's real-time frames pass through the test, which holds them back: her page must show
   * the recall from its HTTP reply, not wait for the echo.
   */
  async function recallBeforeItsEcho(alice: Page, bob: Page, aliceName: string, bobName: string): Promise<void> {
    const frames = { holding: false, held: [] as Array<() => void> };
    await alice.routeWebSocket(/\/socket\.io\//, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((frame) => {
        if (frames.holding) frames.held.push(() => ws.send(frame));
        else ws.send(frame);
      });
    });
    await alice.reload();
    await alice.locator('#connection[data-state="online"]').waitFor({ timeout: UI_MS });
    await alice.locator('#home button.conversation', { hasText: bobName }).click({ timeout: UI_MS });
    await send(alice, 'secret text');
    const preview = (page: Page, title: string) =>
      page.locator('#home button.conversation', { hasText: title }).locator('.preview');
    await preview(alice, bobName).filter({ hasText: 'secret text' }).waitFor({ timeout: UI_MS });
    await preview(bob, aliceName).filter({ hasText: 'secret text' }).waitFor({ timeout: UI_MS });
    const own = alice.locator('#messages li.mine[data-seq]', { hasText: 'secret text' });
    await own.locator('.read').waitFor({ timeout: UI_MS });
    frames.holding = true;
    await own.getByRole('button', { name: 'Recall' }).click();
    await alice.locator('#messages li.mine .bubble.tombstone', { hasText: '(recalled)' }).waitFor();
    await preview(alice, bobName).filter({ hasText: '(recalled)' }).waitFor();
    expect(await alice.locator('#messages .bubble', { hasText: 'secret text' }).count()).toBe(0);
    frames.holding = false;
    for (const release of frames.held.splice(0)) release();
    await bob.locator('#messages .bubble.tombstone', { hasText: '(recalled)' }).waitFor({ timeout: UI_MS });
    await preview(bob, aliceName).filter({ hasText: '(recalled)' }).waitFor({ timeout: UI_MS });
  }

  /** A refused send: its text is back in the input, the status says why and clears with the next success. */
  async function refusedSendKeepsItsText(alice: Page, bob: Page): Promise<void> {
    await alice.setViewportSize({ width: 1100, height: 460 });
    const tooLong = 'x'.repeat(5001);
    await send(alice, tooLong);
    const status = alice.locator('#status');
    await status.filter({ hasText: 'content.text' }).waitFor({ timeout: UI_MS });
    expect(await alice.getByLabel('Message', { exact: true }).inputValue()).toHaveLength(tooLong.length);
    // Refused, so no "Not sent" echo stays behind.
    expect(await alice.locator('#messages li.failed').count()).toBe(0);
    const [line, picker] = [await status.boundingBox(), await alice.locator('label.image').boundingBox()];
    expect(line && picker).toBeTruthy();
    expect(overlap(line!, picker!)).toBe(false);
    await alice.screenshot({ path: join(SHOTS, 'demo-refused-send.png') });
    await send(alice, 'shorter now');
    await sees(bob, 'shorter now');
    await until(async () => (await status.textContent()) === '', 'the status line cleared');
    expect(await alice.getByLabel('Message', { exact: true }).inputValue()).toBe('');
  }

  /** 390 px: one column, nothing wider than the screen, the chat's controls on screen, Back to the list. */
  async function narrowScreen(alice: Page, bobName: string): Promise<void> {
    const [width, height] = [390, 780];
    await alice.setViewportSize({ width, height });
    const sideways = async () =>
      alice.evaluate(() => {
        type Box = { scrollWidth: number; clientWidth: number };
        const doc = (globalThis as unknown as { document: { scrollingElement: Box; getElementById(id: string): Box } })
          .document;
        const main = doc.getElementById('main');
        return [doc.scrollingElement, main].map((el) => el.scrollWidth - el.clientWidth);
      });
    const onScreen = async (controls: Record<string, ReturnType<Page['locator']>>) => {
      const off: string[] = [];
      for (const [name, control] of Object.entries(controls)) {
        const box = await control.boundingBox();
        if (!box || box.x < 0 || box.y < 0 || box.x + box.width > width || box.y + box.height > height) off.push(name);
      }
      return off;
    };
    // The chat fills the screen; the list is behind "Back".
    expect(await sideways()).toEqual([0, 0]);
    expect(
      await onScreen({
        back: alice.getByRole('button', { name: 'Back' }),
        send: alice.getByRole('button', { name: 'Send', exact: true }),
        message: alice.getByLabel('Message', { exact: true }),
        file: alice.locator('form.send input[type=file]'),
        own: alice.locator('#messages li.mine .bubble').last(),
        call: alice.getByRole('button', { name: 'Audio call', exact: true }),
      }),
    ).toEqual([]);
    expect(await alice.locator('#home').isVisible()).toBe(false);
    await alice.screenshot({ path: join(SHOTS, 'demo-narrow-chat.png') });
    await alice.getByRole('button', { name: 'Back' }).click();
    const entry = alice.locator('#home button.conversation', { hasText: bobName });
    await entry.waitFor();
    expect(await alice.locator('#chat').isVisible()).toBe(false);
    expect(await sideways()).toEqual([0, 0]);
    expect(await onScreen({ entry, contacts: alice.getByRole('tab', { name: 'Contacts' }) })).toEqual([]);
    await alice.screenshot({ path: join(SHOTS, 'demo-narrow-list.png') });
    await alice.getByRole('tab', { name: 'Contacts' }).click();
    expect(await sideways()).toEqual([0, 0]);
    await alice.screenshot({ path: join(SHOTS, 'demo-narrow-contacts.png') });
  }

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
