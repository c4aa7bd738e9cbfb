// The Web SDK's conversation window against the real service (spec 4.7): gap injection,
// a reset racing a live message, recall and delete while offline, a read failing in a network
// flap, reads held at the continuous boundary and while browsing history.
import { ConversationWindow, ImClient, MemoryStateStore, createClient } from '../../sdk/web/src/index';
import type { ServerEvent } from '../../sdk/web/src/events';
import { RealtimeService } from '../../src/realtime/realtime.service';
import { IssuedUser, TestApp, issueUser } from '../helpers/test-app';
import { ApiClient, friendCid } from '../helpers/api-client';
import { hostProvider, sdkClient, SteeredTransport, testEnvironment, until, useSdkApp } from './sdk-harness';

describe('Web SDK: the visible conversation window (4.7)', () => {
  const app = useSdkApp();
  let t: TestApp;
  let base: string;
  let api: ApiClient;
  let clients: ImClient[];
  beforeAll(() => ({ t, base, api, clients } = app));

  /** `me` logged in through the SDK, befriended with `peer`, with a steered window on their chat. */
  async function chat(options: { drop?: (e: ServerEvent) => boolean } = {}) {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const sdk = sdkClient(base, hostProvider(t, () => me.userId).fn, clients);
    await sdk.c.login();
    await until(() => sdk.readies.length === 1, 'ready');
    const transport = new SteeredTransport(sdk.c);
    const window = new ConversationWindow(friendCid(peer), transport);
    sdk.c.on('event', (raw) => {
      const e = raw as ServerEvent;
      if (!options.drop?.(e)) window.onEvent(e);
    });
    await window.calibrate();
    return { me, peer, sdk, transport, window };
  }

  const seqs = (w: ConversationWindow) => w.state.messages.map((m) => Number(m.conversation_seq));
  const serverWindow = (u: IssuedUser, peer: IssuedUser) =>
    api.window(u, friendCid(peer), { known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' });

  it('fills a hole left by a dropped event: calibration first, and no read past the hole', async () => {
    let dropped: string | null = null;
    const { me, peer, transport, window } = await chat({
      drop: (e) => e.type === 'message.new' && dropped !== null && e.event_id === dropped,
    });
    await api.send(peer, friendCid(me), 'one');
    await until(() => seqs(window).includes(1), 'message 1');
    const release = transport.holdNextReply();
    const second = await api.send(peer, friendCid(me), 'two');
    dropped = second.event_id;
    await api.send(peer, friendCid(me), 'three');
    await until(() => seqs(window).includes(3), 'message 3');
    // The hole at 2 is seen: the window calibrates, and the continuous boundary stays at 1.
    expect(window.state.continuousTo).toBe(1n);
    await window.markSeen(3n);
    expect(transport.reads.every((seq) => BigInt(seq) <= 1n)).toBe(true);
    release();
    await until(() => seqs(window).includes(2), 'the hole filled by calibration');
    expect(seqs(window)).toEqual([1, 2, 3]);
    await window.markSeen(3n);
    expect(transport.reads.at(-1)).toBe('3');
    expect((await serverWindow(me, peer)).read_seq).toBe('3');
  });

  it("takes the read's exact unread from its reply, without waiting for an event or a calibration", async () => {
    const { me, peer, transport, window } = await chat();
    for (const text of ['one', 'two', 'three']) await api.send(peer, friendCid(me), text);
    await until(() => seqs(window).includes(3), 'message 3');
    await window.calibrate('refresh');
    expect(window.state.unread).toBe(3);
    const queries = transport.queries.length;
    await window.markSeen(2n);
    expect({ read: window.state.readSeq, unread: window.state.unread }).toEqual({ read: 2n, unread: 1 });
    // Another device read further meanwhile: the window follows the reply, never goes back.
    await api.read(me, friendCid(peer), '3');
    await window.markSeen(3n);
    expect({ read: window.state.readSeq, unread: window.state.unread }).toEqual({ read: 3n, unread: 0 });
    expect(transport.queries.length).toBe(queries);
  });

  it('keeps a message that arrives live while a reset is in flight', async () => {
    const { me, peer, transport, window } = await chat();
    await api.send(peer, friendCid(me), 'before');
    const release = transport.holdNextReply();
    const calibrating = window.calibrate('refresh');
    await until(() => transport.queries.length === 2, 'the tail read sent');
    // The server has answered (without this message); the message arrives live meanwhile.
    await api.send(peer, friendCid(me), 'during');
    await until(() => seqs(window).includes(2), 'the live message');
    release();
    await calibrating;
    expect(window.state.messages.map((m) => m.content?.text)).toEqual(['before', 'during']);
  });

  it("keeps the user's own message sent while a reset is in flight", async () => {
    const { me, peer, sdk, transport, window } = await chat();
    await api.send(peer, friendCid(me), 'theirs');
    const release = transport.holdNextReply();
    const calibrating = window.calibrate('refresh');
    await until(() => transport.queries.length === 2, 'the tail read sent');
    const sent = await sdk.c.post<{ message: { mid: string } }>('/app/sdk/messages/send', {
      conversation_id: friendCid(peer),
      client_message_id: `c-${Date.now()}`,
      type: 'text',
      content: { text: 'mine, during the reset' },
    });
    await until(() => window.state.messages.some((m) => m.mid === sent.message.mid), 'the echo of my message');
    release();
    await calibrating;
    expect(window.state.messages.map((m) => m.content?.text)).toEqual(['theirs', 'mine, during the reset']);
  });

  it('shows messages recalled and deleted while the client was away', async () => {
    const { me, peer, sdk, window } = await chat();
    const [a, b] = [await api.send(peer, friendCid(me), 'a'), await api.send(peer, friendCid(me), 'b')];
    await api.send(peer, friendCid(me), 'c');
    await until(() => seqs(window).length === 3, 'three messages');
    sdk.c.logout();
    await api.recall(peer, friendCid(me), a.message.mid);
    await api.deleteMessage(peer, friendCid(me), b.message.mid);
    await sdk.c.login();
    await window.calibrate('login');
    expect(window.state.messages.map((m) => [m.content?.text ?? null, m.status])).toEqual([
      [null, 'recalled'],
      [null, 'deleted'],
      ['c', 'normal'],
    ]);
    // Tombstones count for continuity.
    expect(window.state.continuousTo).toBe(3n);
  });

  it('never lets an older read undo a recall that arrived while it was in flight', async () => {
    const { me, peer, transport, window } = await chat();
    const sent = await api.send(peer, friendCid(me), 'soon recalled');
    await until(() => seqs(window).includes(1), 'the message');
    const release = transport.holdNextReply();
    // This read is answered now (force a reset: the trio is stale) but held back...
    await api.send(peer, friendCid(me), 'next');
    await until(() => seqs(window).includes(2), 'the second message');
    const calibrating = window.calibrate('refresh');
    await until(() => transport.queries.length === 2, 'the tail read sent');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // ...while the recall arrives live.
    await api.recall(peer, friendCid(me), sent.message.mid);
    await until(() => window.state.messages[0]?.status === 'recalled', 'the live recall');
    release();
    await calibrating;
    expect(window.state.messages.map((m) => m.status)).toEqual(['recalled', 'normal']);
  });

  it('keeps the read checkpoint through a failed read and submits it again later', async () => {
    const { me, peer, transport, window } = await chat();
    await api.send(peer, friendCid(me), 'one');
    await api.send(peer, friendCid(me), 'two');
    await until(() => seqs(window).length === 2, 'two messages');
    transport.failReads = 1;
    await expect(window.markSeen(2n)).rejects.toThrow('network flap');
    expect((await serverWindow(me, peer)).read_seq).toBe('0');
    await window.calibrate('online');
    expect(transport.reads).toEqual(['2', '2']);
    expect((await serverWindow(me, peer)).read_seq).toBe('2');
    expect(window.state.readSeq).toBe(2n);
  });

  it('does not read while the user browses history, and reads once back at the latest message', async () => {
    const { me, peer, transport, window } = await chat();
    await api.send(peer, friendCid(me), 'one');
    await until(() => seqs(window).length === 1, 'a message');
    window.setBrowsingHistory(true);
    await api.send(peer, friendCid(me), 'two');
    await until(() => seqs(window).length === 2, 'the new message, announced');
    await window.markSeen(2n);
    expect(transport.reads).toEqual([]);
    window.setBrowsingHistory(false);
    await until(() => transport.reads.length === 1, 'the read after returning');
    expect(transport.reads).toEqual(['2']);
  });

  it('pages older history by before_seq without touching the calibration trio', async () => {
    const { me, peer, transport, window } = await chat();
    await api.sendMany(peer, friendCid(me), 60, 'm');
    await window.calibrate('refresh');
    expect(seqs(window)).toHaveLength(50);
    await window.loadOlder();
    expect(seqs(window)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const history = transport.queries.find((q) => q.before_seq !== undefined)!;
    expect(Object.keys(history).sort()).toEqual(['before_seq', 'conversation_id']);
  });

  it('locates a search result by around_mid, pages newer by after_seq back to the tail, never with the trio', async () => {
    const { me, peer, transport, window } = await chat();
    const sent = await api.sendMany(peer, friendCid(me), 120, 'm');
    await window.calibrate('refresh');
    await window.locate(sent[29].mid);
    expect(window.state).toMatchObject({ browsingHistory: true, hasMoreAfter: true, hasMoreBefore: true });
    expect(seqs(window)).toContain(30);
    expect(seqs(window)[0]).toBe(5);
    // A live message while located does not land in this window (it is not the tail).
    await api.send(peer, friendCid(me), 'live while located');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seqs(window)).not.toContain(121);
    while (window.state.hasMoreAfter) await window.loadNewer();
    expect(seqs(window).at(-1)).toBe(121);
    const trioKeys = ['known_last_seq', 'known_updated_at', 'known_deletion_revision'];
    for (const query of transport.queries) {
      const modes = ['around_mid', 'after_seq', 'before_seq'].filter((k) => query[k] !== undefined);
      const trio = trioKeys.filter((k) => query[k] !== undefined);
      // Exactly one mode per read: a page mode, or all three of the trio.
      const ok = (modes.length === 1 && trio.length === 0) || (modes.length === 0 && trio.length === 3);
      expect({ query, ok }).toEqual({ query, ok: true });
    }
    // Back at the tail, the window calibrates again and takes live messages.
    await api.send(peer, friendCid(me), 'live at the tail');
    await until(() => seqs(window).includes(122), 'the live message at the tail');
  });

  it("puts the user's own sends and recalls into the open window once, whichever arrives first", async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const sdk = sdkClient(base, hostProvider(t, () => me.userId).fn, clients);
    await sdk.c.login();
    await until(() => sdk.readies.length === 1, 'ready');
    const window = sdk.c.openWindow(friendCid(peer));
    for (let i = 1; i <= 5; i++)
      await sdk.c.messages.send({ conversation_id: friendCid(peer), type: 'text', content: { text: `mine ${i}` } });
    expect(seqs(window)).toEqual([1, 2, 3, 4, 5]);
    const first = window.state.messages[0];
    await sdk.c.messages.recall(friendCid(peer), first.mid);
    expect(window.state.messages[0].status).toBe('recalled');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seqs(window)).toEqual([1, 2, 3, 4, 5]);
    // The app hears each own change once, from the reply or the echo, whichever came first.
    expect(sdk.events.filter((e) => e.type === 'message.new')).toHaveLength(5);
    expect(sdk.events.filter((e) => e.type === 'message.recalled')).toHaveLength(1);
  });

  it("follows the user's own recall and delete of the last message in the cached home page at once, as the peer's follows the events", async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const sides = [me, peer].map((user) => {
      const store = new MemoryStateStore();
      const c = createClient({
        baseUrl: base,
        authProvider: hostProvider(t, () => user.userId).fn,
        store,
        environment: testEnvironment(),
      });
      clients.push(c);
      const events: ServerEvent[] = [];
      c.on('event', (e) => events.push(e as ServerEvent));
      const ready = new Promise((resolve) => c.on('connection.ready', resolve));
      return { c, events, ready };
    });
    const [mine, theirs] = sides;
    for (const side of sides) await side.c.login();
    for (const side of sides) await side.ready;
    const preview = async (c: ImClient, cid: string) =>
      (await c.cachedHome())?.conversations.items.find((i) => i.conversation_id === cid)?.last_message;

    const sent = await mine.c.messages.send({
      conversation_id: friendCid(peer),
      type: 'text',
      content: { text: 'secret text' },
    });
    await until(() => theirs.events.some((e) => e.type === 'message.new'), "the peer's message.new");
    for (const side of sides) await side.c.sync();
    expect(await preview(mine.c, friendCid(peer))).toMatchObject({ content: { text: 'secret text' } });
    expect(await preview(theirs.c, friendCid(me))).toMatchObject({ content: { text: 'secret text' } });

    // The recall is in the sender's cached page as soon as the call returns, before any sync,
    // and the app heard it as an event (to re-render its list).
    const recalled = await mine.c.messages.recall(friendCid(peer), sent.message.mid);
    expect(await preview(mine.c, friendCid(peer))).toMatchObject({
      mid: sent.message.mid,
      status: 'recalled',
      content: null,
    });
    expect(mine.events.filter((e) => e.event_id === recalled.event_id)).toHaveLength(1);
    await until(
      async () => (await preview(theirs.c, friendCid(me)))?.status === 'recalled',
      "the peer's cached preview",
    );
    expect(await preview(theirs.c, friendCid(me))).toMatchObject({ content: null });

    const deleted = await mine.c.messages.delete(friendCid(peer), sent.message.mid);
    expect(await preview(mine.c, friendCid(peer))).toMatchObject({ status: 'deleted', content: null });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The echoes changed nothing: each event reached the app once.
    for (const id of [sent.event_id, recalled.event_id, deleted.event_id])
      expect(mine.events.filter((e) => e.event_id === id)).toHaveLength(1);
    // What the cache shows is what the service's sync says.
    const page = await mine.c.sync();
    const item = page.conversations.items.find((i) => i.conversation_id === friendCid(peer));
    expect(item?.last_message).toMatchObject({ mid: sent.message.mid, status: 'deleted', content: null });
  });

  it('shows the cached window at once after a reload, calibrates it as unchanged, and forgets it at logout', async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const store = new MemoryStateStore();
    const first = createClient({
      baseUrl: base,
      authProvider: hostProvider(t, () => me.userId).fn,
      store,
      environment: testEnvironment(),
    });
    clients.push(first);
    await first.login();
    await api.send(peer, friendCid(me), 'kept across the reload');
    const before = first.openWindow(friendCid(peer));
    await until(() => seqs(before).includes(1), 'the message');
    await first.sync();

    // A reload: a new client on the same store, the old page simply gone (no logout).
    const outcomes: string[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).includes('/app/sdk/messages?'))
        outcomes.push(((await response.clone().json()) as { data?: { outcome: string } }).data?.outcome ?? '');
      return response;
    };
    const second = createClient({
      baseUrl: base,
      authProvider: hostProvider(t, () => me.userId).fn,
      store,
      fetch: recordingFetch,
      environment: testEnvironment(),
    });
    clients.push(second);
    await second.login();
    expect((await second.cachedHome())?.conversations.items.map((i) => i.conversation_id)).toContain(friendCid(peer));
    const firstStates: string[][] = [];
    const after = second.openWindow(friendCid(peer), (state) => firstStates.push(state.messages.map((m) => m.mid)));
    await until(() => outcomes.length >= 1, 'the calibration');
    // The cached copy was on screen before the service answered, and the service confirmed it.
    expect(firstStates[0]).toEqual(before.state.messages.map((m) => m.mid));
    expect(outcomes[0]).toBe('unchanged');
    expect(seqs(after)).toEqual([1]);

    second.logout();
    await until(
      async () => (await store.load(`${me.userId}/window/${friendCid(peer)}`)) === undefined,
      'the cache cleared',
    );
  });

  it('calibrates the open window by itself after the connection comes back (client.openWindow)', async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const sdk = sdkClient(base, hostProvider(t, () => me.userId).fn, clients);
    await sdk.c.login();
    await until(() => sdk.readies.length === 1, 'ready');
    const window = sdk.c.openWindow(friendCid(peer));
    await api.send(peer, friendCid(me), 'one');
    await until(() => seqs(window).includes(1), 'message 1');
    t.app.get(RealtimeService).disconnectAll();
    await api.send(peer, friendCid(me), 'two');
    sdk.environment.online();
    await until(() => sdk.readies.length >= 2, 'ready again');
    await until(() => seqs(window).includes(2), 'message 2 after recovery');
    expect(sdk.recoveries.flat()).toEqual(expect.arrayContaining(['online', 'connection.ready']));
  });
});
