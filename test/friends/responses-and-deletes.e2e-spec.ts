// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the documented choices (docs/api.md). Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (docs/api.md: 1206 convergence on accept).
import { DataSource } from 'typeorm';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, Friend, FriendRequest, IssuedUser, Page, cmid, friendCid } from '../helpers/api-client';
import { expectEventType, expectFail, expectOk } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

describe('Friends (black box)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  const friendIds = async (u: IssuedUser): Promise<string[]> =>
    (await api.friends(u)).items.map((f) => f.user.user_id).sort();

  describe('accepting and rejecting', () => {
    it('accept makes both friends, creates the one-to-one conversation and writes an event', async () => {
      const [a, b] = await api.users(2);
      const { request: r } = await api.friendRequest(a, b, { message: 'hi' });
      const data = expectOk<{ friend: Friend; event_id: string }>(await api.raw.acceptRequest(b, r.id));
      expect(data.friend.user.user_id).toBe(a.userId);
      expect(data.friend.conversation_id).toBe(friendCid(a));
      expect(typeof data.friend.since).toBe('number');
      expect(typeof data.event_id).toBe('string');
      const rows: { type: string }[] = await db.query('SELECT type FROM outbox_events WHERE event_id = ?', [
        data.event_id,
      ]);
      expect(rows).toHaveLength(1);
      expect(['friend.request_accepted', 'friend.added']).toContain(rows[0].type);

      const fa = (await api.friends(a)).items;
      const fb = (await api.friends(b)).items;
      expect(fa.map((f) => [f.user.user_id, f.conversation_id])).toEqual([[b.userId, friendCid(b)]]);
      expect(fb.map((f) => [f.user.user_id, f.conversation_id])).toEqual([[a.userId, friendCid(a)]]);
      expect((await api.friendRequests(a, 'outgoing'))[0].status).toBe('accepted');
      expect((await api.friendRequests(b, 'incoming', 'accepted')).map((x) => x.id)).toEqual([r.id]);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toEqual([]);
      // The shared conversation works both ways.
      const sent = expectOk<{ message: { conversation_id: string } }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'hello friend' },
        }),
      );
      expect(sent.message.conversation_id).toBe(friendCid(b));
      const sync = expectOk<{ conversations: Page<{ conversation_id: string; unread: number }> }>(
        await api.raw.sync(b),
      );
      expect(sync.conversations.items.find((c) => c.conversation_id === friendCid(a))?.unread).toBe(1);
    });

    it('accept by the sender, by a stranger, of an unknown ID, or a second time is refused (1205) and changes nothing', async () => {
      const [a, b, c] = await api.users(3);
      const { request: r } = await api.friendRequest(a, b);
      expectFail(await api.raw.acceptRequest(a, r.id), 1205);
      expectFail(await api.raw.acceptRequest(c, r.id), 1205);
      expectFail(await api.raw.rejectRequest(a, r.id), 1205);
      expectFail(await api.raw.rejectRequest(c, r.id), 1205);
      expectFail(await api.raw.acceptRequest(b, '999999999999999'), 1205);
      expect(await friendIds(a)).toEqual([]);
      expect((await api.friendRequests(b, 'incoming', 'pending')).map((x) => x.id)).toEqual([r.id]);
      expectOk(await api.raw.acceptRequest(b, r.id));
      // No longer pending: 1205 (docs/api.md) or 1206 (already friends, converging) — never a success with a new event.
      const again = await api.raw.acceptRequest(b, r.id);
      expect(again.status).toBe(200);
      expect([1205, 1206]).toContain(again.body.code);
      expectFail(await api.raw.rejectRequest(b, r.id), 1205);
      expect(await friendIds(b)).toEqual([a.userId]);
    });

    it.each([
      ['missing', undefined],
      ['a number', 12],
      ['not decimal', 'abc'],
      ['zero', '0'],
      ['20 digits', '12345678901234567890'],
      ['negative', '-1'],
    ])('accept/reject with id %s is 1004 naming id', async (_label, id) => {
      const [a, b] = await api.users(2);
      const { request: r } = await api.friendRequest(a, b);
      expectFail(await api.raw.acceptRequest(b, id), 1004, 'id');
      expectFail(await api.raw.rejectRequest(b, id), 1004, 'id');
      expect((await api.friendRequests(b, 'incoming', 'pending')).map((x) => x.id)).toEqual([r.id]);
    });

    it('reject marks it rejected with an event; it can no longer be accepted; a new request may follow', async () => {
      const [a, b] = await api.users(2);
      const { request: r } = await api.friendRequest(a, b);
      const data = expectOk<{ request: FriendRequest; event_id: string }>(await api.raw.rejectRequest(b, r.id));
      expect(data.request).toMatchObject({ id: r.id, status: 'rejected' });
      await expectEventType(t, data.event_id, 'friend.request_rejected');
      expectFail(await api.raw.acceptRequest(b, r.id), 1205);
      expectFail(await api.raw.rejectRequest(b, r.id), 1205);
      expect(await friendIds(a)).toEqual([]);
      expect((await api.friendRequests(a, 'outgoing', 'rejected')).map((x) => x.id)).toEqual([r.id]);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toEqual([]);
      const next = await api.friendRequest(a, b, { message: 'again' });
      expect(next.request.id).not.toBe(r.id);
      expect(next.request.status).toBe('pending');
    });

    it('accepting when already friends is 1206 and marks the request accepted (converging)', async () => {
      const [a, b] = await api.users(2);
      const { request: r } = await api.friendRequest(a, b);
      await factories.seed.friends(a.id, b.id); // the friendship appeared by another path
      expectFail(await api.raw.acceptRequest(b, r.id), 1206);
      expect((await api.friendRequests(b, 'incoming')).find((x) => x.id === r.id)?.status).toBe('accepted');
      expect(await friendIds(b)).toEqual([a.userId]);
    });

    it('two accepts at once converge on one friendship; the loser gets 1205 or 1206, never 500', async () => {
      for (let round = 0; round < 4; round += 1) {
        const [a, b] = await api.users(2);
        const { request: r } = await api.friendRequest(a, b);
        const replies = await Promise.all([
          api.raw.acceptRequest(b, r.id),
          api.raw.acceptRequest(b, r.id),
          api.raw.acceptRequest(b, r.id),
        ]);
        const codes = replies.map((x) => x.body.code as number);
        for (const x of replies) expect(x.status).toBe(200);
        expect(codes.filter((c) => c === 0)).toHaveLength(1);
        for (const c of codes.filter((c) => c !== 0)) expect([1205, 1206]).toContain(c);
        expect(await friendIds(a)).toEqual([b.userId]);
        expect(await friendIds(b)).toEqual([a.userId]);
      }
    });

    it('accept and reject at once: exactly one wins and the state matches it', async () => {
      for (let round = 0; round < 3; round += 1) {
        const [a, b] = await api.users(2);
        const { request: r } = await api.friendRequest(a, b);
        const [acc, rej] = await Promise.all([api.raw.acceptRequest(b, r.id), api.raw.rejectRequest(b, r.id)]);
        expect([acc.status, rej.status]).toEqual([200, 200]);
        const wins = [acc.body.code, rej.body.code].filter((c) => c === 0).length;
        expect(wins).toBe(1);
        const status = (await api.friendRequests(b, 'incoming')).find((x) => x.id === r.id)?.status;
        if (acc.body.code === 0) {
          expect(status).toBe('accepted');
          expect(await friendIds(b)).toEqual([a.userId]);
        } else {
          expect(status).toBe('rejected');
          expect(await friendIds(b)).toEqual([]);
        }
      }
    });
  });

  describe('friends list and delete', () => {
    it('delete removes the friendship both ways, writes friend.deleted, keeps history and forbids sending (1203)', async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      const sent = expectOk<{ message: { mid: string } }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'before delete' },
        }),
      );
      const data = expectOk<{ event_id: string }>(await api.raw.unfriend(a, b.userId));
      await expectEventType(t, data.event_id, 'friend.deleted');
      expect(await friendIds(a)).toEqual([]);
      expect(await friendIds(b)).toEqual([]);
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'after' },
        }),
        1203,
      );
      expectFail(
        await api.raw.send(b, {
          conversation_id: friendCid(a),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'after' },
        }),
        1203,
      );
      const window = expectOk<{ messages: { mid: string }[] }>(
        await api.raw.messages(b, { conversation_id: friendCid(a), after_seq: '0' }),
      );
      expect(window.messages.map((m) => m.mid)).toEqual([sent.message.mid]);
      // They may become friends again, and the same conversation continues.
      await api.befriend(b, a);
      expect(await friendIds(a)).toEqual([b.userId]);
      expectOk(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'again' },
        }),
      );
    });

    it('lists friends most recent friendship first, each with the conversation ID as I see it', async () => {
      const [me] = await api.users(1);
      const others = await api.users(3);
      for (const o of others) {
        await api.befriend(o, me);
        t.clock.advance(5);
      }
      const list = (await api.friends(me)).items;
      expect(list.map((f) => f.user.user_id)).toEqual(others.map((o) => o.userId).reverse());
      expect(list.map((f) => f.conversation_id)).toEqual(others.map((o) => friendCid(o)).reverse());
      const since = list.map((f) => f.since);
      expect([...since].sort((x, y) => y - x)).toEqual(since);
    });

    it('delete of a non-friend changes nothing and is not a success with an event; bad user_id is 1004', async () => {
      const [a, b] = await api.users(2);
      const r = await api.raw.unfriend(a, b.userId);
      expect(r.status).toBe(200);
      if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
      expectFail(await api.raw.unfriend(a, 42), 1004, 'user_id');
      expectFail(await api.raw.unfriend(a, undefined), 1004, 'user_id');
      expectFail(await api.raw.unfriend(a, ''), 1004, 'user_id');
    });
  });
});
