// The Web SDK's presence and typing stores (client.presence, client.typing) against the real
// service, with two and three real SDK clients: friends coming online and going offline, a
// friendship ending, typing relayed in a group and one-to-one (each receiver's own
// conversation ID), throttled to the service's one notice a second, cleared by the typer's
// message and expiring without one.
import type { ImClient } from '../../sdk/web/src/index';
import { ApiClient, IssuedUser, friendCid, groupCid } from '../helpers/api-client';
import { TestApp, issueUser } from '../helpers/test-app';
import { SdkUnderTest, hostProvider, sdkClient, until, useSdkApp } from './sdk-harness';

const person = (t: TestApp): Promise<IssuedUser> => issueUser(t, { nickname: 'SDK user' });

async function loggedIn(
  app: { base: string; t: TestApp; clients: ImClient[] },
  user: IssuedUser,
): Promise<SdkUnderTest> {
  const sdk = sdkClient(app.base, hostProvider(app.t, () => user.userId).fn, app.clients);
  await sdk.c.login();
  await until(() => sdk.readies.length >= 1, 'ready');
  return sdk;
}

describe('Web SDK stores: presence', () => {
  const app = useSdkApp();
  let api: ApiClient;
  beforeAll(() => ({ api } = app));

  it('shows a friend coming online and going offline, and forgets them when the friendship ends', async () => {
    const [me, a, stranger] = [await person(app.t), await person(app.t), await person(app.t)];
    await api.befriend(me, a);
    const mine = await loggedIn(app, me);
    expect(mine.c.presence.get(a.userId)).toBeUndefined();
    const theirs = await loggedIn(app, a);
    await until(() => mine.c.presence.isOnline(a.userId), 'a online');
    expect(mine.c.presence.get(a.userId)).toEqual({ online: true, last_seen_at: null });
    await loggedIn(app, stranger);
    theirs.c.logout();
    await until(() => mine.c.presence.get(a.userId)?.online === false, 'a offline');
    expect(mine.c.presence.get(a.userId)?.last_seen_at).toEqual(expect.any(Number));
    // Not a friend: never heard of.
    expect(mine.c.presence.get(stranger.userId)).toBeUndefined();
    await api.unfriend(a, me);
    await until(() => mine.c.presence.get(a.userId) === undefined, 'a forgotten');
  });
});

describe('Web SDK stores: presence read from the service', () => {
  const app = useSdkApp();
  let api: ApiClient;
  beforeAll(() => ({ api } = app));

  it('reads the presence of friends already online when the user arrives, and follows it from there', async () => {
    const [me, a, b, stranger] = [await person(app.t), await person(app.t), await person(app.t), await person(app.t)];
    await api.befriend(me, a);
    await api.befriend(me, b);
    const theirs = await loggedIn(app, a);
    await loggedIn(app, stranger);
    const mine = await loggedIn(app, me);
    const store = mine.c.presence;
    // Read at the login's recovery.
    await until(() => store.get(a.userId) && store.get(b.userId), 'the friends read');
    expect(store.get(a.userId)).toEqual({ online: true, last_seen_at: null });
    expect(store.get(b.userId)).toEqual({ online: false, last_seen_at: null });
    expect(store.get(stranger.userId)).toBeUndefined();
    theirs.c.logout();
    await until(() => store.get(a.userId)?.online === false, 'a offline');
    // The friendship ends: a is forgotten (friend.deleted, and the next read agrees).
    await api.unfriend(a, me);
    await store.refresh();
    expect(store.get(a.userId)).toBeUndefined();
    expect([...store.getSnapshot().keys()]).toEqual([b.userId]);
  });
});

describe('Web SDK stores: typing', () => {
  const app = useSdkApp();
  let api: ApiClient;
  beforeAll(() => ({ api } = app));

  it('relays typing in a group to the others, throttled, cleared by the message', async () => {
    const [me, a, b] = [await person(app.t), await person(app.t), await person(app.t)];
    const gid = groupCid(await api.createGroup(me, [a, b]));
    const [mine, theirs, third] = [await loggedIn(app, me), await loggedIn(app, a), await loggedIn(app, b)];
    expect(await theirs.c.typing.notify(gid)).toBe(true);
    // The next keystrokes within the second are not sent: the service would drop them.
    expect(await theirs.c.typing.notify(gid)).toBe(false);
    await until(() => mine.c.typing.usersIn(gid).includes(a.userId), 'a typing, seen by me');
    await until(() => third.c.typing.usersIn(gid).includes(a.userId), 'a typing, seen by b');
    expect(theirs.c.typing.usersIn(gid)).toEqual([]);
    await theirs.c.messages.sendText(gid, 'done typing');
    await until(() => mine.c.typing.usersIn(gid).length === 0, 'cleared by the message');
    expect(third.c.typing.usersIn(gid)).toEqual([]);
  });

  it("shows one-to-one typing under the receiver's own conversation ID, and lets it expire", async () => {
    const [me, a] = [await person(app.t), await person(app.t)];
    await api.befriend(me, a);
    const [mine, theirs] = [await loggedIn(app, me), await loggedIn(app, a)];
    expect(await theirs.c.typing.notify(friendCid(me))).toBe(true);
    await until(() => mine.c.typing.usersIn(friendCid(a)).includes(a.userId), 'a typing');
    await until(() => mine.c.typing.usersIn(friendCid(a)).length === 0, 'the entry expired', 15_000);
  });

  it('answers false where the user may not type (not friends any more)', async () => {
    const [me, a] = [await person(app.t), await person(app.t)];
    await api.befriend(me, a);
    const theirs = await loggedIn(app, a);
    await api.unfriend(me, a);
    expect(await theirs.c.typing.notify(friendCid(me))).toBe(false);
  });
});
