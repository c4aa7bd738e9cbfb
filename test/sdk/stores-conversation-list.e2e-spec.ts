// The Web SDK's conversation list store (client.conversationList) against the real service:
// real SDK clients send, pin, mute, hide, recall and read, and the store's snapshot must equal
// the service's own home list (sync) without asking it again; a new friend or group brings a
// reload; after a reconnect whose missed events are not replayed, recovery converges it (4.7).
import type { ConversationListItem, ConversationListSnapshot } from '../../sdk/web/src/stores/conversation-list-store';
import { io } from 'socket.io-client';
import type { Socket } from 'socket.io-client';
import { createClient } from '../../sdk/web/src/index';
import type { ImClient } from '../../sdk/web/src/index';
import { RealtimeService } from '../../src/realtime/realtime.service';
import { ApiClient, IssuedUser, SyncItem, friendCid, groupCid } from '../helpers/api-client';
import { listen } from '../helpers/realtime';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { SdkUnderTest, hostProvider, sdkClient, testEnvironment, until, useSdkApp } from './sdk-harness';

/** What a home-list row shows, for comparing the store with the service's sync. */
const row = (i: ConversationListItem | SyncItem) => ({
  id: i.conversation_id,
  title: i.title,
  avatar: i.avatar,
  last: i.last_message ? `${i.last_message.mid}:${i.last_message.status}` : null,
  unread: i.unread,
  pinned: i.pinned,
  muted: i.muted,
  member: i.is_member,
});

/**
 * A user named as the harness's auth provider names them ("SDK user"): the host's token call
 * synchronises the profile, so logging in under another name would rename them without an event.
 */
const person = (t: TestApp): Promise<IssuedUser> => issueUser(t, { nickname: 'SDK user' });

/** The SDK client of `user`, logged in, its list loaded. */
async function loggedIn(
  app: { base: string; t: TestApp; clients: ImClient[] },
  user: IssuedUser,
): Promise<SdkUnderTest> {
  const sdk = sdkClient(app.base, hostProvider(app.t, () => user.userId).fn, app.clients);
  await sdk.c.login();
  await until(() => sdk.readies.length >= 1, 'ready');
  // Login and the connection each ask for recovery: the list settles after both.
  await until(() => sdk.recoveries.flat().includes('connection.ready'), 'the recovery at ready');
  await until(() => {
    const list = sdk.c.conversationList.getSnapshot();
    return list.status === 'ready' && !list.refreshing;
  }, 'the first page');
  return sdk;
}

/** The store's snapshot equals the service's home list and totals (waiting for events to land). */
async function expectConverged(api: ApiClient, c: ImClient, user: IssuedUser): Promise<void> {
  const view = (s: ConversationListSnapshot) => ({ items: s.items.map(row), unread: s.unread });
  let server = await api.syncAll(user);
  const same = () =>
    JSON.stringify(view(c.conversationList.getSnapshot())) ===
    JSON.stringify({ items: server.items.map(row), unread: server.unread });
  await until(async () => same() || ((server = await api.syncAll(user)), same()), 'the store to equal sync').catch(
    () => undefined,
  );
  expect(view(c.conversationList.getSnapshot())).toEqual({ items: server.items.map(row), unread: server.unread });
}

