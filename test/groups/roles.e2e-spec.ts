// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { GroupsRepository } from '../../src/groups/groups.repository';
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, Group } from '../helpers/api-client';
import { expectFail, expectOk, expectEventType } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { gid, groupFixture, GroupFixture, storedGroupRows } from './group-kit';

type Method = 'get' | 'post';

describe('Groups', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  /** A group endpoint by method, for the tables of cases below. */
  const call = (user: IssuedUser, method: Method, path: string, payload: Body = {}) =>
    method === 'get' ? api.raw.groupGet(user, path, payload) : api.raw.groupPost(user, path, payload);
  const post = (user: IssuedUser, path: string, body: Body = {}) => api.raw.groupPost(user, path, body);
  const get = (user: IssuedUser, path: string, query: Body = {}) => api.raw.groupGet(user, path, query);

  const { groupRow, internalGroupId, membership, event, ids } = storedGroupRows(() => t);

  const fixture = (): Promise<GroupFixture> => groupFixture(api, factories);

  describe('role checks of every endpoint (owner, admin, member, non-member, former member)', () => {
    type Role = 'owner' | 'admin' | 'member' | 'outsider' | 'former';
    const ROLES: Role[] = ['owner', 'admin', 'member', 'outsider', 'former'];
    interface Case {
      name: string;
      method: Method;
      path: string;
      body: (f: GroupFixture, fresh: IssuedUser) => Body;
      allowed: Role[];
    }
    const CASES: Case[] = [
      {
        name: 'get',
        method: 'get',
        path: '/get',
        body: (f) => ({ group_id: f.publicId }),
        allowed: ['owner', 'admin', 'member'],
      },
      {
        name: 'members',
        method: 'get',
        path: '/members',
        body: (f) => ({ group_id: f.publicId }),
        allowed: ['owner', 'admin', 'member'],
      },
      {
        name: 'update',
        method: 'post',
        path: '/update',
        body: (f) => ({ group_id: f.publicId, name: 'Renamed' }),
        allowed: ['owner', 'admin'],
      },
      {
        name: 'members/add',
        method: 'post',
        path: '/members/add',
        body: (f, fresh) => ({ group_id: f.publicId, user_ids: [fresh.userId] }),
        allowed: ['owner', 'admin'],
      },
      {
        name: 'members/remove',
        method: 'post',
        path: '/members/remove',
        body: (f) => ({ group_id: f.publicId, user_ids: [f.target.userId] }),
        allowed: ['owner', 'admin'],
      },
      {
        name: 'leave',
        method: 'post',
        path: '/leave',
        body: (f) => ({ group_id: f.publicId }),
        allowed: ['admin', 'member'],
      },
      {
        name: 'admins/set',
        method: 'post',
        path: '/admins/set',
        body: (f) => ({ group_id: f.publicId, user_id: f.target.userId, admin: true }),
        allowed: ['owner'],
      },
      {
        name: 'transfer',
        method: 'post',
        path: '/transfer',
        body: (f) => ({ group_id: f.publicId, user_id: f.target.userId }),
        allowed: ['owner'],
      },
      {
        name: 'dismiss',
        method: 'post',
        path: '/dismiss',
        body: (f) => ({ group_id: f.publicId }),
        allowed: ['owner'],
      },
      {
        name: 'members/mute',
        method: 'post',
        path: '/members/mute',
        body: (f) => ({ group_id: f.publicId, user_id: f.target.userId, duration_seconds: 60 }),
        allowed: ['owner', 'admin'],
      },
      {
        name: 'invitations/create',
        method: 'post',
        path: '/invitations/create',
        body: (f) => ({ group_id: f.publicId }),
        allowed: ['owner', 'admin'],
      },
    ];

    it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      for (const role of ROLES) {
        const f = await fixture();
        const [fresh] = await api.users(1);
        const caller = f[role];
        const response = await call(caller, c.method, c.path, c.body(f, fresh));
        const outcome = { role, code: response.body.code };
        expect(outcome).toEqual({ role, code: c.allowed.includes(role) ? 0 : 1209 });
        if (!c.allowed.includes(role)) expect(response.body.data).toBeNull();
      }
    });

    it('the owner cannot leave, and only members see the group in their list', async () => {
      const f = await fixture();
      expectFail(await post(f.owner, '/leave', { group_id: f.publicId }), 1209);
      for (const role of ROLES) {
        const listed = (expectOk(await get(f[role], '')).items as Body[]).map((g) => g.group_id);
        expect({ role, listed: listed.includes(f.publicId) }).toEqual({
          role,
          listed: ['owner', 'admin', 'member'].includes(role),
        });
      }
    });

    it('an unknown group answers the same 1209 as a group the caller is not in', async () => {
      const f = await fixture();
      const unknown = randomGroupId();
      for (const c of CASES) {
        const body = c.body(f, f.outsider);
        expectFail(await call(f.member, c.method, c.path, { ...body, group_id: unknown }), 1209);
      }
    });

    it('join with a code works for every role: members get event_id null, outsiders and former members join', async () => {
      const f = await fixture();
      const code = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId })).code as string;
      for (const role of ['owner', 'admin', 'member'] as const) {
        const data = expectOk(await post(f[role], '/join', { code }));
        expect({ role, event_id: data.event_id, my_role: (data.group as Body).my_role }).toEqual({
          role,
          event_id: null,
          my_role: role,
        });
      }
      for (const role of ['outsider', 'former'] as const) {
        const data = expectOk(await post(f[role], '/join', { code }));
        expect({ role, event: typeof data.event_id, my_role: (data.group as Body).my_role }).toEqual({
          role,
          event: 'string',
          my_role: 'member',
        });
      }
    });
  });

  describe('POST /admins/set and /transfer', () => {
    it('appoints and dismisses admins, idempotently, with JSON booleans only', async () => {
      const f = await fixture();
      const set = expectOk(
        await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.member.userId, admin: true }),
      );
      expect(set).toEqual({ user_id: f.member.userId, role: 'admin', event_id: expect.any(String) });
      expect(await event(set.event_id as string)).toMatchObject({
        type: 'group.admin_changed',
        payload: expect.objectContaining({ user_id: f.member.userId, role: 'admin' }),
      });
      expect(
        expectOk(await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.member.userId, admin: true })),
      ).toEqual({ user_id: f.member.userId, role: 'admin', event_id: null });
      expect(
        (
          expectOk(
            await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.member.userId, admin: false }),
          ) as Body
        ).role,
      ).toBe('member');
      for (const admin of ['true', 1, 0, null, 'false'])
        expectFail(
          await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.member.userId, admin }),
          1004,
          'admin',
        );
      expectFail(
        await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.owner.userId, admin: false }),
        1209,
      );
      expectFail(
        await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.outsider.userId, admin: true }),
        1209,
      );
      expectFail(
        await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.former.userId, admin: true }),
        1209,
      );
      expectFail(
        await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: randomUserId('ghost'), admin: true }),
        1204,
        'user_id',
      );
    });

    it('transfers ownership: the old owner becomes an admin and may then leave', async () => {
      const f = await fixture();
      expectFail(await post(f.owner, '/transfer', { group_id: f.publicId, user_id: f.owner.userId }), 1209);
      expectFail(await post(f.owner, '/transfer', { group_id: f.publicId, user_id: f.outsider.userId }), 1209);
      expectFail(await post(f.owner, '/transfer', { group_id: f.publicId, user_id: f.former.userId }), 1209);
      expectFail(await post(f.owner, '/transfer', { group_id: f.publicId, user_id: randomUserId('ghost') }), 1204);
      expectFail(await post(f.owner, '/transfer', { group_id: f.publicId }), 1004, 'user_id');
      // A muted member who becomes owner is unmuted.
      expectOk(
        await post(f.owner, '/members/mute', { group_id: f.publicId, user_id: f.member.userId, duration_seconds: 600 }),
      );
      const data = expectOk(await post(f.owner, '/transfer', { group_id: f.publicId, user_id: f.member.userId }));
      expect(data.group).toMatchObject({ owner_user_id: f.member.userId, my_role: 'admin' });
      expect(await event(data.event_id as string)).toMatchObject({
        type: 'group.owner_transferred',
        payload: expect.objectContaining({ previous_owner_user_id: f.owner.userId, owner_user_id: f.member.userId }),
        recipients: ids(f.owner, f.admin, f.member, f.target),
      });
      expect(await membership(f.publicId, f.member)).toMatchObject({ role: 'owner', muted_until: expect.anything() });
      expect(Number((await membership(f.publicId, f.member))!.muted_until)).toBe(0);
      expect(await membership(f.publicId, f.owner)).toMatchObject({ role: 'admin' });
      expect(String((await groupRow(f.publicId))!.owner_id)).toBe(f.member.id);
      expect((expectOk(await get(f.member, '/get', { group_id: f.publicId })).group as Body).my_role).toBe('owner');
      // The old owner lost owner rights, the new owner has them.
      expectFail(await post(f.owner, '/dismiss', { group_id: f.publicId }), 1209);
      expectFail(await post(f.member, '/leave', { group_id: f.publicId }), 1209);
      expectOk(await post(f.owner, '/leave', { group_id: f.publicId }));
    });
  });

  describe('POST /members/mute', () => {
    it('sets muted_until = now + duration; 0 unmutes; admins cannot mute the owner or admins', async () => {
      const f = await fixture();
      const before = t.clock.now();
      const data = expectOk(
        await post(f.admin, '/members/mute', {
          group_id: f.publicId,
          user_id: f.member.userId,
          duration_seconds: 3600,
        }),
      );
      const after = t.clock.now();
      expect(data).toEqual({ user_id: f.member.userId, muted_until: expect.any(Number), event_id: expect.any(String) });
      expect(data.muted_until as number).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(data.muted_until as number).toBeLessThanOrEqual(after + 3_600_000);
      expect(await event(data.event_id as string)).toMatchObject({
        type: 'group.member_muted',
        payload: expect.objectContaining({ user_id: f.member.userId, muted_until: data.muted_until }),
      });
      // What the messaging core reads.
      const repo = t.app.get(GroupsRepository);
      const gid = await internalGroupId(f.publicId);
      expect((await repo.findActiveMembership(gid, f.member.id))!.mutedUntil).toBe(data.muted_until);
      const listed = (expectOk(await get(f.member, '/members', { group_id: f.publicId })).items as Body[]).find(
        (m) => (m.user as Body).user_id === f.member.userId,
      )!;
      expect(listed.muted_until).toBe(data.muted_until);

      expect(
        expectOk(
          await post(f.owner, '/members/mute', { group_id: f.publicId, user_id: f.member.userId, duration_seconds: 0 }),
        ).muted_until,
      ).toBe(0);
      expectOk(
        await post(f.owner, '/members/mute', { group_id: f.publicId, user_id: f.admin.userId, duration_seconds: 60 }),
      );
      expectOk(
        await post(f.owner, '/members/mute', {
          group_id: f.publicId,
          user_id: f.admin.userId,
          duration_seconds: 30 * 24 * 3600,
        }),
      );

      const [admin2] = await api.users(1);
      expectOk(await post(f.owner, '/members/add', { group_id: f.publicId, user_ids: [admin2.userId] }));
      expectOk(await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: admin2.userId, admin: true }));
      expectFail(
        await post(f.admin, '/members/mute', { group_id: f.publicId, user_id: admin2.userId, duration_seconds: 60 }),
        1209,
      );
      expectFail(
        await post(f.admin, '/members/mute', { group_id: f.publicId, user_id: f.owner.userId, duration_seconds: 60 }),
        1209,
      );
      expectFail(
        await post(f.admin, '/members/mute', { group_id: f.publicId, user_id: f.admin.userId, duration_seconds: 60 }),
        1209,
      );
      expectFail(
        await post(f.owner, '/members/mute', { group_id: f.publicId, user_id: f.owner.userId, duration_seconds: 60 }),
        1209,
      );
      expectFail(
        await post(f.owner, '/members/mute', {
          group_id: f.publicId,
          user_id: f.outsider.userId,
          duration_seconds: 60,
        }),
        1209,
      );
      expectFail(
        await post(f.owner, '/members/mute', { group_id: f.publicId, user_id: f.former.userId, duration_seconds: 60 }),
        1209,
      );
      expectFail(
        await post(f.owner, '/members/mute', {
          group_id: f.publicId,
          user_id: randomUserId('ghost'),
          duration_seconds: 60,
        }),
        1204,
      );
    });

    it.each<[string, unknown]>([
      ['a string', '60'],
      ['negative', -1],
      ['over 30 days', 30 * 24 * 3600 + 1],
      ['a fraction', 1.5],
      ['a boolean', true],
      ['missing', undefined],
    ])('refuses duration_seconds %s with 1004', async (_label, duration) => {
      const f = await fixture();
      expectFail(
        await post(f.owner, '/members/mute', {
          group_id: f.publicId,
          user_id: f.member.userId,
          duration_seconds: duration,
        }),
        1004,
        'duration_seconds',
      );
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

  describe('roles', () => {
    it('only the owner sets admins; admin is a JSON boolean; a repeat is event_id null', async () => {
      const f = await fixture();
      expectFail(
        await api.raw.groupPost(f.admin, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true }),
        1209,
      );
      expectFail(
        await api.raw.groupPost(f.member, '/admins/set', {
          group_id: f.groupId,
          user_id: f.member.userId,
          admin: true,
        }),
        1209,
      );
      for (const bad of ['true', 1, null])
        expectFail(
          await api.raw.groupPost(f.owner, '/admins/set', {
            group_id: f.groupId,
            user_id: f.member.userId,
            admin: bad,
          }),
          1004,
          'admin',
        );
      expectFail(
        await api.raw.groupPost(f.owner, '/admins/set', { group_id: f.groupId, user_id: 7, admin: true }),
        1004,
        'user_id',
      );
      expect((await api.groupRoles(f.owner, f.groupId))[f.member.userId]).toBe('member');
      const set = expectOk<{ user_id: string; role: string; event_id: string }>(
        await api.raw.groupPost(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true }),
      );
      expect(set).toMatchObject({ user_id: f.member.userId, role: 'admin' });
      await expectEventType(t, set.event_id, 'group.admin_changed');
      expect(
        expectOk<{ event_id: string | null }>(
          await api.raw.groupPost(f.owner, '/admins/set', {
            group_id: f.groupId,
            user_id: f.member.userId,
            admin: true,
          }),
        ).event_id,
      ).toBeNull();
      expect((await api.group(f.member, f.groupId)).my_role).toBe('admin');
      const unset = expectOk<{ role: string; event_id: string }>(
        await api.raw.groupPost(f.owner, '/admins/set', {
          group_id: f.groupId,
          user_id: f.member.userId,
          admin: false,
        }),
      );
      expect(unset.role).toBe('member');
      expectFail(await api.raw.groupPost(f.member, '/update', { group_id: f.groupId, name: 'x' }), 1209);
      // A non-member cannot be made admin.
      const r = await api.raw.groupPost(f.owner, '/admins/set', {
        group_id: f.groupId,
        user_id: f.outsider.userId,
        admin: true,
      });
      expect(r.status).toBe(200);
      expect(r.body.code).not.toBe(0);
      expectFail(await api.raw.groupGet(f.outsider, '/get', { group_id: f.groupId }), 1209);
    });

    it('transfer: owner only; the old owner becomes admin; the new owner may dismiss', async () => {
      const f = await fixture();
      expectFail(await api.raw.groupPost(f.admin, '/transfer', { group_id: f.groupId, user_id: f.admin.userId }), 1209);
      expectFail(
        await api.raw.groupPost(f.member, '/transfer', { group_id: f.groupId, user_id: f.member.userId }),
        1209,
      );
      const r = await api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.outsider.userId });
      expect(r.status).toBe(200);
      expect(r.body.code).not.toBe(0);
      const data = expectOk<{ group: Group; event_id: string }>(
        await api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }),
      );
      await expectEventType(t, data.event_id, 'group.owner_transferred');
      expect(data.group.owner_user_id).toBe(f.member.userId);
      const roles = await api.groupRoles(f.member, f.groupId);
      expect(roles[f.member.userId]).toBe('owner');
      expect(roles[f.owner.userId]).toBe('admin');
      expect(Object.values(roles).filter((x) => x === 'owner')).toHaveLength(1);
      expect((await api.group(f.owner, f.groupId)).owner_user_id).toBe(f.member.userId);
      expectFail(await api.raw.groupPost(f.owner, '/dismiss', { group_id: f.groupId }), 1209);
      expectOk(await api.raw.groupPost(f.owner, '/leave', { group_id: f.groupId }));
      expectOk(await api.raw.groupPost(f.member, '/dismiss', { group_id: f.groupId }));
    });

    it('dismiss: owner only; afterwards every operation is 1209, codes 1210, and lists drop it', async () => {
      const f = await fixture();
      const { code } = expectOk<{ code: string }>(
        await api.raw.groupPost(f.admin, '/invitations/create', { group_id: f.groupId }),
      );
      expectFail(await api.raw.groupPost(f.admin, '/dismiss', { group_id: f.groupId }), 1209);
      expectFail(await api.raw.groupPost(f.member, '/dismiss', { group_id: f.groupId }), 1209);
      const data = expectOk<{ group_id: string; dismissed_at: number; event_id: string }>(
        await api.raw.groupPost(f.owner, '/dismiss', { group_id: f.groupId }),
      );
      expect(data.group_id).toBe(f.groupId);
      await expectEventType(t, data.event_id, 'group.dismissed');
      for (const u of [f.owner, f.admin, f.member]) {
        expectFail(await api.raw.groupGet(u, '/get', { group_id: f.groupId }), 1209);
        expectFail(await api.raw.groupGet(u, '/members', { group_id: f.groupId }), 1209);
        expect(await api.myGroupIds(u)).toEqual([]);
      }
      expectFail(await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, name: 'z' }), 1209);
      expectFail(await api.raw.groupPost(f.owner, '/dismiss', { group_id: f.groupId }), 1209);
      expectFail(await api.raw.groupPost(f.outsider, '/join', { code }), 1210);
      // The public ID of a dismissed group is not handed out again.
      expectFail(
        await api.raw.groupPost(f.outsider, '/create', { group_id: f.groupId, name: 'reuse' }),
        1004,
        'group_id',
      );
    });
  });
});
