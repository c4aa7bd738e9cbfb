// Black-box tests of what clients send, written from issue 11's contract: conversation.typing
// {conversation_id} with an acknowledgement ({code: 0}, or 1201 when not a member), relayed to the
// other members who can see the conversation as conversation.typing {conversation_id (their own),
// user_id} with position null, at most once per typer and conversation per second; and any client
// message as untrusted input: unknown event, wrong shape or over 16 KB → 1004 naming the field, a
// flood over REALTIME_CLIENT_MESSAGES_PER_10S → 1005, never a disconnect or a crash.
import { randomBytes } from 'node:crypto';
import { Seed } from '../helpers/factories';
import { connect, envelopeKeys, listen, RtClient, sleep } from '../helpers/realtime';
import { bearer, friendConversationId, IssuedUser, issueUser, startTestApp, TestApp } from '../helpers/test-app';

type Ack = { code: number; msg: string };
/** Long enough for a relay to arrive; typing is ephemeral, so there is no later event to wait for. */
const SETTLE_MS = 400;

const relays = (c: RtClient) => c.of('conversation.typing');

/** A client that remembers whether it was ever disconnected. */
function watch(c: RtClient): { disconnects: string[] } {
  const state = { disconnects: [] as string[] };
  c.socket.on('disconnect', (reason: string) => state.disconnects.push(reason));
  return state;
}

/**
 * Typing is relayed once per clock second (windows aligned to whole seconds): holds the app's
 * clock still just inside the next second, so that a burst of typing cannot straddle two
 * windows. Release with `t.clock.release()`.
 */
function holdInsideOneSecond(t: TestApp): void {
  t.clock.set(Math.ceil(t.clock.now() / 1000) * 1000 + 50);
}