describe('Web SDK stores: the conversation list', () => {
  const app = useSdkApp();
  let api: ApiClient;
  beforeAll(() => ({ api } = app));

  /** me, friends with a and b, in b's group with a; me's client logged in, syncs counted from then on. */
  async function fixture() {
    const [me, a, b] = [await person(app.t), await person(app.t), await person(app.t)];
    await api.befriend(me, a);
    await api.befriend(me, b);
    const groupId = await api.createGroup(b, [me, a]);
    const sdk = await loggedIn(app, me);
    const syncs = jest.spyOn(sdk.c.conversations, 'list');
    return { me, a, b, groupId, gid: groupCid(groupId), sdk, syncs };
  }

  it('moves conversations by new messages (one-to-one, group, own, local echo) and keeps unread and the badge, without asking sync again', async () => {
    const { me, a, b, gid, sdk, syncs } = await fixture();
    const peer = await loggedIn(app, a);
    await peer.c.messages.sendText(friendCid(me), 'hello from a');
    await until(() => sdk.c.conversationList.getSnapshot().items[0]?.conversation_id === friendCid(a), 'a first');
    expect(sdk.c.conversationList.get(friendCid(a))).toMatchObject({ unread: 1 });
    await api.send(b, gid, 'hello group');
    await api.send(b, gid, 'hello group again');
    await until(() => sdk.c.conversationList.get(gid)?.unread === 2, 'two group messages');
    expect(sdk.c.conversationList.getSnapshot().items[0].conversation_id).toBe(gid);
    // The user's own send shows as the preview at once, then as the stored message.
    const previews: Array<string | null> = [];
    const off = sdk.c.conversationList.subscribe((s) =>
      previews.push(s.items.find((i) => i.conversation_id === friendCid(b))?.pending?.status ?? null),
    );
    const { message } = await sdk.c.messages.sendText(friendCid(b), 'mine');
    off();
    expect(previews).toContain('sending');
    expect(sdk.c.conversationList.getSnapshot().items[0]).toMatchObject({
      conversation_id: friendCid(b),
      pending: null,
      last_message: { mid: message.mid },
      unread: 0,
    });
    expect(sdk.c.conversationList.getSnapshot().unread).toEqual({ total: 3, total_unmuted: 3 });
    await expectConverged(api, sdk.c, me);
    expect(syncs).not.toHaveBeenCalled();
  });

  it('follows pin, mute and hide from this device and another, and a hidden conversation comes back with a message', async () => {
    const { me, a, b, gid, sdk, syncs } = await fixture();
    await api.send(a, friendCid(me), 'one');
    await api.send(b, gid, 'two');
    await until(() => sdk.c.conversationList.getSnapshot().unread.total === 2, 'two unread');
    await sdk.c.conversations.pin(friendCid(b), true);
    await until(() => sdk.c.conversationList.getSnapshot().items[0]?.conversation_id === friendCid(b), 'b pinned');
    await api.setting(me, 'mute', gid, true);
    await until(() => sdk.c.conversationList.getSnapshot().unread.total_unmuted === 1, 'the group muted');
    await sdk.c.conversations.hide(friendCid(a), true);
    await until(
      () => !sdk.c.conversationList.getSnapshot().items.some((i) => i.conversation_id === friendCid(a)),
      'a hidden',
    );
    await expectConverged(api, sdk.c, me);
    await api.send(a, friendCid(me), 'back');
    await until(() => sdk.c.conversationList.getSnapshot().items[1]?.conversation_id === friendCid(a), 'a shown again');
    await sdk.c.conversations.pin(friendCid(b), false);
    await until(() => sdk.c.conversationList.getSnapshot().items[0]?.conversation_id === friendCid(a), 'b unpinned');
    await expectConverged(api, sdk.c, me);
    expect(syncs).not.toHaveBeenCalled();
  });

  it('shows the tombstone of a recalled last message, drops its unread, and takes a read from another device', async () => {
    const { me, a, b, gid, sdk, syncs } = await fixture();
    await api.send(a, friendCid(me), 'first');
    const last = await api.send(a, friendCid(me), 'oops');
    await api.send(b, gid, 'group one');
    const groupLast = await api.send(b, gid, 'group oops');
    await until(() => sdk.c.conversationList.getSnapshot().unread.total === 4, 'four unread');
    await api.recall(a, friendCid(me), last.message.mid);
    await api.recall(b, gid, groupLast.message.mid);
    await until(
      () =>
        sdk.c.conversationList.get(friendCid(a))?.last_message?.status === 'recalled' &&
        sdk.c.conversationList.get(gid)?.last_message?.status === 'recalled',
      'both tombstones',
    );
    expect(sdk.c.conversationList.get(friendCid(a))).toMatchObject({ unread: 1, last_message: { content: null } });
    expect(sdk.c.conversationList.get(gid)?.unread).toBe(1);
    await expectConverged(api, sdk.c, me);
    await api.read(me, gid, sdk.c.conversationList.get(gid)!.last_seq);
    await until(() => sdk.c.conversationList.get(gid)?.unread === 0, 'the read elsewhere');
    await expectConverged(api, sdk.c, me);
    expect(syncs).not.toHaveBeenCalled();
  });

  it('follows a group rename, and shows the user as a former member once removed or the group dismissed', async () => {
    const { me, a, b, groupId, gid, sdk } = await fixture();
    const other = await api.createGroup(a, [me]);
    await api.send(b, gid, 'before');
    const owner = await loggedIn(app, b);
    await owner.c.groups.update(groupId, { name: 'Renamed' });
    await until(() => sdk.c.conversationList.get(gid)?.title === 'Renamed', 'the new name');
    await expectConverged(api, sdk.c, me);
    await owner.c.groups.removeMembers(groupId, [me.userId]);
    await until(() => sdk.c.conversationList.get(gid)?.is_member === false, 'removed');
    await (await loggedIn(app, a)).c.groups.dismiss(other);
    await until(() => sdk.c.conversationList.get(groupCid(other))?.is_member === false, 'dismissed');
    await expectConverged(api, sdk.c, me);
  });

  it("follows a peer's new name and avatar", async () => {
    const { me, a, sdk, syncs } = await fixture();
    const peer = await loggedIn(app, a);
    await peer.c.users.updateMe({ nickname: 'Alice', avatar: 'https://avatar.test/alice.png' });
    await until(() => sdk.c.conversationList.get(friendCid(a))?.title === 'Alice', 'the new name');
    expect(sdk.c.conversationList.get(friendCid(a))?.avatar).toBe('https://avatar.test/alice.png');
    await expectConverged(api, sdk.c, me);
    expect(syncs).not.toHaveBeenCalled();
  });

  it('brings a new friend and a new group into the list (a reload of the first page)', async () => {
    const { me, sdk } = await fixture();
    const newcomer = await person(app.t);
    await api.befriend(newcomer, me);
    await until(() => sdk.c.conversationList.get(friendCid(newcomer)) !== undefined, 'the new friend');
    const groupId = await api.createGroup(newcomer, [me]);
    await until(() => sdk.c.conversationList.get(groupCid(groupId)) !== undefined, 'the new group');
    await expectConverged(api, sdk.c, me);
  });

  it('pages on demand: more conversations than a page, each once, in order', async () => {
    const me = await person(app.t);
    const friends = await Promise.all(Array.from({ length: 52 }, () => person(app.t)));
    for (const f of friends) await api.befriend(f, me);
    const sdk = await loggedIn(app, me);
    expect(sdk.c.conversationList.getSnapshot()).toMatchObject({ hasMore: true });
    expect(sdk.c.conversationList.getSnapshot().items).toHaveLength(50);
    await sdk.c.conversationList.loadMore();
    expect(sdk.c.conversationList.getSnapshot().hasMore).toBe(false);
    await expectConverged(api, sdk.c, me);
  });

  it('empties at logout', async () => {
    const { sdk } = await fixture();
    expect(sdk.c.conversationList.getSnapshot().items.length).toBe(3);
    sdk.c.logout();
    expect(sdk.c.conversationList.getSnapshot()).toMatchObject({ status: 'idle', items: [] });
  });
});

