// Black-box tests of live delivery, written from issue 11's contract: every durable event reaches
// exactly the users who may see it (members, both sides of a one-to-one, own devices), under its
// type with the HTTP reply's event_id; per-recipient private state (2.2, 6.3); read receipts.
// "Must not receive" is checked after a later event the user does receive (see fence).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { Seed } from '../helpers/factories';
import { connect, duplicateEventIds, fence, listen, Received, RtClient } from '../helpers/realtime';
import { bearer, friendConversationId, IssuedUser, issueUser, startTestApp, TestApp } from '../helpers/test-app';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const gid = (): string => `rt.${randomBytes(6).toString('hex')}`;
const cmid = (): string => `c-${randomBytes(6).toString('hex')}`;

function ok(response: Response): Body {
  expect({ status: response.status, code: response.body?.code, msg: response.body?.msg }).toEqual({
    status: 200,
    code: 0,
    msg: 'ok',
  });
  return response.body.data as Body;
}

describe('real-time delivery (contract)', () => {
  let t: TestApp;
  let url: string;
  let seed: Seed;
  const open: RtClient[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    seed = new Seed(t);
  });
  afterEach(() => {
    for (const c of open.splice(0)) {
      expect(duplicateEventIds(c)).toEqual([]);
      c.close();
    }
  });
  afterAll(() => t.close());

  const post = async (u: IssuedUser, path: string, body: Body): Promise<Body> =>
    ok(
      await t.http
        .post(`/app/sdk${path}`)
        .set(...bearer(u.token))
        .send(body),
    );
  const send = (u: IssuedUser, conversationId: string, text = 'hi'): Promise<Body> =>
    post(u, '/messages/send', {
      conversation_id: conversationId,
      client_message_id: cmid(),
      type: 'text',
      content: { text },
    });
  async function sockets(u: IssuedUser, n = 1): Promise<RtClient[]> {
    const out: RtClient[] = [];
    for (let i = 0; i < n; i += 1) out.push(await connect(url, { auth: { token: u.token } }));
    open.push(...out);
    return out;
  }
  const users = (n: number): Promise<IssuedUser[]> => Promise.all(Array.from({ length: n }, () => issueUser(t)));

  /** The event reaches every client, under its type, with the envelope; answers what each got. */
  async function delivered(eventId: string, type: string, clients: RtClient[]): Promise<Received[]> {
    expect(typeof eventId).toBe('string');
    const got = await Promise.all(clients.map((c) => c.waitForEvent(eventId)));
    for (const e of got)
      expect(e).toMatchObject({
        name: type,
        type,
        event_id: eventId,
        position: expect.any(String),
        created_at: expect.any(Number),
        data: expect.any(Object),
      });
    return got;
  }
  /** None of `eventIds` (nor, with `types`, any event of those types) reached the users' clients. */
  async function notDelivered(
    eventIds: string[],
    who: Array<[IssuedUser, RtClient[]]>,
    types: string[] = [],
  ): Promise<void> {
    for (const [user, clients] of who) await fence(t, user, clients);
    for (const [user, clients] of who)
      for (const c of clients)
        expect({
          user: user.userId,
          got: c.events.filter((e) => eventIds.includes(e.event_id) || types.includes(e.name)).map((e) => e.name),
        }).toEqual({ user: user.userId, got: [] });
  }

  describe('messages', () => {
    it('one-to-one: both sides (every device) get new/recalled/deleted with their own conversation_id and unread', async () => {
      const [alice, bob, carol] = await users(3);
      await seed.friends(alice.id, bob.id);
      await seed.friends(alice.id, carol.id);
      const [a1, a2] = await sockets(alice, 2);
      const [b1] = await sockets(bob);
      const [c1] = await sockets(carol);
      const toBob = friendConversationId(bob);
      const toAlice = friendConversationId(alice);

      const first = await send(alice, toBob, 'one');
      const second = await send(alice, toBob, 'two');
      const [forBob] = await delivered(first.event_id, 'message.new', [b1]);
      expect(forBob.data).toMatchObject({
        conversation_id: toAlice,
        unread: 1,
        message: { mid: first.message.mid, content: { text: 'one' } },
      });
      expect((await delivered(second.event_id, 'message.new', [b1]))[0].data).toMatchObject({
        conversation_id: toAlice,
        unread: 2,
      });
      for (const e of await delivered(second.event_id, 'message.new', [a1, a2]))
        expect(e.data).toMatchObject({ conversation_id: toBob, unread: 0, message: { mid: second.message.mid } });

      const recalled = await post(alice, '/messages/recall', { conversation_id: toBob, mid: second.message.mid });
      expect((await delivered(recalled.event_id, 'message.recalled', [b1]))[0].data).toMatchObject({
        conversation_id: toAlice,
        unread: 1,
        message: { mid: second.message.mid, status: 'recalled' },
      });
      for (const e of await delivered(recalled.event_id, 'message.recalled', [a1, a2]))
        expect(e.data).toMatchObject({ conversation_id: toBob, unread: 0 });

      const deleted = await post(alice, '/messages/delete', { conversation_id: toBob, mid: first.message.mid });
      expect((await delivered(deleted.event_id, 'message.deleted', [b1]))[0].data).toMatchObject({
        conversation_id: toAlice,
        unread: 0,
        message: { mid: first.message.mid, status: 'deleted' },
      });
      for (const e of await delivered(deleted.event_id, 'message.deleted', [a1, a2]))
        expect(e.data).toMatchObject({ conversation_id: toBob, unread: 0 });

      // Bob's reply reaches Alice with Alice's own conversation ID and unread.
      const reply = await send(bob, toAlice, 'back');
      expect((await delivered(reply.event_id, 'message.new', [a1]))[0].data).toMatchObject({
        conversation_id: toBob,
        unread: 1,
      });
      // Carol, Alice's friend, hears nothing of the Alice–Bob conversation.
      await notDelivered(
        [first.event_id, second.event_id, recalled.event_id, deleted.event_id, reply.event_id],
        [[carol, [c1]]],
      );
    });

    it('group: every member (and device) gets new/recalled/deleted with the group conversation and unread: null; outsiders do not', async () => {
      const [owner, m1, m2, outsider] = await users(4);
      await seed.friends(m1.id, outsider.id);
      const groupId = gid();
      await post(owner, '/groups/create', { group_id: groupId, name: 'g', member_ids: [m1.userId, m2.userId] });
      const [o1] = await sockets(owner);
      const m1s = await sockets(m1, 2);
      const [m21] = await sockets(m2);
      const [x1] = await sockets(outsider);
      const all = [o1, ...m1s, m21];
      const cid = `group_${groupId}`;

      const a = await send(m1, cid, 'first');
      const b = await send(m2, cid, 'second');
      for (const e of await delivered(a.event_id, 'message.new', all)) {
        expect(e.data).toMatchObject({ conversation_id: cid, message: { mid: a.message.mid } });
        expect('unread' in e.data && e.data.unread).toBeNull();
      }
      const recalled = await post(owner, '/messages/recall', { conversation_id: cid, mid: a.message.mid });
      for (const e of await delivered(recalled.event_id, 'message.recalled', all))
        expect(e.data).toMatchObject({ conversation_id: cid, unread: null, message: { mid: a.message.mid } });
      const deleted = await post(m2, '/messages/delete', { conversation_id: cid, mid: b.message.mid });
      for (const e of await delivered(deleted.event_id, 'message.deleted', all))
        expect(e.data).toMatchObject({ conversation_id: cid, unread: null, message: { mid: b.message.mid } });
      await notDelivered([a.event_id, b.event_id, recalled.event_id, deleted.event_id], [[outsider, [x1]]]);
    });

    it('a removed member and a leaver stop receiving (not even a recall of what they saw)', async () => {
      const [owner, stay, removed, leaver] = await users(4);
      const groupId = gid();
      const cid = `group_${groupId}`;
      await post(owner, '/groups/create', {
        group_id: groupId,
        name: 'g',
        member_ids: [stay.userId, removed.userId, leaver.userId],
      });
      const [o1] = await sockets(owner);
      const [s1] = await sockets(stay);
      const [r1] = await sockets(removed);
      const [l1] = await sockets(leaver);
      const seen = await send(stay, cid, 'everyone saw this');
      await delivered(seen.event_id, 'message.new', [o1, s1, r1, l1]);

      const removal = await post(owner, '/groups/members/remove', { group_id: groupId, user_ids: [removed.userId] });
      await delivered(removal.event_id, 'group.members_removed', [o1, s1, l1, r1]);
      const afterRemoval = await send(stay, cid, 'after removal');
      await delivered(afterRemoval.event_id, 'message.new', [o1, s1, l1]);

      const left = await post(leaver, '/groups/leave', { group_id: groupId });
      await delivered(left.event_id, 'group.member_left', [o1, s1, l1]);
      const afterLeave = await send(owner, cid, 'after leave');
      const recall = await post(owner, '/messages/recall', { conversation_id: cid, mid: seen.message.mid });
      await delivered(afterLeave.event_id, 'message.new', [o1, s1]);
      await delivered(recall.event_id, 'message.recalled', [o1, s1]);
      await notDelivered([afterRemoval.event_id, afterLeave.event_id, recall.event_id], [[removed, [r1]]]);
      await notDelivered([afterLeave.event_id, recall.event_id], [[leaver, [l1]]]);
    });

    it('a newcomer starts at joining: later messages, never earlier ones (live or on resume)', async () => {
      const [owner, member, newcomer] = await users(3);
      const groupId = gid();
      const cid = `group_${groupId}`;
      await post(owner, '/groups/create', { group_id: groupId, name: 'g', member_ids: [member.userId] });
      const n1 = await connect(url, { auth: { token: newcomer.token } });
      const start = await n1.waitForReady();
      const [o1] = await sockets(owner);
      const before = await send(member, cid, 'before joining');
      await delivered(before.event_id, 'message.new', [o1]);
      const added = await post(owner, '/groups/members/add', { group_id: groupId, user_ids: [newcomer.userId] });
      await delivered(added.event_id, 'group.members_added', [n1, o1]);
      const after = await send(member, cid, 'after joining');
      expect((await delivered(after.event_id, 'message.new', [n1]))[0].data).toMatchObject({
        conversation_id: cid,
        unread: null,
      });
      expect(n1.events.map((e) => e.event_id)).not.toContain(before.event_id);
      n1.close();

      const resumed = await connect(url, { auth: { token: newcomer.token, position: start.position } });
      open.push(resumed);
      expect(await resumed.waitForReady()).toMatchObject({ resumed: true });
      expect(resumed.of().map((e) => e.event_id)).toEqual([added.event_id, after.event_id]);
    });
  });

  describe('reads', () => {
    it('one-to-one: conversation.read on every device of the reader; conversation.peer_read to the peer only', async () => {
      const [alice, bob, carol] = await users(3);
      await seed.friends(alice.id, bob.id);
      await seed.friends(bob.id, carol.id);
      const [a1] = await sockets(alice);
      const [phone, web] = await sockets(bob, 2);
      const [c1] = await sockets(carol);
      await send(alice, friendConversationId(bob), 'one');
      const two = await send(alice, friendConversationId(bob), 'two');
      await delivered(two.event_id, 'message.new', [phone, web, a1]);

      const read = await post(bob, '/messages/read', { conversation_id: friendConversationId(alice), read_seq: '2' });
      for (const e of await delivered(read.event_id, 'conversation.read', [phone, web]))
        expect(e.data).toEqual({ conversation_id: friendConversationId(alice), read_seq: '2', unread: 0 });
      const receipt = await a1.waitFor(() => a1.of('conversation.peer_read')[0], 5000, 'conversation.peer_read');
      expect(receipt).toMatchObject({
        type: 'conversation.peer_read',
        position: expect.any(String),
        event_id: expect.any(String),
      });
      expect(receipt.data).toEqual({ conversation_id: friendConversationId(bob), read_seq: '2' });
      await notDelivered([read.event_id], [[alice, [a1]]]);
      await notDelivered(
        [read.event_id, receipt.event_id],
        [[carol, [c1]]],
        ['conversation.read', 'conversation.peer_read'],
      );
      expect(phone.of('conversation.peer_read').concat(web.of('conversation.peer_read'))).toEqual([]);
    });

    it("group: conversation.read reaches the reader's devices and no one else is told", async () => {
      const [owner, reader, other] = await users(3);
      const groupId = gid();
      const cid = `group_${groupId}`;
      await post(owner, '/groups/create', { group_id: groupId, name: 'g', member_ids: [reader.userId, other.userId] });
      const [o1] = await sockets(owner);
      const readerSockets = await sockets(reader, 2);
      const [x1] = await sockets(other);
      const sent = await send(owner, cid, 'read me');
      await delivered(sent.event_id, 'message.new', [...readerSockets, x1]);
      const read = await post(reader, '/messages/read', {
        conversation_id: cid,
        read_seq: sent.message.conversation_seq,
      });
      for (const e of await delivered(read.event_id, 'conversation.read', readerSockets))
        expect(e.data).toMatchObject({ conversation_id: cid, read_seq: sent.message.conversation_seq, unread: 0 });
      await notDelivered(
        [read.event_id],
        [
          [owner, [o1]],
          [other, [x1]],
        ],
        ['conversation.read', 'conversation.peer_read'],
      );
      for (const c of readerSockets) expect(c.of('conversation.peer_read')).toEqual([]);
    });

    it("conversation.updated (pin) reaches only the user's own devices", async () => {
      const [alice, bob] = await users(2);
      await seed.friends(alice.id, bob.id);
      const [a1] = await sockets(alice);
      const bobs = await sockets(bob, 2);
      const pinned = await post(bob, '/conversations/pin', {
        conversation_id: friendConversationId(alice),
        pinned: true,
      });
      for (const e of await delivered(pinned.event_id, 'conversation.updated', bobs))
        expect(e.data).toMatchObject({ conversation_id: friendConversationId(alice), pinned: true });
      await notDelivered([pinned.event_id], [[alice, [a1]]]);
    });
  });

  describe('friends and profiles', () => {
    it('friend.* events reach the users concerned (all their devices), never a bystander', async () => {
      const [alice, bob, carol] = await users(3);
      const alices = await sockets(alice, 2);
      const [b1] = await sockets(bob);
      const [c1] = await sockets(carol);
      const rid = (): string => `r-${randomBytes(6).toString('hex')}`;

      const asked = await post(alice, '/friends/requests', { user_id: bob.userId, request_id: rid() });
      for (const e of await delivered(asked.event_id, 'friend.request_created', [...alices, b1]))
        expect(e.data.request).toMatchObject({ id: asked.request.id });
      const rejected = await post(bob, '/friends/requests/reject', { id: asked.request.id });
      await delivered(rejected.event_id, 'friend.request_rejected', [...alices, b1]);

      const again = await post(alice, '/friends/requests', { user_id: bob.userId, request_id: rid() });
      await delivered(again.event_id, 'friend.request_created', [...alices, b1]);
      const accepted = await post(bob, '/friends/requests/accept', { id: again.request.id });
      for (const e of await delivered(accepted.event_id, 'friend.added', alices))
        expect(e.data.friend).toMatchObject({
          user: { user_id: bob.userId },
          conversation_id: friendConversationId(bob),
        });
      expect((await delivered(accepted.event_id, 'friend.added', [b1]))[0].data.friend).toMatchObject({
        user: { user_id: alice.userId },
        conversation_id: friendConversationId(alice),
      });

      const removed = await post(alice, '/friends/delete', { user_id: bob.userId });
      for (const e of await delivered(removed.event_id, 'friend.deleted', alices))
        expect(e.data).toMatchObject({ user_id: bob.userId, conversation_id: friendConversationId(bob) });
      expect((await delivered(removed.event_id, 'friend.deleted', [b1]))[0].data).toMatchObject({
        user_id: alice.userId,
        conversation_id: friendConversationId(alice),
      });

      // A block is the blocker's own business: the blocked user is not told.
      const blocked = await post(alice, '/friends/block', { user_id: bob.userId });
      await delivered(blocked.event_id, 'friend.blocked', alices);
      const unblocked = await post(alice, '/friends/unblock', { user_id: bob.userId });
      expect((await delivered(unblocked.event_id, 'friend.unblocked', alices))[0].data).toMatchObject({
        user_id: bob.userId,
      });
      await notDelivered([blocked.event_id, unblocked.event_id], [[bob, [b1]]]);
      await notDelivered(
        [
          asked.event_id,
          rejected.event_id,
          again.event_id,
          accepted.event_id,
          removed.event_id,
          blocked.event_id,
          unblocked.event_id,
        ],
        [[carol, [c1]]],
      );
    });

    it("user.profile_updated reaches the user's devices and friends, not strangers", async () => {
      const [alice, bob, stranger] = await users(3);
      await seed.friends(alice.id, bob.id);
      const alices = await sockets(alice, 2);
      const [b1] = await sockets(bob);
      const [s1] = await sockets(stranger);
      const updated = await post(alice, '/users/me/update', { nickname: 'Alice Renamed' });
      for (const e of await delivered(updated.event_id, 'user.profile_updated', [...alices, b1]))
        expect(e.data.user).toMatchObject({ user_id: alice.userId, nickname: 'Alice Renamed' });
      await notDelivered([updated.event_id], [[stranger, [s1]]]);
    });
  });

  describe('groups', () => {
    it('group.* events reach the members of the moment (and the ones concerned), never outsiders', async () => {
      const [owner, admin, member, target, joiner, outsider] = await users(6);
      const s = new Map<IssuedUser, RtClient>();
      for (const u of [owner, admin, member, target, joiner, outsider]) s.set(u, (await sockets(u))[0]);
      const to = (...us: IssuedUser[]): RtClient[] => us.map((u) => s.get(u)!);
      const groupId = gid();
      const check = async (data: Body, type: string, recipients: IssuedUser[]): Promise<void> => {
        for (const e of await delivered(data.event_id, type, to(...recipients)))
          expect(e.data).toMatchObject({ group_id: groupId, conversation_id: `group_${groupId}` });
      };
      const ids: string[] = [];
      const step = async (data: Body, type: string, recipients: IssuedUser[]): Promise<void> => {
        ids.push(data.event_id);
        await check(data, type, recipients);
      };

      await step(
        await post(owner, '/groups/create', {
          group_id: groupId,
          name: 'g',
          member_ids: [admin.userId, member.userId, target.userId],
        }),
        'group.created',
        [owner, admin, member, target],
      );
      await step(await post(owner, '/groups/update', { group_id: groupId, name: 'renamed' }), 'group.updated', [
        owner,
        admin,
        member,
        target,
      ]);
      await step(
        await post(owner, '/groups/admins/set', { group_id: groupId, user_id: admin.userId, admin: true }),
        'group.admin_changed',
        [owner, admin, member, target],
      );
      await step(
        await post(admin, '/groups/members/mute', { group_id: groupId, user_id: target.userId, duration_seconds: 600 }),
        'group.member_muted',
        [owner, admin, member, target],
      );
      const invitation = await post(admin, '/groups/invitations/create', { group_id: groupId });
      await step(invitation, 'group.invitation_created', [admin]);
      await step(await post(joiner, '/groups/join', { code: invitation.code }), 'group.member_joined', [
        owner,
        admin,
        member,
        target,
        joiner,
      ]);
      await step(
        await post(admin, '/groups/members/remove', { group_id: groupId, user_ids: [target.userId] }),
        'group.members_removed',
        [owner, admin, member, joiner, target],
      );
      await step(await post(member, '/groups/leave', { group_id: groupId }), 'group.member_left', [
        owner,
        admin,
        joiner,
        member,
      ]);
      await step(
        await post(owner, '/groups/members/add', { group_id: groupId, user_ids: [target.userId] }),
        'group.members_added',
        [owner, admin, joiner, target],
      );
      await step(
        await post(owner, '/groups/transfer', { group_id: groupId, user_id: admin.userId }),
        'group.owner_transferred',
        [owner, admin, joiner, target],
      );
      await step(await post(admin, '/groups/dismiss', { group_id: groupId }), 'group.dismissed', [
        owner,
        admin,
        joiner,
        target,
      ]);

      // Not told: the outsider anything; the invitation only to its creator; the departed after they went.
      await notDelivered(ids, [[outsider, to(outsider)]]);
      await notDelivered(
        [ids[4]],
        [
          [owner, to(owner)],
          [member, to(member)],
          [target, to(target)],
          [joiner, to(joiner)],
        ],
      );
      await notDelivered(ids.slice(0, 5), [[joiner, to(joiner)]]);
      await notDelivered(ids.slice(8), [[member, to(member)]]);
      await notDelivered(ids.slice(7, 8), [[target, to(target)]]);
    });
  });

  it('multi-device: every connection of a user gets every event, once, in the same order', async () => {
    const [alice, bob] = await users(2);
    await seed.friends(alice.id, bob.id);
    const devices = await sockets(alice, 3);
    const sent: string[] = [];
    for (let i = 0; i < 5; i += 1) sent.push((await send(bob, friendConversationId(alice), `m${i}`)).event_id);
    const read = await post(alice, '/messages/read', { conversation_id: friendConversationId(bob), read_seq: '5' });
    sent.push(read.event_id);
    for (const d of devices) {
      await d.waitForEvent(read.event_id);
      expect(d.of().map((e) => e.event_id)).toEqual(sent);
    }
  });
});
