// The demo chat (/demo) in headless Chromium: the service is stopped and started again in the
// middle of a conversation (same database, same port). A send that the service stored just
// before it stopped, but whose reply never reached the page, and sends made while it was down,
// all end up in both windows exactly once, in one order, with nothing left "Not sent".
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
import { SHOTS } from './browser-harness';
import {
  DemoService,
  SCENARIO_MS,
  RECOVERY_MS,
  UI_MS,
  acceptFriend,
  friendRow,
  homeEntry,
  online,
  openFromHome,
  requestFriend,
  send,
  sees,
  signUp,
  startDemoService,
  texts,
  until,
} from './demo-kit';
import { CHROMIUM } from './ensure-chromium';

(existsSync(CHROMIUM) ? describe : describe.skip)('demo chat in Chromium: the service restarted', () => {
  let demo: DemoService;

  beforeAll(async () => {
    demo = await startDemoService();
    // While the service is down the pages' requests and socket cannot connect.
    demo.expected.push(
      /ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_EMPTY_RESPONSE|ERR_FAILED|WebSocket connection/,
    );
  }, 180_000);
  afterAll(async () => {
    await demo?.close();
  });

  const notSent = (page: Page) => page.locator('#messages li.failed');

  it(
    'loses and doubles nothing in either window',
    async () => {
      const alice = await signUp(await demo.page(), 'Alice');
      const bob = await signUp(await demo.page(), 'Bob');
      await requestFriend(alice, bob);
      await acceptFriend(bob, alice);
      await friendRow(alice, bob).getByRole('button', { name: 'Chat' }).click();
      await send(alice.page, 'before 1');
      await openFromHome(bob, alice.nickname);
      await sees(bob.page, 'before 1');
      await send(bob.page, 'before 2');
      await sees(alice.page, 'before 2');

      // Alice's next send reaches the service, which stores it; its reply is held back by the test
      // and lost when the service stops.
      let stored!: () => void;
      const reachedService = new Promise<void>((resolve) => (stored = resolve));
      let dropReply!: () => void;
      const replyDropped = new Promise<void>((resolve) => (dropReply = resolve));
      await alice.page.route(
        '**/app/sdk/messages/send',
        async (route) => {
          await route.fetch();
          stored();
          await replyDropped;
          await route.abort('connectionreset');
        },
        { times: 1 },
      );
      await send(alice.page, 'in flight at the stop');
      await reachedService;

      await demo.restart(async () => {
        dropReply();
        // Down: both pages see it, and what they send now cannot leave.
        for (const user of [alice, bob])
          await user.page.locator('#connection[data-state="offline"]').waitFor({ timeout: UI_MS });
        await send(alice.page, 'while down from Alice');
        await send(bob.page, 'while down from Bob');
        for (const user of [alice, bob]) await notSent(user.page).first().waitFor({ timeout: UI_MS });
        await bob.page.screenshot({ path: join(SHOTS, 'demo-restart-down.png'), fullPage: true });
      });

      // Back: both reconnect, the failed sends go again by themselves, and the talk goes on.
      for (const user of [alice, bob]) await online(user.page, RECOVERY_MS);
      for (const user of [alice, bob])
        await until(async () => (await notSent(user.page).count()) === 0, 'no "Not sent" left');
      await send(bob.page, 'after');
      await sees(alice.page, 'after');
      const all = [
        'before 1',
        'before 2',
        'in flight at the stop',
        'while down from Alice',
        'while down from Bob',
        'after',
      ];
      for (const user of [alice, bob])
        await until(async () => (await texts(user.page)).length >= all.length, 'every message', RECOVERY_MS);
      const [seenByAlice, seenByBob] = [await texts(alice.page), await texts(bob.page)];
      // One order for both, each message once; the two sent while down in either order.
      expect(seenByAlice).toEqual(seenByBob);
      expect([...seenByAlice].sort()).toEqual([...all].sort());
      expect(seenByAlice.slice(0, 3)).toEqual(all.slice(0, 3));
      expect(seenByAlice.at(-1)).toBe('after');
      // Nothing pending is left in the pages either.
      for (const user of [alice, bob]) expect(await user.page.locator('#messages li[data-local]').count()).toBe(0);
      await homeEntry(alice, bob.nickname).locator('.preview', { hasText: 'after' }).waitFor();
      await alice.page.screenshot({ path: join(SHOTS, 'demo-restart-after.png'), fullPage: true });
      expect(demo.problems).toEqual([]);
    },
    SCENARIO_MS,
  );
});
