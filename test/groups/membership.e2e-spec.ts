// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { DataSource } from 'typeorm';
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, groupCid } from '../helpers/api-client';
import { expectFail, expectOk, expectEventType } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { DEFAULT_AVATAR, gid, groupFixture, GroupFixture, storedGroupRows } from './group-kit';

describe('Groups', () => {
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
  const post = (user: IssuedUser, path: string, body: Body = {}) => api.raw.groupPost(user, path, body);
  const get = (user: IssuedUser, path: string, query: Body = {}) => api.raw.groupGet(user, path, query);

  const { row, groupRow, internalGroupId, membership, convMember, event, ids, eventCount } = storedGroupRows(() => t);

  const fixture = (): Promise<GroupFixture> => groupFixture(api, factories);

  describe('GET /members', () => {
    it('pages past 50 members; the cursor is bound to account, endpoint and group_id', async () => {
      const [owner, ...rest] = await api.users(61);
      const publicId = await factories.group(owner, rest.slice(0, 60));
      const [other] = await api.users(1);
      const otherGroup = await factories.group(owner, [other]);
      const first = expectOk(await get(owner, '/members', { group_id: publicId }));
      expect((first.items as Body[]).length).toBe(50);
      expect(first.has_more).toBe(true);
      const second = expectOk(await get(owner, '/members', { group_id: publicId, cursor: first.next_cursor }));
      expect((second.items as Body[]).length).toBe(11);
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      const items = [...(first.items as Body[]), ...(second.items as Body[])];
      expect(items.map((m) => (m.user as Body).user_id).sort()).toEqual(
        [owner, ...rest.slice(0, 60)].map((u) => u.userId).sort(),
      );
      // Keyset order: internal user ID ascending, no repeats.
      const internal = items.map((m) => BigInt((m.user as Body).id as string));
      expect(internal).toEqual([...internal].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      const ownerItem = items.find((m) => (m.user as Body).user_id === owner.userId)!;
      expect(ownerItem).toEqual({
        user: {
          id: owner.id,
          user_id: owner.userId,
          username: '',
          nickname: expect.any(String),
          avatar: DEFAULT_AVATAR,
          signature: '',
          profile_updated_at: expect.any(Number),
        },
        role: 'owner',
        joined_at: expect.any(Number),
        muted_until: 0,
      });
      // Another member cannot reuse the owner's cursor; nor can it move to another group or endpoint.
      expectFail(await get(rest[0], '/members', { group_id: publicId, cursor: first.next_cursor }), 1004, 'cursor');
      expectFail(await get(owner, '/members', { group_id: otherGroup, cursor: first.next_cursor }), 1004, 'cursor');
      expectFail(await get(owner, '', { cursor: first.next_cursor }), 1004, 'cursor');
      // A member may list too.
      expect((expectOk(await get(rest[59], '/members', { group_id: publicId })).items as Body[]).length).toBe(50);
    });
  });

  describe('POST /members/add and /members/remove', () => {
    it('adds members idempotently, skipping current members', async () => {
      const f = await fixture();
      const [x, y] = await api.users(2);
      const data = expectOk(
        await post(f.admin, '/members/add', { group_id: f.publicId, user_ids: [x.userId, f.member.userId, y.userId] }),
      );
      expect(data).toEqual({ added: [x.userId, y.userId], event_id: expect.any(String) });
      const added = await event(data.event_id as string);
      expect(added).toMatchObject({
        type: 'group.members_added',
        recipients: ids(f.owner, f.admin, f.member, f.target, x, y),
      });
      expect(added.payload).toMatchObject({ user_ids: [x.userId, y.userId], operator_user_id: f.admin.userId });
      expect(added.payload.group).toMatchObject({ member_count: 6 });
      const retry = expectOk(
        await post(f.admin, '/members/add', { group_id: f.publicId, user_ids: [x.userId, y.userId] }),
      );
      expect(retry).toEqual({ added: [], event_id: null });
      expect(await eventCount('group.members_added', f.publicId)).toBe(1);
    });

    it('refuses unknown users with 1204 and bad user_ids with 1004', async () => {
      const f = await fixture();
      const ghost = randomUserId('ghost');
      expectFail(await post(f.owner, '/members/add', { group_id: f.publicId, user_ids: [ghost] }), 1204, ghost);
      expectFail(await post(f.owner, '/members/remove', { group_id: f.publicId, user_ids: [ghost] }), 1204, ghost);
      for (const path of ['/members/add', '/members/remove']) {
        expectFail(await post(f.owner, path, { group_id: f.publicId, user_ids: [] }), 1004, 'user_ids');
        expectFail(await post(f.owner, path, { group_id: f.publicId }), 1004, 'user_ids');
        expectFail(
          await post(f.owner, path, { group_id: f.publicId, user_ids: [f.member.userId, f.member.userId] }),
          1004,
          'user_ids[1]',
        );
        expectFail(
          await post(f.owner, path, { group_id: f.publicId, user_ids: Array.from({ length: 101 }, (_, i) => `u${i}`) }),
          1004,
          'user_ids',
        );
        expectFail(await post(f.owner, path, { group_id: f.publicId, user_ids: f.member.userId }), 1004, 'user_ids');
      }
    });

    it('refuses a disabled user as a new member or owner (1204, as unknown), and still removes a member whose account was disabled', async () => {
      const f = await fixture();
      const [off] = await api.users(1);
      const disable = async (u: IssuedUser) => expectOk(await api.raw.userStatus(u.userId, true));
      await disable(off);
      const refusedGroupId = randomGroupId();
      expectFail(
        await post(f.owner, '/create', {
          group_id: refusedGroupId,
          name: 'With a disabled member',
          member_ids: [f.member.userId, off.userId],
        }),
        1204,
        `member_ids: no such user "${off.userId}"`,
      );
      // Nothing was created (counted by this group's ID: other files create groups on a shared database).
      const created = await row<{ n: string | number }>('SELECT COUNT(*) AS n FROM `groups` WHERE public_id = ?', [
        refusedGroupId,
      ]);
      expect(Number(created!.n)).toBe(0);
      expectFail(
        await post(f.owner, '/members/add', { group_id: f.publicId, user_ids: [f.outsider.userId, off.userId] }),
        1204,
        `user_ids: no such user "${off.userId}"`,
      );
      expect(await membership(f.publicId, f.outsider)).toBeUndefined();

      // A member whose account is disabled later: not a new owner, but still removable.
      await disable(f.target);
      expectFail(
        await post(f.owner, '/transfer', { group_id: f.publicId, user_id: f.target.userId }),
        1204,
        'user_id: no such user',
      );
      expect(String((await groupRow(f.publicId))!.owner_id)).toBe(f.owner.id);
      expect(
        expectOk(await post(f.owner, '/members/remove', { group_id: f.publicId, user_ids: [f.target.userId] })),
      ).toMatchObject({ removed: [f.target.userId] });
    });

    it('a former member rejoins and sees only later messages; leaving closes the conversation window', async () => {
      const f = await fixture();
      await api.send(f.owner, groupCid(f.publicId), 'one');
      await api.send(f.owner, groupCid(f.publicId), 'two');
      expectOk(await post(f.member, '/leave', { group_id: f.publicId }));
      expect(await membership(f.publicId, f.member)).toMatchObject({ status: 'left', left_at: expect.anything() });
      expect(await convMember(f.publicId, f.member)).toEqual({ from: '0', to: '2' });
      await api.send(f.owner, groupCid(f.publicId), 'three');
      const data = expectOk(await post(f.owner, '/members/add', { group_id: f.publicId, user_ids: [f.member.userId] }));
      expect(data.added).toEqual([f.member.userId]);
      expect(await membership(f.publicId, f.member)).toMatchObject({ status: 'active', role: 'member', left_at: null });
      expect(await convMember(f.publicId, f.member)).toEqual({ from: '3', to: null });
    });

    it('removal: owner removes admins, admins only members, nobody the owner or themselves', async () => {
      const f = await fixture();
      const [admin2] = await api.users(1);
      expectOk(await post(f.owner, '/members/add', { group_id: f.publicId, user_ids: [admin2.userId] }));
      expectOk(await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: admin2.userId, admin: true }));
      expectFail(await post(f.admin, '/members/remove', { group_id: f.publicId, user_ids: [admin2.userId] }), 1209);
      expectFail(await post(f.admin, '/members/remove', { group_id: f.publicId, user_ids: [f.owner.userId] }), 1209);
      expectFail(await post(f.admin, '/members/remove', { group_id: f.publicId, user_ids: [f.admin.userId] }), 1209);
      expectFail(await post(f.owner, '/members/remove', { group_id: f.publicId, user_ids: [f.owner.userId] }), 1209);
      // A refused batch removes nobody.
      expectFail(
        await post(f.admin, '/members/remove', { group_id: f.publicId, user_ids: [f.member.userId, admin2.userId] }),
        1209,
      );
      expect(await membership(f.publicId, f.member)).toMatchObject({ status: 'active' });

      await api.send(f.owner, groupCid(f.publicId), 'hello');
      const byAdmin = expectOk(
        await post(f.admin, '/members/remove', {
          group_id: f.publicId,
          user_ids: [f.member.userId, f.outsider.userId, f.former.userId],
        }),
      );
      expect(byAdmin).toEqual({ removed: [f.member.userId], event_id: expect.any(String) });
      expect(await membership(f.publicId, f.member)).toMatchObject({ status: 'removed' });
      expect(await convMember(f.publicId, f.member)).toEqual({ from: '0', to: '1' });
      const removedEvent = await event(byAdmin.event_id as string);
      expect(removedEvent).toMatchObject({
        type: 'group.members_removed',
        recipients: ids(f.owner, f.admin, f.target, admin2, f.member),
      });

      const byOwner = expectOk(
        await post(f.owner, '/members/remove', { group_id: f.publicId, user_ids: [admin2.userId] }),
      );
      expect(byOwner.removed).toEqual([admin2.userId]);
      // Already removed: skipped, nothing to report.
      expect(
        expectOk(await post(f.owner, '/members/remove', { group_id: f.publicId, user_ids: [admin2.userId] })),
      ).toEqual({ removed: [], event_id: null });
      // The removed member is now a former member.
      expectFail(await get(f.member, '/get', { group_id: f.publicId }), 1209);
      expectFail(await get(f.member, '/members', { group_id: f.publicId }), 1209);
    });

    it('two admins adding the same user at once make one membership and one event', async () => {
      const f = await fixture();
      for (let round = 0; round < 3; round++) {
        const [x] = await api.users(1);
        const replies = await Promise.all(
          [f.owner, f.admin, f.owner, f.admin].map((u) =>
            post(u, '/members/add', { group_id: f.publicId, user_ids: [x.userId] }),
          ),
        );
        const data = replies.map(expectOk);
        expect(data.flatMap((d) => d.added as string[])).toEqual([x.userId]);
        expect(data.filter((d) => d.event_id !== null)).toHaveLength(1);
        expect(
          await db.query('SELECT id FROM group_members WHERE group_id = ? AND user_id = ?', [
            await internalGroupId(f.publicId),
            x.id,
          ]),
        ).toHaveLength(1);
        expect(await convMember(f.publicId, x)).toEqual({ from: '0', to: null });
      }
    });
  });

  describe('POST /leave', () => {
    it('emits group.member_left to the remaining members and the leaver; a second leave is 1209', async () => {
      const f = await fixture();
      const data = expectOk(await post(f.admin, '/leave', { group_id: f.publicId }));
      expect(data).toEqual({ group_id: f.publicId, event_id: expect.any(String) });
      const left = await event(data.event_id as string);
      expect(left).toMatchObject({ type: 'group.member_left', recipients: ids(f.owner, f.admin, f.member, f.target) });
      expect(left.payload).toMatchObject({ user_id: f.admin.userId });
      expect(left.payload.group).toMatchObject({ member_count: 3 });
      expect(await convMember(f.publicId, f.admin)).toEqual({ from: '0', to: '0' });
      expectFail(await post(f.admin, '/leave', { group_id: f.publicId }), 1209);
      // A former admin who rejoins is a plain member.
      expectOk(await post(f.owner, '/members/add', { group_id: f.publicId, user_ids: [f.admin.userId] }));
      expect(await membership(f.publicId, f.admin)).toMatchObject({ role: 'member', status: 'active' });
    });
  });
});

