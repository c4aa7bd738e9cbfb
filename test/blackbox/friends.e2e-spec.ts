// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the documented choices (docs/api.md). Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (docs/api.md: 1206 convergence on accept).
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from '../helpers/outbox';
import { TestApp, bearer, randomUserId, startTestApp } from '../helpers/test-app';
import {
  ApiClient,
  Body,
  Friend,
  FriendRequest,
  IssuedUser,
  Page,
  UserObj,
  cmid,
  friendCid,
} from '../helpers/api-client';
import { expectEventType, expectFail, expectOk } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

const rid = (): string => `fr-${randomBytes(6).toString('hex')}`;

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

  describe('sending a request', () => {
    it('stores the request, shows it in both lists and writes friend.request_created', async () => {
      const [a, b] = await api.users(2);
      const requestId = rid();
      const data = expectOk<{ request: FriendRequest; friend: Friend | null; event_id: string }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'Hi, it is A 👋' }),
      );
      expect(data.friend).toBeNull();
      expect(data.request).toMatchObject({ request_id: requestId, message: 'Hi, it is A 👋', status: 'pending' });
      expect(data.request.from.user_id).toBe(a.userId);
      expect(data.request.to.user_id).toBe(b.userId);
      expect(data.request.id).toMatch(/^[1-9][0-9]*$/);
      await expectEventType(t, data.event_id, 'friend.request_created');

      const inB = await api.friendRequests(b, 'incoming');
      expect(inB.map((r) => r.id)).toEqual([data.request.id]);
      expect(inB[0]).toMatchObject({ status: 'pending', message: 'Hi, it is A 👋' });
      expect((await api.friendRequests(a, 'outgoing')).map((r) => r.id)).toEqual([data.request.id]);
      expect(await api.friendRequests(b, 'outgoing')).toEqual([]);
      expect(await api.friendRequests(a, 'incoming')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toHaveLength(1);
      expect(await api.friendRequests(b, 'incoming', 'accepted')).toHaveLength(0);
    });

    it('lists requests newest first', async () => {
      const [target] = await api.users(1);
      const senders = await api.users(4);
      const ids: string[] = [];
      for (const sender of senders) {
        ids.push((await api.friendRequest(sender, target)).request.id);
        t.clock.advance(5);
      }
      expect((await api.friendRequests(target, 'incoming')).map((r) => r.id)).toEqual([...ids].reverse());
    });

    it('a message that is absent or null is ""', async () => {
      const [a, b, c] = await api.users(3);
      expect((await api.friendRequest(a, b)).request.message).toBe('');
      expect(
        expectOk<{ request: FriendRequest }>(
          await api.raw.friendRequest(a, { user_id: c.userId, request_id: rid(), message: null }),
        ).request.message,
      ).toBe('');
    });

    it('a retry with the same request_id and content answers the stored request with event_id null; other content is 1004', async () => {
      const [a, b, c] = await api.users(3);
      const requestId = rid();
      const first = expectOk<{ request: FriendRequest; event_id: string }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'hello' }),
      );
      const retry = expectOk<{ request: FriendRequest; event_id: string | null }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'hello' }),
      );
      expect(retry.request.id).toBe(first.request.id);
      expect(retry.request.created_at).toBe(first.request.created_at);
      expect(retry.event_id).toBeNull();
      expectFail(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'other' }),
        1004,
        'request_id',
      );
      expectFail(
        await api.raw.friendRequest(a, { user_id: c.userId, request_id: requestId, message: 'hello' }),
        1004,
        'request_id',
      );
      expect(await api.friendRequests(b, 'incoming')).toHaveLength(1);
      expect(await api.friendRequests(c, 'incoming')).toEqual([]);
    });

    it('concurrent retries of one request_id store one request', async () => {
      const [a, b] = await api.users(2);
      const body = { user_id: b.userId, request_id: rid(), message: 'once' };
      const replies = await Promise.all(Array.from({ length: 6 }, () => api.raw.friendRequest(a, body)));
      const data = replies.map((r) => expectOk<{ request: FriendRequest; event_id: string | null }>(r));
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect(data.filter((d) => d.event_id !== null)).toHaveLength(1);
      expect(await api.friendRequests(b, 'incoming')).toHaveLength(1);
    });

    it('a second request with a new key while one is pending answers the pending request', async () => {
      const [a, b] = await api.users(2);
      const first = await api.friendRequest(a, b, { message: 'one' });
      const second = expectOk<{ request: FriendRequest; event_id: string | null }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid(), message: 'two' }),
      );
      expect(second.request.id).toBe(first.request.id);
      expect(second.event_id).toBeNull();
      expect(await api.friendRequests(b, 'incoming')).toHaveLength(1);
    });

    it.each([
      ['user_id missing', { request_id: 'r1' }, 'user_id'],
      ['user_id a number', { user_id: 12345, request_id: 'r1' }, 'user_id'],
      ['user_id empty', { user_id: '', request_id: 'r1' }, 'user_id'],
      ['user_id 65 chars', { user_id: 'u'.repeat(65), request_id: 'r1' }, 'user_id'],
      ['user_id with edge space', { user_id: ' u_x', request_id: 'r1' }, 'user_id'],
      ['request_id missing', { user_id: 'TARGET' }, 'request_id'],
      ['request_id empty', { user_id: 'TARGET', request_id: '' }, 'request_id'],
      ['request_id 65 chars', { user_id: 'TARGET', request_id: 'r'.repeat(65) }, 'request_id'],
      ['request_id with a space', { user_id: 'TARGET', request_id: 'r 1' }, 'request_id'],
      ['request_id a number', { user_id: 'TARGET', request_id: 7 }, 'request_id'],
      ['request_id an object', { user_id: 'TARGET', request_id: { a: 1 } }, 'request_id'],
      ['message 256 chars', { user_id: 'TARGET', request_id: 'r1', message: 'm'.repeat(256) }, 'message'],
      ['message with a control char', { user_id: 'TARGET', request_id: 'r1', message: 'a\u0007b' }, 'message'],
      ['message an array', { user_id: 'TARGET', request_id: 'r1', message: ['x'] }, 'message'],
    ])('refuses %s with 1004 naming the field, and stores nothing', async (_label, raw, field) => {
      const [a, b] = await api.users(2);
      const body = JSON.parse(JSON.stringify(raw).replace('TARGET', b.userId)) as Body;
      expectFail(await api.raw.friendRequest(a, body), 1004, field);
      expect(await api.friendRequests(a, 'outgoing')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming')).toEqual([]);
    });

    it('accepts a 255-character message of emoji (code points) and a 64-character request_id', async () => {
      const [a, b] = await api.users(2);
      const data = expectOk<{ request: FriendRequest }>(
        await api.raw.friendRequest(a, {
          user_id: b.userId,
          request_id: `a.b_c:d-${'x'.repeat(56)}`,
          message: '😀'.repeat(255),
        }),
      );
      expect(data.request.message).toBe('😀'.repeat(255));
    });

    it('unknown or disabled target is 1204; yourself is 1004; nothing is stored', async () => {
      const [a, b] = await api.users(2);
      expectFail(await api.raw.friendRequest(a, { user_id: randomUserId('nobody'), request_id: rid() }), 1204);
      expectOk(await api.raw.userStatus(b.userId, true));
      expectFail(await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }), 1204);
      expectFail(await api.raw.friendRequest(a, { user_id: a.userId, request_id: rid() }), 1004, 'user_id');
      expect(await api.friendRequests(a, 'outgoing')).toEqual([]);
    });

    it('when the target already asked me, my request makes us friends at once (both requests accepted)', async () => {
      const [a, b] = await api.users(2);
      const fromB = await api.friendRequest(b, a, { message: 'b asks' });
      const mine = expectOk<{ request: FriendRequest; friend: Friend | null; event_id: string }>(
        await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }),
      );
      expect(mine.friend).not.toBeNull();
      expect(mine.friend!.user.user_id).toBe(b.userId);
      expect(mine.friend!.conversation_id).toBe(friendCid(b));
      expect(typeof mine.event_id).toBe('string');
      expect(await friendIds(a)).toEqual([b.userId]);
      expect(await friendIds(b)).toEqual([a.userId]);
      expect((await api.friendRequests(b, 'outgoing')).find((r) => r.id === fromB.request.id)?.status).toBe('accepted');
      expect(await api.friendRequests(a, 'incoming', 'pending')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toEqual([]);
    });

    it('a request to a friend is 1206', async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      expectFail(await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }), 1206);
      expectFail(await api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }), 1206);
      expect(await api.friendRequests(b, 'incoming', 'pending')).toEqual([]);
    });

    it('requests A→B and B→A at once converge on one friendship without 500s', async () => {
      for (let round = 0; round < 8; round += 1) {
        const [a, b] = await api.users(2);
        const [ra, rb] = await Promise.all([
          api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }),
          api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }),
        ]);
        for (const r of [ra, rb]) {
          expect(r.status).toBe(200);
          expect([0, 1206]).toContain(r.body.code);
        }
        const state = {
          friendsOfA: await friendIds(a),
          friendsOfB: await friendIds(b),
          // Nothing is left pending between the two.
          pendingToA: (await api.friendRequests(a, 'incoming', 'pending')).length,
          pendingToB: (await api.friendRequests(b, 'incoming', 'pending')).length,
        };
        expect({
          round,
          state,
          replies: [ra.body, rb.body].map((x) => ({
            code: x.code,
            friend: x.data?.friend ? 'set' : null,
            status: x.data?.request?.status,
          })),
        }).toMatchObject({
          state: { friendsOfA: [b.userId], friendsOfB: [a.userId], pendingToA: 0, pendingToB: 0 },
        });
        const conv = expectOk<{ messages: unknown[] }>(
          await api.raw.messages(a, { conversation_id: friendCid(b), before_seq: '1' }),
        );
        expect(conv.messages).toEqual([]);
      }
    });
  });

  it('several requests A→B with different keys at once leave one pending request', async () => {
    for (let round = 0; round < 3; round += 1) {
      const [a, b] = await api.users(2);
      const replies = await Promise.all(
        Array.from({ length: 4 }, () => api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() })),
      );
      const data = replies.map((r) => expectOk<{ request: FriendRequest; event_id: string | null }>(r));
      expect(new Set(data.map((d) => d.request.id)).size).toBe(1);
      expect((await api.friendRequests(b, 'incoming', 'pending')).length).toBe(1);
    }
  });

  it('a retry of an accepted request_id still answers the stored request (retry is checked first)', async () => {
    const [a, b] = await api.users(2);
    const requestId = rid();
    const first = expectOk<{ request: FriendRequest }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'm' }),
    );
    expectOk(await api.raw.acceptRequest(b, first.request.id));
    const retry = expectOk<{ request: FriendRequest; event_id: string | null }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: 'm' }),
    );
    expect(retry.request.id).toBe(first.request.id);
    expect(retry.request.status).toBe('accepted');
    expect(retry.event_id).toBeNull();
  });

  it('a message absent on the retry of a request sent with "" is the same content', async () => {
    const [a, b] = await api.users(2);
    const requestId = rid();
    const first = expectOk<{ request: FriendRequest }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId, message: '' }),
    );
    const retry = expectOk<{ request: FriendRequest; event_id: string | null }>(
      await api.raw.friendRequest(a, { user_id: b.userId, request_id: requestId }),
    );
    expect(retry.request.id).toBe(first.request.id);
    expect(retry.event_id).toBeNull();
  });

  it('the created event reaches the receiver and not a stranger', async () => {
    const [a, b, c] = await api.users(3);
    const { event_id: eventId } = await api.friendRequest(a, b);
    const rows: { id: string | number }[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [
      eventId,
    ]);
    expect(await isDeliveredTo(t, rows[0].id, b.id)).toBe(true);
    expect(await isDeliveredTo(t, rows[0].id, c.id)).toBe(false);
  });

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

  describe('block and unblock', () => {
    it('blocking forbids requests both ways (1211), messages both ways (1203), hides my profile (1204) and keeps the friendship', async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      const data = expectOk<{ blocked: boolean; event_id: string }>(await api.raw.block(a, b.userId));
      expect(data.blocked).toBe(true);
      await expectEventType(t, data.event_id, 'friend.blocked');
      const again = expectOk<{ blocked: boolean; event_id: string | null }>(await api.raw.block(a, b.userId));
      expect(again).toEqual({ blocked: true, event_id: null });

      const blocks = expectOk<Page<{ user: UserObj; since: number }>>(await api.raw.blocks(a));
      expect(blocks.items.map((x) => x.user.user_id)).toEqual([b.userId]);
      expect(expectOk<Page<unknown>>(await api.raw.blocks(b)).items).toEqual([]);
      expect(await friendIds(a)).toEqual([b.userId]);

      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1203,
      );
      expectFail(
        await api.raw.send(b, {
          conversation_id: friendCid(a),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1203,
      );
      expectFail(await api.raw.profile(b, a.userId), 1204);
      expectOk(await api.raw.profile(a, b.userId));

      const un = expectOk<{ blocked: boolean; event_id: string }>(await api.raw.unblock(a, b.userId));
      expect(un.blocked).toBe(false);
      await expectEventType(t, un.event_id, 'friend.unblocked');
      expect(expectOk<{ blocked: boolean; event_id: string | null }>(await api.raw.unblock(a, b.userId))).toEqual({
        blocked: false,
        event_id: null,
      });
      expectOk(
        await api.raw.send(b, {
          conversation_id: friendCid(a),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'back' },
        }),
      );
      expectOk(await api.raw.profile(b, a.userId));
      expect(expectOk<Page<unknown>>(await api.raw.blocks(a)).items).toEqual([]);
    });

    it('a block either way refuses new requests with 1211 and stores none', async () => {
      const [a, b] = await api.users(2);
      expectOk(await api.raw.block(a, b.userId));
      expectFail(await api.raw.friendRequest(a, { user_id: b.userId, request_id: rid() }), 1211);
      expectFail(await api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }), 1211);
      expect(await api.friendRequests(a, 'incoming')).toEqual([]);
      expect(await api.friendRequests(b, 'incoming')).toEqual([]);
      expectOk(await api.raw.unblock(a, b.userId));
      expectOk(await api.raw.friendRequest(b, { user_id: a.userId, request_id: rid() }));
    });

    it('accepting a pending request across a block is 1211 and makes no friendship', async () => {
      const [a, b] = await api.users(2);
      const { request: r } = await api.friendRequest(a, b);
      expectOk(await api.raw.block(b, a.userId));
      expectFail(await api.raw.acceptRequest(b, r.id), 1211);
      expect(await friendIds(b)).toEqual([]);
      const [c, d] = await api.users(2);
      const { request: r2 } = await api.friendRequest(c, d);
      expectOk(await api.raw.block(c, d.userId)); // the sender blocks after asking
      expectFail(await api.raw.acceptRequest(d, r2.id), 1211);
      expect(await friendIds(d)).toEqual([]);
    });

    it('block of yourself is 1004, of an unknown user 1204, bad user_id 1004', async () => {
      const [a] = await api.users(1);
      expectFail(await api.raw.block(a, a.userId), 1004, 'user_id');
      expectFail(await api.raw.block(a, randomUserId('ghost')), 1204);
      expectFail(await api.raw.block(a, ['x']), 1004, 'user_id');
      expectFail(await api.raw.unblock(a, 5), 1004, 'user_id');
      expect(expectOk<Page<unknown>>(await api.raw.blocks(a)).items).toEqual([]);
    });
  });

  describe('block extras', () => {
    it('unblock of someone not blocked answers blocked false with event_id null', async () => {
      const [a, b] = await api.users(2);
      expect(expectOk<{ blocked: boolean; event_id: string | null }>(await api.raw.unblock(a, b.userId))).toEqual({
        blocked: false,
        event_id: null,
      });
    });

    it('a blocked user cannot find the blocker by username (1204)', async () => {
      const uname = `un${randomBytes(5).toString('hex')}`;
      const a = await api.user({ username: uname });
      const [b] = await api.users(1);
      expectOk(await api.raw.lookup(b, uname));
      expectOk(await api.raw.block(a, b.userId));
      expectFail(await api.raw.lookup(b, uname), 1204);
    });
  });

  describe('directory lists', () => {
    it('incoming requests page by 50 with a signed cursor bound to account, endpoint and filters', async () => {
      const [target, other] = await api.users(2);
      const senders = await api.users(53);
      for (let i = 0; i < senders.length; i += 10)
        await Promise.all(senders.slice(i, i + 10).map((s) => api.friendRequest(s, target)));

      const first = expectOk<Page<FriendRequest>>(await api.raw.friendRequests(target, { direction: 'incoming' }));
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      expect(typeof first.next_cursor).toBe('string');
      const second = expectOk<Page<FriendRequest>>(
        await api.raw.friendRequests(target, { direction: 'incoming', cursor: first.next_cursor! }),
      );
      expect(second.items).toHaveLength(3);
      expect(second.has_more).toBe(false);
      expect(second.next_cursor).toBeNull();
      const all = [...first.items, ...second.items].map((r) => r.from.user_id);
      expect(new Set(all).size).toBe(53);
      expect(new Set(all)).toEqual(new Set(senders.map((s) => s.userId)));

      const cursor = first.next_cursor!;
      expectFail(await api.raw.friendRequests(other, { direction: 'incoming', cursor }), 1004, 'cursor');
      expectFail(await api.raw.friendRequests(target, { direction: 'outgoing', cursor }), 1004, 'cursor');
      expectFail(
        await api.raw.friendRequests(target, { direction: 'incoming', status: 'pending', cursor }),
        1004,
        'cursor',
      );
      expectFail(await api.raw.friends(target, { cursor }), 1004, 'cursor');
      expectFail(await api.raw.blocks(target, { cursor }), 1004, 'cursor');
      expectFail(
        await t.http
          .get('/app/sdk/groups')
          .set(...bearer(target.token))
          .query({ cursor }),
        1004,
        'cursor',
      );
      const [payload, sig] = cursor.split('.');
      const tampered = `${payload.slice(0, -2)}${payload.slice(-2) === 'AA' ? 'BB' : 'AA'}.${sig}`;
      expectFail(await api.raw.friendRequests(target, { direction: 'incoming', cursor: tampered }), 1004, 'cursor');
      expectFail(await api.raw.friendRequests(target, { direction: 'incoming', cursor: 'garbage' }), 1004, 'cursor');
      // The cursor of the filtered list works only with the same filter.
      const pending = expectOk<Page<FriendRequest>>(
        await api.raw.friendRequests(target, { direction: 'incoming', status: 'pending' }),
      );
      expect(pending.has_more).toBe(true);
      expectOk(
        await api.raw.friendRequests(target, {
          direction: 'incoming',
          status: 'pending',
          cursor: pending.next_cursor!,
        }),
      );
      expectFail(
        await api.raw.friendRequests(target, { direction: 'incoming', cursor: pending.next_cursor! }),
        1004,
        'cursor',
      );
    });

    it('friends list pages by 50; the cursor is refused elsewhere', async () => {
      const [me, other] = await api.users(2);
      const friends = await api.users(52);
      for (let i = 0; i < friends.length; i += 10)
        await Promise.all(friends.slice(i, i + 10).map((f) => api.befriend(f, me)));
      const first = expectOk<Page<Friend>>(await api.raw.friends(me));
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      const second = expectOk<Page<Friend>>(await api.raw.friends(me, { cursor: first.next_cursor! }));
      expect(second.items).toHaveLength(2);
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...first.items, ...second.items].map((f) => f.user.user_id))).toEqual(
        new Set(friends.map((f) => f.userId)),
      );
      expectFail(await api.raw.friends(other, { cursor: first.next_cursor! }), 1004, 'cursor');
      expectFail(
        await api.raw.friendRequests(me, { direction: 'outgoing', cursor: first.next_cursor! }),
        1004,
        'cursor',
      );
    });

    it.each([
      ['/app/sdk/friends/requests', { direction: 'incoming' }],
      ['/app/sdk/friends', {}],
      ['/app/sdk/friends/blocks', {}],
    ])('%s refuses page, offset and limit with 1004 naming them', async (path, base) => {
      const [a] = await api.users(1);
      for (const field of ['page', 'offset', 'limit'])
        expectFail(
          await t.http
            .get(path)
            .set(...bearer(a.token))
            .query({ ...base, [field]: '1' }),
          1004,
          field,
        );
    });

    it('the requests list needs a valid direction and status', async () => {
      const [a] = await api.users(1);
      expectFail(await api.raw.friendRequests(a, {}), 1004, 'direction');
      expectFail(await api.raw.friendRequests(a, { direction: 'both' }), 1004, 'direction');
      expectFail(await api.raw.friendRequests(a, { direction: 'incoming', status: 'done' }), 1004, 'status');
    });
  });

  describe('rate limit', () => {
    let limited: TestApp;
    let limitedApi: ApiClient;
    beforeAll(async () => {
      limited = await startTestApp({
        RATE_LIMITS: 'send=1000/1s,friend_request=3/60s,report=1000/1s,client_error=1000/1s,media_upload=1000/1s',
      });
      limitedApi = new ApiClient(limited);
    });
    afterAll(() => limited.close());

    it('friend requests over the per-user limit answer 1005 and store nothing', async () => {
      const me = await limitedApi.user();
      const targets = await Promise.all(Array.from({ length: 5 }, () => limitedApi.user()));
      const codes: number[] = [];
      for (const target of targets)
        codes.push((await limitedApi.raw.friendRequest(me, { user_id: target.userId, request_id: rid() })).body.code);
      expect(codes).toEqual([0, 0, 0, 1005, 1005]);
      const out = await limitedApi.raw.friendRequests(me, { direction: 'outgoing' });
      expect(out.body.data.items).toHaveLength(3);
      // Another user is not limited by me.
      const other = await limitedApi.user();
      expect(
        (await limitedApi.raw.friendRequest(other, { user_id: targets[4].userId, request_id: rid() })).body.code,
      ).toBe(0);
    });
  });

  describe('capability closed', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ CAPABILITIES_CLOSED: 'friends' });
    });
    afterAll(() => closed.close());

    it('every friends endpoint answers 1202', async () => {
      const [a, b] = await Promise.all([new ApiClient(closed).user(), new ApiClient(closed).user()]);
      const h = bearer(a.token);
      expectFail(
        await closed.http
          .post('/app/sdk/friends/requests')
          .set(...h)
          .send({ user_id: b.userId, request_id: rid() }),
        1202,
      );
      expectFail(
        await closed.http
          .get('/app/sdk/friends/requests')
          .set(...h)
          .query({ direction: 'incoming' }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/requests/accept')
          .set(...h)
          .send({ id: '1' }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/requests/reject')
          .set(...h)
          .send({ id: '1' }),
        1202,
      );
      expectFail(await closed.http.get('/app/sdk/friends').set(...h), 1202);
      expectFail(
        await closed.http
          .post('/app/sdk/friends/delete')
          .set(...h)
          .send({ user_id: b.userId }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/block')
          .set(...h)
          .send({ user_id: b.userId }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/friends/unblock')
          .set(...h)
          .send({ user_id: b.userId }),
        1202,
      );
      expectFail(await closed.http.get('/app/sdk/friends/blocks').set(...h), 1202);
      const sync = expectOk<{ capabilities: Record<string, boolean> }>(
        await closed.http
          .post('/app/sdk/sync')
          .set(...h)
          .send({}),
      );
      expect(sync.capabilities.friends).toBe(false);
    });
  });
});
