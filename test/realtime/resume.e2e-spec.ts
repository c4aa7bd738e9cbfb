// Black-box tests of resume, written from issue 11's contract: a client that passes auth.position
// (the last position it processed) first gets every event after it, in order, each once, then
// connection.ready {resumed: true, replayed: n}; ready's own position is a resume point; a
// position that is malformed, not the user's, or more than REALTIME_BACKLOG_EVENTS events or
// REALTIME_BACKLOG_SECONDS behind gives no replay and resumed: false (4.7: the client then syncs).
import { randomBytes } from 'node:crypto';
import { Seed } from '../helpers/factories';
import { connect, duplicateEventIds, listen, Ready, RtClient, sleep } from '../helpers/realtime';
import { bearer, friendConversationId, IssuedUser, issueUser, startTestApp, TestApp } from '../helpers/test-app';

interface Pair {
  alice: IssuedUser;
  bob: IssuedUser;
}

/** The helpers of one running app. */
function kit(t: TestApp, url: string) {
  const send = async (from: IssuedUser, to: IssuedUser, text = 'hi'): Promise<string> => {
    const r = await t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(from.token))
      .send({
        conversation_id: friendConversationId(to),
        client_message_id: `c-${randomBytes(6).toString('hex')}`,
        type: 'text',
        content: { text },
      });
    expect(r.body.code).toBe(0);
    return r.body.data.event_id as string;
  };
  const pair = async (): Promise<Pair> => {
    const alice = await issueUser(t);
    const bob = await issueUser(t);
    await new Seed(t).friends(alice.id, bob.id);
    return { alice, bob };
  };
  /** Connects with a resume point and answers the client once ready has arrived. */
  const resume = async (u: IssuedUser, position: unknown): Promise<{ client: RtClient; ready: Ready }> => {
    const client = await connect(url, { auth: { token: u.token, position } });
    return { client, ready: await client.waitForReady() };
  };
  return { send, pair, resume };
}

/** Durable events received before connection.ready: the replay. */
const replayed = (c: RtClient): string[] => {
  const at = c.arrivals.findIndex((a) => a.name === 'connection.ready');
  return c.arrivals.slice(0, at).map((a) => a.event_id);
};

