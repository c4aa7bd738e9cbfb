// The demo chat (/demo) in headless Chromium: three users who became friends in the page make a
// group there and see each other's messages (with the sender's name), typing and presence.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS } from './browser-harness';
import {
  DemoService,
  SCENARIO_MS,
  DemoUser,
  UI_MS,
  acceptFriend,
  homeEntry,
  logIn,
  openFromHome,
  requestFriend,
  send,
  sees,
  signUp,
  startDemoService,
  tab,
  texts,
  until,
} from './demo-kit';
import { CHROMIUM } from './ensure-chromium';

(existsSync(CHROMIUM) ? describe : describe.skip)('demo chat in Chromium: a group of three', () => {
  let demo: DemoService;

  beforeAll(async () => {
    demo = await startDemoService();
  }, 180_000);
  afterAll(async () => {
    await demo?.close();
  });

  /** A member's presence dot in `who`'s members panel of the open group chat. */
  const memberDot = (who: DemoUser, member: DemoUser) =>
    who.page.locator(`#chat-extra li.person[data-user="${member.userId}"] .dot`);

  it(
    'three users see each other’s messages, typing and presence',
    async () => {
      const alice = await signUp(await demo.page(), 'Alice');
      const bob = await signUp(await demo.page(), 'Bob');
      let carol = await signUp(await demo.page(), 'Carol');
      // Everyone befriends everyone, in the page.
      for (const [from, to] of [
        [alice, bob],
        [alice, carol],
        [bob, carol],
      ] as const) {
        await requestFriend(from, to);
        await acceptFriend(to, from);
      }

      // Alice makes the group alone; it opens for her. She adds Bob from her friends, and gives
      // Carol an invitation code, with which Carol joins.
      await tab(alice.page, 'Contacts');
      await alice.page.getByLabel('Group name').fill('Trio');
      await alice.page.getByRole('button', { name: 'Create group' }).click();
      await alice.page.locator('#chat-title', { hasText: 'Trio' }).waitFor({ timeout: UI_MS });
      await alice.page.getByRole('button', { name: 'Members' }).click();
      const invite = alice.page.getByRole('form', { name: 'Add members' });
      await invite.getByLabel(bob.nickname).check({ timeout: UI_MS });
      await invite.getByRole('button', { name: 'Add' }).click();
      await alice.page.locator('#chat-extra li.person', { hasText: bob.nickname }).waitFor({ timeout: UI_MS });
      await openFromHome(bob, 'Trio');
      await alice.page.getByRole('button', { name: 'Invitation code' }).click();
      const code = await alice.page.locator('#invitation-code').textContent({ timeout: UI_MS });
      expect(code).toMatch(/^[A-Za-z0-9_-]{24}$/);
      await tab(carol.page, 'Contacts');
      await carol.page.getByLabel('Invitation code').fill(code!);
      await carol.page.getByRole('button', { name: 'Join', exact: true }).click();
      await carol.page.locator('#chat-title', { hasText: 'Trio' }).waitFor({ timeout: UI_MS });
      await alice.page.locator('#chat-extra li.person', { hasText: carol.nickname }).waitFor({ timeout: UI_MS });
      await alice.page.getByRole('button', { name: 'Members' }).click();

      // Messages from each reach the other two, in one order, with the sender's name.
      await send(alice.page, 'hello from Alice');
      await sees(bob.page, 'hello from Alice');
      await sees(carol.page, 'hello from Alice');
      await send(bob.page, 'hello from Bob');
      await sees(carol.page, 'hello from Bob');
      await send(carol.page, 'hello from Carol');
      for (const user of [alice, bob]) await sees(user.page, 'hello from Carol');
      const expected = ['hello from Alice', 'hello from Bob', 'hello from Carol'];
      for (const user of [alice, bob, carol]) expect(await texts(user.page)).toEqual(expected);
      const byBob = alice.page.locator('#messages li[data-seq]', { hasText: 'hello from Bob' });
      expect(await byBob.locator('.sender').textContent()).toContain(bob.nickname);
      await homeEntry(bob, 'Trio').locator('.preview', { hasText: 'Carol: hello from Carol' }).waitFor();

      // Typing: Bob types slowly; the others see it while he types, and no longer once he sent.
      const composer = bob.page.getByLabel('Message', { exact: true });
      const typing = composer.pressSequentially('what are we doing tonight', { delay: 150 });
      for (const user of [alice, carol])
        await user.page.locator('#typing', { hasText: `${bob.nickname} is typing…` }).waitFor({ timeout: UI_MS });
      await homeEntry(alice, 'Trio')
        .locator('.typing', { hasText: `${bob.nickname} is typing…` })
        .waitFor();
      await alice.page.screenshot({ path: join(SHOTS, 'demo-group-typing.png'), fullPage: true });
      await typing;
      await bob.page.getByRole('button', { name: 'Send', exact: true }).click();
      for (const user of [alice, carol]) {
        await sees(user.page, 'what are we doing tonight');
        await until(async () => (await user.page.locator('#typing').textContent()) === '', 'the typing line cleared');
      }

      // Presence: all three are online, and each sees the other two so in the group's members.
      // Carol logs out; Alice and Bob see her offline, then online again when she logs back in,
      // and her page has every message.
      for (const user of [alice, bob, carol]) await user.page.getByRole('button', { name: 'Members' }).click();
      for (const [user, others] of [
        [alice, [bob, carol]],
        [bob, [alice, carol]],
        [carol, [alice, bob]],
      ] as const)
        for (const other of others)
          await memberDot(user, other).and(user.page.locator('.dot.online')).waitFor({ timeout: UI_MS });
      await carol.page.getByRole('button', { name: 'Log out' }).click();
      await carol.page.getByRole('button', { name: 'Log in', exact: true }).waitFor();
      expect(await carol.page.locator('#me').textContent()).toBe('');
      for (const user of [alice, bob])
        await memberDot(user, carol).and(user.page.locator('[aria-label^="offline"]')).waitFor({ timeout: UI_MS });
      await alice.page.screenshot({ path: join(SHOTS, 'demo-group-presence.png'), fullPage: true });
      await send(alice.page, 'while Carol is away');
      carol = await logIn(carol.page, carol);
      for (const user of [alice, bob])
        await memberDot(user, carol).and(user.page.locator('.dot.online')).waitFor({ timeout: UI_MS });
      // What she had not seen is unread.
      await homeEntry(carol, 'Trio').locator('.badge').waitFor({ timeout: UI_MS });
      await openFromHome(carol, 'Trio');
      await sees(carol.page, 'while Carol is away');
      expect(await texts(carol.page)).toEqual([...expected, 'what are we doing tonight', 'while Carol is away']);
      expect(demo.problems).toEqual([]);
    },
    SCENARIO_MS,
  );
});
