// The demo chat (/demo) in headless Chromium: audio calls between two friends, as each side's
// call bar shows them (the SDK's call store): one declined, one accepted and hung up, and their
// call records in both chats and home lists. Only the signalling: no audio flows.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Page } from 'playwright-core';
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
  send,
  sees,
  signUp,
  startDemoService,
} from './demo-kit';
import { CHROMIUM } from './ensure-chromium';

(existsSync(CHROMIUM) ? describe : describe.skip)('demo chat in Chromium: audio calls', () => {
  let demo: DemoService;

  beforeAll(async () => {
    demo = await startDemoService();
  }, 180_000);
  afterAll(async () => {
    await demo?.close();
  });

  const bar = (page: Page) => page.getByRole('region', { name: 'Call' });
  const showsCall = (page: Page, text: string | RegExp) =>
    bar(page).filter({ hasText: text }).waitFor({ timeout: UI_MS });
  const records = (page: Page) => page.locator('#messages li[data-seq]', { has: page.locator('.bubble.call-record') });

  it(
    'a call declined, and a call accepted and hung up, on both sides',
    async () => {
      const alice = await signUp(await demo.page(), 'Alice');
      const bob = await signUp(await demo.page(), 'Bob');
      await requestFriend(alice, bob);
      await acceptFriend(bob, alice);
      await friendRow(alice, bob).getByRole('button', { name: 'Chat' }).click();
      await send(alice.page, 'can I call you?');
      await openFromHome(bob, alice.nickname);
      await sees(bob.page, 'can I call you?');

      // Declined: Alice rings, Bob's page rings back ("Ringing"), Bob declines; both bars say so.
      await alice.page.getByRole('button', { name: 'Audio call', exact: true }).click();
      await showsCall(bob.page, `Incoming audio call from ${alice.nickname}`);
      await showsCall(alice.page, `Ringing ${bob.nickname}…`);
      await bob.page.screenshot({ path: join(SHOTS, 'demo-call-incoming.png'), fullPage: true });
      await bar(bob.page).getByRole('button', { name: 'Decline' }).click();
      for (const user of [alice, bob]) await showsCall(user.page, 'Call ended: Declined');
      expect(await bar(bob.page).getByRole('button', { name: 'Accept' }).count()).toBe(0);
      expect(await bar(alice.page).getByRole('button', { name: 'Cancel call' }).count()).toBe(0);
      // The service's record of it, in both chats and as both home lists' preview.
      for (const [user, peer] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        await records(user.page).filter({ hasText: 'Audio call · Declined' }).waitFor({ timeout: UI_MS });
        await homeEntry(user, peer.nickname)
          .locator('.preview', { hasText: 'Audio call · Declined' })
          .waitFor({ timeout: UI_MS });
      }
      await alice.page.screenshot({ path: join(SHOTS, 'demo-call-declined.png'), fullPage: true });
      await bar(alice.page).getByRole('button', { name: 'Close' }).click();
      await bar(alice.page).waitFor({ state: 'hidden' });

      // Accepted: both are in the call; Alice hangs up and both bars end it.
      await alice.page.getByRole('button', { name: 'Audio call', exact: true }).click();
      await showsCall(bob.page, 'Incoming audio call');
      await bar(bob.page).getByRole('button', { name: 'Accept' }).click();
      await showsCall(bob.page, `In call with ${alice.nickname}`);
      await showsCall(alice.page, `In call with ${bob.nickname}`);
      await alice.page.screenshot({ path: join(SHOTS, 'demo-call-ongoing.png'), fullPage: true });
      await bar(alice.page).getByRole('button', { name: 'Hang up' }).click();
      for (const user of [alice, bob]) {
        await showsCall(user.page, /^Call ended( · \d+:\d\d)?/);
        expect(await bar(user.page).getByRole('button', { name: 'Hang up' }).count()).toBe(0);
      }
      // Its record: media, result and the time talked; nobody can recall it, not even the caller.
      for (const user of [alice, bob]) {
        const record = records(user.page).filter({ hasText: 'Ended' });
        await record.waitFor({ timeout: UI_MS });
        expect(await record.locator('.bubble').textContent()).toMatch(/^Audio call · Ended · \d+:\d\d$/);
        expect(await record.getByRole('button', { name: 'Recall' }).count()).toBe(0);
      }
      expect(await alice.page.locator('#messages .bubble', { hasText: '[call]' }).count()).toBe(0);
      await bob.page.screenshot({ path: join(SHOTS, 'demo-call-record.png'), fullPage: true });
      expect(demo.problems).toEqual([]);
    },
    SCENARIO_MS,
  );
});