describe('real-time resume (contract)', () => {
  let t: TestApp;
  let url: string;
  let k: ReturnType<typeof kit>;
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    k = kit(t, url);
  });
  afterAll(() => t.close());

  it('replays exactly the missed events, in order, once, before ready {resumed: true, replayed: n}; then live again', async () => {
    const { alice, bob } = await k.pair();
    const b = await connect(url, { auth: { token: bob.token } });
    const seen = await b.waitForEvent(await k.send(alice, bob, 'seen'));
    b.close();

    const missed = [await k.send(alice, bob, 'm1'), await k.send(bob, alice, 'm2 from bob himself')];
    const read = await t.http
      .post('/app/sdk/messages/read')
      .set(...bearer(bob.token))
      .send({ conversation_id: friendConversationId(alice), read_seq: '2' });
    missed.push(read.body.data.event_id as string, await k.send(alice, bob, 'm3'));

    const { client, ready } = await k.resume(bob, seen.position);
    expect(ready).toMatchObject({ resumed: true, replayed: missed.length });
    expect(replayed(client)).toEqual(missed);
    expect(client.of().map((e) => e.event_id)).toEqual(missed);
    expect(client.of().map((e) => e.name)).toEqual(['message.new', 'message.new', 'conversation.read', 'message.new']);
    // Replayed events keep their envelope and private state.
    expect(client.of()[0].data).toMatchObject({ conversation_id: friendConversationId(alice), unread: 2 });

    const live = await k.send(alice, bob, 'live');
    await client.waitForEvent(live);
    await sleep(200);
    expect(client.of().map((e) => e.event_id)).toEqual([...missed, live]);
    expect(duplicateEventIds(client)).toEqual([]);
    client.close();
  });

  it("ready's own position is a valid resume point, with or without events since", async () => {
    const { alice, bob } = await k.pair();
    const first = await connect(url, { auth: { token: bob.token } });
    const start = (await first.waitForReady()).position;
    first.close();

    const nothing = await k.resume(bob, start);
    expect(nothing.ready).toMatchObject({ resumed: true, replayed: 0 });
    expect(replayed(nothing.client)).toEqual([]);
    const point = nothing.ready.position;
    nothing.client.close();

    const missed = [await k.send(alice, bob, 'a'), await k.send(alice, bob, 'b')];
    const again = await k.resume(bob, point);
    expect(again.ready).toMatchObject({ resumed: true, replayed: 2 });
    expect(replayed(again.client)).toEqual(missed);
    again.client.close();

    // The ready after a replay is itself a resume point: nothing is replayed twice.
    const third = await k.resume(bob, again.ready.position);
    expect(third.ready).toMatchObject({ resumed: true, replayed: 0 });
    expect(replayed(third.client)).toEqual([]);
    third.client.close();
  });

  it("gives resumed: false and no replay for garbage, another user's position, or a non-string", async () => {
    const { alice, bob } = await k.pair();
    const carol = await issueUser(t);
    await new Seed(t).friends(alice.id, carol.id);
    const b = await connect(url, { auth: { token: bob.token } });
    const bobPosition = (await b.waitForEvent(await k.send(alice, bob, 'seen'))).position!;
    b.close();
    const c = await connect(url, { auth: { token: carol.token } });
    const carolEarly = (await c.waitForReady()).position;
    const carolPosition = (await c.waitForEvent(await k.send(alice, carol, 'for carol'))).position!;
    c.close();
    // Bob has missed events, so any accepted position would replay something.
    await k.send(alice, bob, 'missed 1');
    await k.send(alice, bob, 'missed 2');
    // A replay from Bob's real position shows what a wrong acceptance would look like.
    const tampered = `${bobPosition.slice(0, -1)}${bobPosition.endsWith('0') ? '1' : '0'}`;
    const wrong: Array<[string, unknown]> = [
      ['garbage', 'garbage'],
      ['empty string', ''],
      ['tampered', tampered],
      ['digits', '1'],
      ['huge', '9'.repeat(40)],
      ["another user's position", carolPosition],
      ["another user's ready position", carolEarly],
      ['a number', Number.isFinite(Number(bobPosition)) ? Number(bobPosition) : 1],
      ['an object', { position: bobPosition }],
      ['an array', [bobPosition]],
      ['a boolean', true],
      ['a long string', 'x'.repeat(5000)],
    ];
    for (const [label, position] of wrong) {
      if (label === 'tampered' && tampered === bobPosition) continue;
      const { client, ready } = await k.resume(bob, position);
      expect({ label, resumed: ready.resumed, replayed: ready.replayed, events: replayed(client).length }).toEqual({
        label,
        resumed: false,
        replayed: 0,
        events: 0,
      });
      client.close();
    }
    // The genuine position still resumes.
    const good = await k.resume(bob, bobPosition);
    expect(good.ready).toMatchObject({ resumed: true, replayed: 2 });
    good.client.close();
  });

  it('a resumed: false ready still gives a valid resume point', async () => {
    const { alice, bob } = await k.pair();
    const refused = await k.resume(bob, 'garbage');
    expect(refused.ready.resumed).toBe(false);
    refused.client.close();
    const missed = await k.send(alice, bob, 'after the refused resume');
    const again = await k.resume(bob, refused.ready.position);
    expect(again.ready).toMatchObject({ resumed: true, replayed: 1 });
    expect(replayed(again.client)).toEqual([missed]);
    again.client.close();
  });

  it('replays a group as the member saw it: unread null, and nothing after their removal', async () => {
    const owner = await issueUser(t);
    const member = await issueUser(t);
    const groupId = `rt.${randomBytes(6).toString('hex')}`;
    const cid = `group_${groupId}`;
    const post = async (path: string, body: Record<string, unknown>): Promise<string> => {
      const r = await t.http
        .post(`/app/sdk${path}`)
        .set(...bearer(owner.token))
        .send(body);
      expect(r.body.code).toBe(0);
      return r.body.data.event_id as string;
    };
    const say = (text: string): Promise<string> =>
      post('/messages/send', {
        conversation_id: cid,
        client_message_id: `g-${randomBytes(6).toString('hex')}`,
        type: 'text',
        content: { text },
      });
    const m = await connect(url, { auth: { token: member.token } });
    await post('/groups/create', { group_id: groupId, name: 'g', member_ids: [member.userId] });
    // The last position the member processed: group.created, received live.
    const point = (await m.waitFor(() => m.of('group.created')[0], 5000, 'group.created')).position;
    m.close();
    const before = await say('while a member');
    const removal = await post('/groups/members/remove', { group_id: groupId, user_ids: [member.userId] });
    await say('after the removal');
    const { client, ready } = await k.resume(member, point);
    expect(ready).toMatchObject({ resumed: true, replayed: 2 });
    expect(client.of().map((e) => e.event_id)).toEqual([before, removal]);
    expect(client.of()[0].data).toMatchObject({ conversation_id: cid, unread: null });
    client.close();
  });

  it("positions only grow within one user's stream, and each resumes exactly the suffix after it", async () => {
    const { alice, bob } = await k.pair();
    const owner = await issueUser(t);
    const groupId = `rt.${randomBytes(6).toString('hex')}`;
    const b = await connect(url, { auth: { token: bob.token } });
    const created = await t.http
      .post('/app/sdk/groups/create')
      .set(...bearer(owner.token))
      .send({ group_id: groupId, name: 'g', member_ids: [bob.userId] });
    const ids = [created.body.data.event_id as string];
    for (let i = 0; i < 4; i += 1) {
      ids.push(await k.send(alice, bob, `direct ${i}`));
      const g = await t.http
        .post('/app/sdk/messages/send')
        .set(...bearer(owner.token))
        .send({
          conversation_id: `group_${groupId}`,
          client_message_id: `g-${i}-${randomBytes(4).toString('hex')}`,
          type: 'text',
          content: { text: `group ${i}` },
        });
      ids.push(g.body.data.event_id as string);
    }
    await b.waitForEvent(ids[ids.length - 1]);
    const events = b.of();
    expect(events.map((e) => e.event_id)).toEqual(ids);
    const positions = events.map((e) => e.position!);
    expect(new Set(positions).size).toBe(positions.length);
    // Opaque strings, but "only grow": decimal ones numerically, any other form as strings.
    const grows = positions.every(
      (p, i) =>
        i === 0 ||
        (/^\d+$/.test(p) && /^\d+$/.test(positions[i - 1])
          ? BigInt(p) > BigInt(positions[i - 1])
          : p > positions[i - 1]),
    );
    expect({ positions, grows }).toEqual({ positions, grows: true });
    b.close();
    for (const i of [0, 3, 7, ids.length - 1]) {
      const { client, ready } = await k.resume(bob, positions[i]);
      expect(ready).toMatchObject({ resumed: true, replayed: ids.length - 1 - i });
      expect(client.of().map((e) => e.event_id)).toEqual(ids.slice(i + 1));
      client.close();
    }
  });

  it('loses and doubles nothing when events commit while the client resumes', async () => {
    const { alice, bob } = await k.pair();
    const b = await connect(url, { auth: { token: bob.token } });
    const point = (await b.waitForEvent(await k.send(alice, bob, 'start'))).position;
    b.close();
    const sent: string[] = [];
    let sending = true;
    const sender = (async () => {
      while (sending) sent.push(await k.send(alice, bob, `m${sent.length}`));
    })();
    await sleep(50);
    const clients: RtClient[] = [];
    for (let i = 0; i < 3; i += 1) {
      clients.push((await k.resume(bob, point)).client);
      await sleep(30);
    }
    await sleep(100);
    sending = false;
    await sender;
    for (const c of clients) {
      await c.waitForEvent(sent[sent.length - 1]);
      expect(duplicateEventIds(c)).toEqual([]);
      expect(c.of('message.new').map((e) => e.event_id)).toEqual(sent);
      c.close();
    }
  });
});