describe('real-time client messages (contract)', () => {
  let t: TestApp;
  let url: string;
  let seed: Seed;
  const open: RtClient[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    seed = new Seed(t);
  });
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  afterAll(() => t.close());

  const users = (n: number): Promise<IssuedUser[]> => Promise.all(Array.from({ length: n }, () => issueUser(t)));
  async function sockets(u: IssuedUser, n = 1): Promise<RtClient[]> {
    const out: RtClient[] = [];
    for (let i = 0; i < n; i += 1) out.push(await connect(url, { auth: { token: u.token } }));
    open.push(...out);
    return out;
  }
  const typing = (c: RtClient, conversationId: string): Promise<Ack> =>
    c.request('conversation.typing', { conversation_id: conversationId });
  async function group(owner: IssuedUser, members: IssuedUser[]): Promise<{ groupId: string; cid: string }> {
    const groupId = `rt.${randomBytes(6).toString('hex')}`;
    const r = await t.http
      .post('/app/sdk/groups/create')
      .set(...bearer(owner.token))
      .send({ group_id: groupId, name: 'g', member_ids: members.map((m) => m.userId) });
    expect(r.body.code).toBe(0);
    return { groupId, cid: `group_${groupId}` };
  }

  describe('typing', () => {
    it("one-to-one: acks {code: 0}; the peer's devices get it under their own conversation_id; the typer and others do not", async () => {
      const [alice, bob, carol] = await users(3);
      await seed.friends(alice.id, bob.id);
      await seed.friends(alice.id, carol.id);
      const [a1, a2] = await sockets(alice, 2);
      const bobs = await sockets(bob, 2);
      const [c1] = await sockets(carol);
      expect(await typing(a1, friendConversationId(bob))).toEqual(expect.objectContaining({ code: 0 }));
      for (const b of bobs) {
        const relay = await b.waitFor(() => relays(b)[0], 3000, 'conversation.typing');
        expect(envelopeKeys(relay)).toEqual(['created_at', 'data', 'event_id', 'position', 'type']);
        expect(relay).toMatchObject({
          type: 'conversation.typing',
          position: null,
          event_id: expect.any(String),
          created_at: expect.any(Number),
        });
        expect(relay.data).toEqual({ conversation_id: friendConversationId(alice), user_id: alice.userId });
      }
      await sleep(SETTLE_MS);
      for (const c of [a1, a2, c1]) expect(relays(c)).toEqual([]);
    });

    it('group: the other current members get it with the group conversation; not the typer, a removed member or an outsider', async () => {
      const [owner, typer, member, removed, outsider] = await users(5);
      await seed.friends(typer.id, outsider.id);
      const { groupId, cid } = await group(owner, [typer, member, removed]);
      expect(
        (
          await t.http
            .post('/app/sdk/groups/members/remove')
            .set(...bearer(owner.token))
            .send({ group_id: groupId, user_ids: [removed.userId] })
        ).body.code,
      ).toBe(0);
      const [o1] = await sockets(owner);
      const [t1] = await sockets(typer);
      const [m1] = await sockets(member);
      const [r1] = await sockets(removed);
      const [x1] = await sockets(outsider);
      expect((await typing(t1, cid)).code).toBe(0);
      for (const c of [o1, m1])
        expect((await c.waitFor(() => relays(c)[0], 3000, 'conversation.typing')).data).toEqual({
          conversation_id: cid,
          user_id: typer.userId,
        });
      await sleep(SETTLE_MS);
      for (const c of [t1, r1, x1]) expect(relays(c)).toEqual([]);
      // The removed member may not type there any more.
      expect(await typing(r1, cid)).toEqual(expect.objectContaining({ code: 1201 }));
    });

    it("relays at most once per typer and conversation per second, across the typer's devices", async () => {
      const [alice, bob, carol] = await users(3);
      await seed.friends(alice.id, bob.id);
      await seed.friends(alice.id, carol.id);
      const [a1, a2] = await sockets(alice, 2);
      const [b1] = await sockets(bob);
      const [c1] = await sockets(carol);
      // The burst inside one second of the app's clock (held), however long it takes here.
      holdInsideOneSecond(t);
      try {
        const acks = await Promise.all([
          typing(a1, friendConversationId(bob)),
          typing(a1, friendConversationId(bob)),
          typing(a2, friendConversationId(bob)),
          typing(a1, friendConversationId(carol)),
        ]);
        expect(acks.map((a) => a.code)).toEqual([0, 0, 0, 0]);
        expect((await typing(a2, friendConversationId(bob))).code).toBe(0);
        await b1.waitFor(() => relays(b1)[0], 3000, 'conversation.typing');
        await c1.waitFor(
          () => relays(c1)[0],
          3000,
          'conversation.typing (another conversation is not throttled with the first)',
        );
        await sleep(SETTLE_MS);
        expect(relays(b1)).toHaveLength(1);
        expect(relays(c1)).toHaveLength(1);
        // A second later, typing is relayed again.
        t.clock.advance(1000);
        expect((await typing(a1, friendConversationId(bob))).code).toBe(0);
        await b1.waitFor(() => relays(b1)[1], 3000, "the next second's conversation.typing");
      } finally {
        t.clock.release();
      }
    });

    it('answers 1201 where the user is not a member, and relays nothing', async () => {
      const [alice, bob, stranger] = await users(3);
      await seed.friends(alice.id, bob.id);
      const { cid } = await group(alice, [bob]);
      const [s1] = await sockets(stranger);
      const [a1] = await sockets(alice);
      const [b1] = await sockets(bob);
      for (const conversationId of [
        cid,
        friendConversationId(alice),
        'group_no-such-group',
        `friend_${Buffer.from('nobody-here').toString('base64url')}`,
      ]) {
        expect({ conversationId, ack: await typing(s1, conversationId) }).toEqual({
          conversationId,
          ack: expect.objectContaining({ code: 1201, msg: expect.any(String) }),
        });
      }
      await sleep(SETTLE_MS);
      expect(relays(a1)).toEqual([]);
      expect(relays(b1)).toEqual([]);
    });

    it('is neither stored nor replayed on resume', async () => {
      const [alice, bob] = await users(2);
      await seed.friends(alice.id, bob.id);
      const [a1] = await sockets(alice);
      const b1 = await connect(url, { auth: { token: bob.token } });
      const point = (await b1.waitForReady()).position;
      b1.close();
      expect((await typing(a1, friendConversationId(bob))).code).toBe(0);
      const resumed = await connect(url, { auth: { token: bob.token, position: point } });
      open.push(resumed);
      expect(await resumed.waitForReady()).toMatchObject({ resumed: true, replayed: 0 });
      await sleep(SETTLE_MS);
      expect(relays(resumed)).toEqual([]);
    });
  });

  describe('invalid input', () => {
    it('answers an unknown event with 1004 and stays usable', async () => {
      const [alice, bob] = await users(2);
      await seed.friends(alice.id, bob.id);
      const [a1] = await sockets(alice);
      const state = watch(a1);
      for (const name of ['no.such.event', 'message.new', 'connection.ready', 'typing', 'constructor', '__proto__']) {
        expect({ name, ack: await a1.request(name, { conversation_id: friendConversationId(bob) }) }).toEqual({
          name,
          ack: expect.objectContaining({ code: 1004, msg: expect.any(String) }),
        });
      }
      a1.socket.emit('no.such.event.without.ack', { x: 1 });
      expect((await typing(a1, friendConversationId(bob))).code).toBe(0);
      expect(state.disconnects).toEqual([]);
    });

    it('answers a payload of the wrong shape with 1004 naming the field', async () => {
      const [alice, bob] = await users(2);
      await seed.friends(alice.id, bob.id);
      const [a1] = await sockets(alice);
      const state = watch(a1);
      const cid = friendConversationId(bob);
      const cases: Array<[string, string, unknown[], string | null]> = [
        ['typing: missing field', 'conversation.typing', [{}], 'conversation_id'],
        ['typing: number', 'conversation.typing', [{ conversation_id: 42 }], 'conversation_id'],
        ['typing: null field', 'conversation.typing', [{ conversation_id: null }], 'conversation_id'],
        ['typing: object field', 'conversation.typing', [{ conversation_id: { cid } }], 'conversation_id'],
        ['typing: binary field', 'conversation.typing', [{ conversation_id: Buffer.from(cid) }], null],
        ['typing: extra field', 'conversation.typing', [{ conversation_id: cid, extra_field: 1 }], 'extra_field'],
        ['typing: array', 'conversation.typing', [[cid]], null],
        ['typing: null', 'conversation.typing', [null], null],
        ['typing: string', 'conversation.typing', [cid], null],
        ['typing: nothing', 'conversation.typing', [], null],
        ['renew: missing field', 'auth.renew', [{}], 'token'],
        ['renew: number', 'auth.renew', [{ token: 1 }], 'token'],
        ['renew: extra field', 'auth.renew', [{ token: alice.token, user_id: 'someone' }], 'user_id'],
        ['renew: array', 'auth.renew', [[alice.token]], null],
        ['renew: null', 'auth.renew', [null], null],
      ];
      for (const [label, event, args, field] of cases) {
        const ack = await a1.request(event, ...args);
        expect({ label, code: ack.code, msgType: typeof ack.msg }).toEqual({ label, code: 1004, msgType: 'string' });
        if (field) expect({ label, msg: ack.msg }).toEqual({ label, msg: expect.stringContaining(field) });
      }
      expect((await typing(a1, cid)).code).toBe(0);
      expect(a1.socket.connected).toBe(true);
      expect(state.disconnects).toEqual([]);
    });

    it('answers a payload over 16 KB with 1004 and stays usable', async () => {
      const [alice, bob] = await users(2);
      await seed.friends(alice.id, bob.id);
      const [a1] = await sockets(alice);
      const [b1] = await sockets(bob);
      const state = watch(a1);
      const big = 'a'.repeat(17 * 1024);
      expect(await typing(a1, big)).toEqual(expect.objectContaining({ code: 1004 }));
      expect(
        await a1.request('conversation.typing', { conversation_id: friendConversationId(bob), padding: big }),
      ).toEqual(expect.objectContaining({ code: 1004 }));
      expect(await a1.request('auth.renew', { token: big })).toEqual(expect.objectContaining({ code: 1004 }));
      expect(await a1.request('no.such.event', { blob: big })).toEqual(expect.objectContaining({ code: 1004 }));
      await sleep(SETTLE_MS);
      expect(relays(b1)).toEqual([]);
      expect((await typing(a1, friendConversationId(bob))).code).toBe(0);
      await b1.waitFor(() => relays(b1)[0], 3000, 'conversation.typing after the oversized ones');
      expect(state.disconnects).toEqual([]);
    });
  });
});