describe('Groups (black box)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ INVITATION_TTL_SECONDS: '3600' });
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  /** A group with a fresh `g.` ID named "Team <id>". */
  const create = (owner: IssuedUser, members: IssuedUser[] = [], extra: Body = {}): Promise<string> => {
    const groupId = gid();
    return api.createGroup(owner, members, { name: `Team ${groupId}`, ...extra }, groupId);
  };
  /** owner, admin, two members, an outsider. */
  async function fixture() {
    const [owner, admin, member, target, outsider] = await api.users(5);
    const groupId = await create(owner, [admin, member, target]);
    expectOk(await api.raw.groupPost(owner, '/admins/set', { group_id: groupId, user_id: admin.userId, admin: true }));
    return { groupId, owner, admin, member, target, outsider };
  }

  describe('membership', () => {
    it('owner and admin add members; a member gets 1209; current members are skipped; unknown users 1204', async () => {
      const f = await fixture();
      const [x, y, z] = await api.users(3);
      const added = expectOk<{ added: string[]; event_id: string }>(
        await api.raw.groupPost(f.admin, '/members/add', {
          group_id: f.groupId,
          user_ids: [x.userId, f.member.userId],
        }),
      );
      expect(added.added).toEqual([x.userId]);
      await expectEventType(t, added.event_id, 'group.members_added');
      const again = expectOk<{ added: string[]; event_id: string | null }>(
        await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [x.userId] }),
      );
      expect(again).toEqual({ added: [], event_id: null });
      expectFail(
        await api.raw.groupPost(f.member, '/members/add', { group_id: f.groupId, user_ids: [y.userId] }),
        1209,
      );
      expectFail(
        await api.raw.groupPost(f.outsider, '/members/add', { group_id: f.groupId, user_ids: [y.userId] }),
        1209,
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/members/add', {
          group_id: f.groupId,
          user_ids: [z.userId, randomUserId('ghost')],
        }),
        1204,
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [] }),
        1004,
        'user_ids',
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [z.userId, z.userId] }),
        1004,
        'user_ids',
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: z.userId }),
        1004,
        'user_ids',
      );
      const all = await api.groupRoles(f.owner, f.groupId);
      expect(all[x.userId]).toBe('member');
      expect(all[y.userId]).toBeUndefined();
      expect(all[z.userId]).toBeUndefined();
      expect((await api.group(f.owner, f.groupId)).member_count).toBe(5);
    });

    it('remove: admin removes members but not admins or the owner; a batch is all or nothing', async () => {
      const f = await fixture();
      const [admin2] = await api.users(1);
      expectOk(await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [admin2.userId] }));
      expectOk(
        await api.raw.groupPost(f.owner, '/admins/set', { group_id: f.groupId, user_id: admin2.userId, admin: true }),
      );
      expectFail(
        await api.raw.groupPost(f.admin, '/members/remove', {
          group_id: f.groupId,
          user_ids: [f.target.userId, admin2.userId],
        }),
        1209,
      );
      expectFail(
        await api.raw.groupPost(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.owner.userId] }),
        1209,
      );
      expectFail(
        await api.raw.groupPost(f.member, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }),
        1209,
      );
      expect(Object.keys(await api.groupRoles(f.owner, f.groupId))).toHaveLength(5);
      const removed = expectOk<{ removed: string[]; event_id: string }>(
        await api.raw.groupPost(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }),
      );
      expect(removed.removed).toEqual([f.target.userId]);
      await expectEventType(t, removed.event_id, 'group.members_removed');
      expect(
        expectOk<{ removed: string[]; event_id: string | null }>(
          await api.raw.groupPost(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }),
        ),
      ).toEqual({ removed: [], event_id: null });
      expectFail(await api.raw.groupGet(f.target, '/get', { group_id: f.groupId }), 1209);
      expect(await api.myGroupIds(f.target)).toEqual([]);
      expectFail(
        await api.raw.send(f.target, {
          conversation_id: `group_${f.groupId}`,
          client_message_id: 'c1',
          type: 'text',
          content: { text: 'x' },
        }),
        1203,
      );
      // The owner may remove an admin.
      expectOk(await api.raw.groupPost(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [admin2.userId] }));
      // Added again: a plain member.
      expectOk(await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [admin2.userId] }));
      expect((await api.groupRoles(f.owner, f.groupId))[admin2.userId]).toBe('member');
    });

    it('leave: members leave; the owner must transfer first (1209)', async () => {
      const f = await fixture();
      const left = expectOk<{ group_id: string; event_id: string }>(
        await api.raw.groupPost(f.member, '/leave', { group_id: f.groupId }),
      );
      expect(left.group_id).toBe(f.groupId);
      await expectEventType(t, left.event_id, 'group.member_left');
      expect((await api.groupRoles(f.owner, f.groupId))[f.member.userId]).toBeUndefined();
      expectFail(await api.raw.groupPost(f.member, '/leave', { group_id: f.groupId }), 1209);
      expectFail(await api.raw.groupPost(f.owner, '/leave', { group_id: f.groupId }), 1209);
      expect((await api.groupRoles(f.owner, f.groupId))[f.owner.userId]).toBe('owner');
      expectFail(await api.raw.groupPost(f.outsider, '/leave', { group_id: f.groupId }), 1209);
      expectOk(await api.raw.groupPost(f.admin, '/leave', { group_id: f.groupId }));
      expect(await api.groupRoles(f.owner, f.groupId)).toEqual({
        [f.owner.userId]: 'owner',
        [f.target.userId]: 'member',
      });
    });

    it('concurrent adds of the same users converge on one membership each', async () => {
      const [owner, x, y] = await api.users(3);
      const groupId = await create(owner);
      const replies = await Promise.all(
        Array.from({ length: 5 }, () =>
          api.raw.groupPost(owner, '/members/add', { group_id: groupId, user_ids: [x.userId, y.userId] }),
        ),
      );
      for (const r of replies) expectOk(r);
      const addedCounts = replies.map((r) => (r.body.data.added as string[]).length);
      expect(addedCounts.reduce((s, n) => s + n, 0)).toBe(2);
      expect(await api.groupRoles(owner, groupId)).toEqual({
        [owner.userId]: 'owner',
        [x.userId]: 'member',
        [y.userId]: 'member',
      });
      expect((await api.group(x, groupId)).member_count).toBe(3);
    });
  });
});