describe('Web SDK stores: the conversation list after a reconnect without replay (spec 4.7)', () => {
  // A backlog of 2 events: a client that misses more reconnects with `resumed: false`.
  const app = {} as { t: TestApp; base: string; clients: ImClient[] };
  let api: ApiClient;
  beforeAll(async () => {
    app.t = await startTestApp({ REALTIME_BACKLOG_EVENTS: '2' });
    app.base = await listen(app.t);
    app.clients = [];
    api = new ApiClient(app.t);
  });
  afterEach(() => {
    for (const client of app.clients.splice(0)) client.destroy();
  });
  afterAll(() => app.t.close());

  it('loads the first page again at the new connection and converges to the service', async () => {
    const [me, a, b] = [await person(app.t), await person(app.t), await person(app.t)];
    await api.befriend(me, a);
    await api.befriend(me, b);
    // The client's connections go through a gate, so it stays away while the test changes things.
    const held: Socket[] = [];
    let away = false;
    const environment = testEnvironment();
    const c = createClient({
      baseUrl: app.base,
      authProvider: hostProvider(app.t, () => me.userId).fn,
      environment: {
        ...environment,
        connect: (uri, options) => {
          const socket = io(uri, { ...options, autoConnect: false });
          if (away) held.push(socket);
          else socket.connect();
          return socket;
        },
      },
    });
    app.clients.push(c);
    const readies: Array<{ resumed: boolean }> = [];
    c.on('connection.ready', (ready) => readies.push(ready));
    await c.login();
    await until(() => readies.length === 1 && c.conversationList.getSnapshot().status === 'ready', 'the list');
    away = true;
    app.t.app.get(RealtimeService).disconnectAll();
    // Missed: more events than the backlog keeps, a setting among them.
    for (let i = 0; i < 3; i += 1) await api.send(a, friendCid(me), `while away ${i}`);
    await api.setting(me, 'pin', friendCid(b), true);
    away = false;
    for (const socket of held.splice(0)) socket.connect();
    environment.online();
    await until(() => readies.length >= 2, 'the new connection');
    expect(readies[1]).toMatchObject({ resumed: false });
    await until(() => c.conversationList.get(friendCid(a))?.unread === 3, 'the missed messages');
    expect(c.conversationList.getSnapshot().items.map((i) => i.conversation_id)).toEqual([friendCid(b), friendCid(a)]);
    await expectConverged(api, c, me);
  });
});