describe('real-time resume limits (REALTIME_BACKLOG_SECONDS=60, REALTIME_BACKLOG_EVENTS=5)', () => {
  let t: TestApp;
  let url: string;
  let k: ReturnType<typeof kit>;
  beforeAll(async () => {
    t = await startTestApp({ REALTIME_BACKLOG_SECONDS: '60', REALTIME_BACKLOG_EVENTS: '5' });
    url = await listen(t);
    k = kit(t, url);
  });
  afterAll(() => t.close());

  /** Bob's position after one event he saw live. */
  async function seenPosition({ alice, bob }: Pair): Promise<string> {
    const b = await connect(url, { auth: { token: bob.token } });
    const position = (await b.waitForEvent(await k.send(alice, bob, 'seen'))).position!;
    b.close();
    return position;
  }

  it('replays up to REALTIME_BACKLOG_EVENTS missed events, and none when more are missed', async () => {
    const within = await k.pair();
    const p1 = await seenPosition(within);
    const five: string[] = [];
    for (let i = 0; i < 5; i += 1) five.push(await k.send(within.alice, within.bob, `m${i}`));
    const ok = await k.resume(within.bob, p1);
    expect(ok.ready).toMatchObject({ resumed: true, replayed: 5 });
    expect(ok.client.of().map((e) => e.event_id)).toEqual(five);
    ok.client.close();

    const beyond = await k.pair();
    const p2 = await seenPosition(beyond);
    for (let i = 0; i < 6; i += 1) await k.send(beyond.alice, beyond.bob, `m${i}`);
    const refused = await k.resume(beyond.bob, p2);
    expect(refused.ready).toMatchObject({ resumed: false, replayed: 0 });
    expect(replayed(refused.client)).toEqual([]);
    refused.client.close();
  });

  it("a refused resume sends no event before ready, even while the user's events keep committing", async () => {
    const pair = await k.pair();
    const stale = await seenPosition(pair);
    for (let i = 0; i < 6; i += 1) await k.send(pair.alice, pair.bob, `m${i}`);
    let sending = true;
    const sender = (async () => {
      while (sending) await k.send(pair.alice, pair.bob, 'meanwhile');
    })();
    const early: Array<{ attempt: number; before: number; replayed: number }> = [];
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const { client, ready } = await k.resume(pair.bob, stale);
      expect(ready.resumed).toBe(false);
      if (replayed(client).length > 0)
        early.push({ attempt, before: replayed(client).length, replayed: ready.replayed });
      client.close();
    }
    sending = false;
    await sender;
    expect(early).toEqual([]);
  });

  it('gives no replay for a position older than REALTIME_BACKLOG_SECONDS', async () => {
    const fresh = await k.pair();
    const stale = await k.pair();
    const stalePosition = await seenPosition(stale);
    await k.send(stale.alice, stale.bob, 'missed');
    t.clock.advance(61_000);
    // Just as old in events (one missed), but older than the backlog's 60 s.
    const refused = await k.resume(stale.bob, stalePosition);
    expect(refused.ready).toMatchObject({ resumed: false, replayed: 0 });
    expect(replayed(refused.client)).toEqual([]);
    refused.client.close();
    // The control: a position made after the clock moved still resumes.
    const freshPosition = await seenPosition(fresh);
    const missed = await k.send(fresh.alice, fresh.bob, 'missed');
    const resumed = await k.resume(fresh.bob, freshPosition);
    expect(resumed.ready).toMatchObject({ resumed: true, replayed: 1 });
    expect(resumed.client.of().map((e) => e.event_id)).toEqual([missed]);
    resumed.client.close();
  });
});