describe('real-time client message rate limit (REALTIME_CLIENT_MESSAGES_PER_10S=5)', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ REALTIME_CLIENT_MESSAGES_PER_10S: '5' });
    url = await listen(t);
  });
  afterAll(() => t.close());

  it('answers 1005 past the per-socket limit, without disconnecting; other sockets and the process carry on', async () => {
    const alice = await issueUser(t);
    const bob = await issueUser(t);
    await new Seed(t).friends(alice.id, bob.id);
    const cid = friendConversationId(bob);
    const flooded = await connect(url, { auth: { token: alice.token } });
    const b1 = await connect(url, { auth: { token: bob.token } });
    const state = watch(flooded);
    // Its typing is relayed once per second of the app's clock: held inside one, the burst is one relay.
    holdInsideOneSecond(t);
    const codes = (
      await Promise.all(
        Array.from({ length: 12 }, () => flooded.request('conversation.typing', { conversation_id: cid })),
      )
    ).map((a) => a.code);
    expect(codes.every((c) => c === 0 || c === 1005)).toBe(true);
    const accepted = codes.filter((c) => c === 0).length;
    // Exactly 5 unless the burst straddles a window boundary.
    expect(accepted).toBeGreaterThanOrEqual(5);
    expect(accepted).toBeLessThanOrEqual(10);
    const limited = await flooded.request('conversation.typing', { conversation_id: cid });
    expect(limited).toEqual(expect.objectContaining({ code: 1005, msg: expect.any(String) }));
    // Garbage counts too, and is still answered.
    expect((await flooded.request('no.such.event', {})).code).toBe(1005);
    for (let i = 0; i < 20; i += 1) flooded.socket.emit('no.such.event', { i });
    await sleep(SETTLE_MS);
    expect(relays(b1).length).toBeLessThanOrEqual(1);
    t.clock.release();

    // The limit is per socket: another connection of the same user is not limited.
    const second = await connect(url, { auth: { token: alice.token } });
    expect((await second.request('conversation.typing', { conversation_id: cid })).code).toBe(0);
    expect((await t.http.get('/health')).status).toBe(200);

    // The flooded socket recovers once the window has passed.
    t.clock.advance(11_000);
    const deadline = Date.now() + 12_000;
    let code = -1;
    while (Date.now() < deadline && code !== 0) {
      code = (await flooded.request('conversation.typing', { conversation_id: cid })).code;
      if (code !== 0) await sleep(1000);
    }
    expect(code).toBe(0);
    expect(flooded.socket.connected).toBe(true);
    expect(state.disconnects).toEqual([]);
    for (const c of [flooded, b1, second]) c.close();
  }, 30_000);
});
