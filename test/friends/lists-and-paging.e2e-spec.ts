// Friends, friend requests and blocks: the life cycle, blocks, validation, idempotency and
// convergence, races, paging and operator settings. SQL reads what no endpoint shows (the
// outbox, friendship, conversation and request rows); Seed writes the one state no endpoint
// can (two requests pending both ways).
// Black-box tests of friends and friend requests, written from the issue (Friends, Directory
// lists, outbox), the spec (2.1, 2.2, 4, 6, 7) and the documented choices (docs/api.md). Everything
// under test goes through HTTP; SQL is used only to read the outbox and, in one test, to create a
// friendship behind the service's back (docs/api.md: 1206 convergence on accept).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import {
  AcceptReply,
  ApiClient,
  Block,
  BlockReply,
  Body,
  Friend,
  FriendRequest,
  FriendRequestReply,
  IssuedUser,
  Page,
  Query,
} from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';

const rid = (): string => `fr-${randomBytes(6).toString('hex')}`;

describe('Friends, friend requests and blocks', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  /** A friend request with a fresh request_id unless `over` gives one. */
  const send = (from: IssuedUser, to: IssuedUser, over: Body = {}) =>
    api.raw.friendRequest(from, { user_id: to.userId, request_id: rid(), ...over });
  const incoming = (user: IssuedUser, query: Query = {}) =>
    api.raw.friendRequests(user, { direction: 'incoming', ...query });
  const outgoing = (user: IssuedUser, query: Query = {}) =>
    api.raw.friendRequests(user, { direction: 'outgoing', ...query });
  const requestPage = async (response: Response | Promise<Response>): Promise<Page<FriendRequest>> =>
    expectOk<Page<FriendRequest>>(await response);

  describe('paging', () => {
    let hub: IssuedUser;
    let others: IssuedUser[];
    let requestIds: string[];

    beforeAll(async () => {
      hub = await api.user();
      others = [];
      for (let i = 0; i < 51; i++) others.push(await api.user());
      requestIds = [];
      for (const other of others) requestIds.push(expectOk<FriendRequestReply>(await send(other, hub)).request.id);
    });

    async function readAll<T>(read: (cursor?: string) => Promise<Response>): Promise<{ pages: Array<Page<T>> }> {
      const pages: Array<Page<T>> = [];
      let cursor: string | undefined;
      do {
        const page = expectOk<Page<T>>(await read(cursor));
        pages.push(page);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return { pages };
    }

    it('pages incoming requests newest first past one page, then friends and blocks', async () => {
      const requests = await readAll<FriendRequest>((cursor) => incoming(hub, cursor ? { cursor } : {}));
      expect(requests.pages.map((p) => [p.items.length, p.has_more, p.next_cursor === null])).toEqual([
        [50, true, false],
        [1, false, true],
      ]);
      expect(requests.pages.flatMap((p) => p.items.map((r) => r.id))).toEqual([...requestIds].reverse());

      for (const id of requestIds) expectOk<AcceptReply>(await api.raw.acceptRequest(hub, id));
      const friends = await readAll<Friend>((cursor) => api.raw.friends(hub, cursor ? { cursor } : {}));
      expect(friends.pages.map((p) => p.items.length)).toEqual([50, 1]);
      expect(friends.pages.flatMap((p) => p.items.map((f) => f.user.user_id))).toEqual(
        others.map((o) => o.userId).reverse(),
      );

      for (const other of others) expectOk<BlockReply>(await api.raw.block(hub, other.userId));
      const blocks = await readAll<Block>((cursor) => api.raw.blocks(hub, cursor ? { cursor } : {}));
      expect(blocks.pages.map((p) => p.items.length)).toEqual([50, 1]);
      expect(blocks.pages.flatMap((p) => p.items.map((b) => b.user.user_id))).toEqual(
        others.map((o) => o.userId).reverse(),
      );
    });

    it('refuses a cursor that is tampered with or reused across accounts, endpoints or filters (1004)', async () => {
      const cursor = (await requestPage(incoming(hub))).next_cursor as string;
      expect(cursor).toEqual(expect.any(String));
      const [body, signature] = cursor.split('.');
      const forged = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), k: { id: '999999' } }),
      ).toString('base64url');
      const flipped = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
      for (const bad of [`${forged}.${signature}`, flipped, 'garbage', `${cursor}.x`])
        expectFail(await incoming(hub, { cursor: bad }), 1004, 'cursor');
      expectFail(await incoming(others[0], { cursor }), 1004, 'cursor');
      expectFail(await outgoing(hub, { cursor }), 1004, 'cursor');
      expectFail(await incoming(hub, { cursor, status: 'pending' }), 1004, 'cursor');
      expectFail(await api.raw.friends(hub, { cursor }), 1004, 'cursor');
      expectFail(await api.raw.blocks(hub, { cursor }), 1004, 'cursor');
      expect((await requestPage(incoming(hub, { cursor }))).items).toHaveLength(1);

      const friendsCursor = (await api.friends(hub)).next_cursor as string;
      expectFail(await api.raw.blocks(hub, { cursor: friendsCursor }), 1004, 'cursor');
      expectFail(await incoming(hub, { cursor: friendsCursor }), 1004, 'cursor');
      expect((await api.friends(hub, { cursor: friendsCursor })).items).toHaveLength(1);
    });
  });
});

describe('Friends (black box)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

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
});
