// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from '../helpers/outbox';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, Group, IssuedUser, Page } from '../helpers/api-client';
import { expectEventType, expectFail, expectOk } from '../helpers/assertions';

const gid = (): string => `g.${randomBytes(6).toString('hex')}`;

describe('Groups (black box)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ INVITATION_TTL_SECONDS: '3600' });
    db = t.app.get(DataSource);
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

  describe('edge cases', () => {
    it('create with the caller in member_ids keeps one owner membership', async () => {
      const [owner, m] = await api.users(2);
      const groupId = gid();
      const r = await api.raw.groupPost(owner, '/create', {
        group_id: groupId,
        name: 'n',
        member_ids: [owner.userId, m.userId],
      });
      expect(r.status).toBe(200);
      if (r.body.code === 0) {
        expect(r.body.data.group.member_count).toBe(2);
        expect(await api.groupRoles(owner, groupId)).toEqual({ [owner.userId]: 'owner', [m.userId]: 'member' });
      } else {
        expect(r.body.code).toBe(1004);
        expect(r.body.msg).toContain('member_ids');
        expect(await api.myGroupIds(owner)).toEqual([]);
      }
    });

    it('create ignores unknown fields such as owner_user_id and my_role', async () => {
      const [owner, other] = await api.users(2);
      const groupId = gid();
      const data = expectOk<{ group: Group }>(
        await api.raw.groupPost(owner, '/create', {
          group_id: groupId,
          name: 'n',
          owner_user_id: other.userId,
          my_role: 'member',
          member_count: 99,
        }),
      );
      expect(data.group).toMatchObject({ owner_user_id: owner.userId, my_role: 'owner', member_count: 1 });
      expectFail(await api.raw.groupGet(other, '/get', { group_id: groupId }), 1209);
    });

    it('a disabled user: add and create treat them alike (docs/api.md leaves this open; profile answers 1204)', async () => {
      const [owner, m] = await api.users(2);
      expectOk(await api.raw.userStatus(m.userId, true));
      const groupId = await create(owner);
      const add = await api.raw.groupPost(owner, '/members/add', { group_id: groupId, user_ids: [m.userId] });
      const make = await api.raw.groupPost(owner, '/create', { name: 'n', member_ids: [m.userId] });
      expect([add.status, make.status]).toEqual([200, 200]);
      expect(add.body.code === 0).toBe(make.body.code === 0);
      if (add.body.code !== 0) expect(add.body.code).toBe(1204);
    });

    it('a batch add with one malformed ID is 1004 naming user_ids and adds no one', async () => {
      const [owner, m] = await api.users(2);
      const groupId = await create(owner);
      expectFail(
        await api.raw.groupPost(owner, '/members/add', { group_id: groupId, user_ids: [m.userId, ''] }),
        1004,
        'user_ids',
      );
      expectFail(
        await api.raw.groupPost(owner, '/members/add', { group_id: groupId, user_ids: [m.userId, 'x'.repeat(65)] }),
        1004,
        'user_ids',
      );
      expect(Object.keys(await api.groupRoles(owner, groupId))).toEqual([owner.userId]);
    });

    it('the owner cannot be demoted or made admin through admins/set, nor remove themself', async () => {
      const f = await fixture();
      for (const admin of [false, true]) {
        const r = await api.raw.groupPost(f.owner, '/admins/set', {
          group_id: f.groupId,
          user_id: f.owner.userId,
          admin,
        });
        expect(r.status).toBe(200);
        if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
        expect((await api.groupRoles(f.owner, f.groupId))[f.owner.userId]).toBe('owner');
      }
      const rm = await api.raw.groupPost(f.owner, '/members/remove', {
        group_id: f.groupId,
        user_ids: [f.owner.userId],
      });
      expect(rm.status).toBe(200);
      expect(rm.body.code).not.toBe(0);
      expect((await api.groupRoles(f.admin, f.groupId))[f.owner.userId]).toBe('owner');
      const tr = await api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.owner.userId });
      expect(tr.status).toBe(200);
      if (tr.body.code === 0) expect(tr.body.data.event_id).toBeNull();
      expect((await api.groupRoles(f.admin, f.groupId))[f.owner.userId]).toBe('owner');
      expect((await api.group(f.member, f.groupId)).owner_user_id).toBe(f.owner.userId);
    });

    it('an admin cannot remove themself through members/remove as a way around roles? (admins may leave)', async () => {
      const f = await fixture();
      const r = await api.raw.groupPost(f.admin, '/members/remove', {
        group_id: f.groupId,
        user_ids: [f.admin.userId],
      });
      expect(r.status).toBe(200);
      // An admin may not remove admins: themself included, or it is a leave. Either way no 500 and a consistent state.
      const roles = await api.groupRoles(f.owner, f.groupId);
      if (r.body.code === 0) expect(roles[f.admin.userId]).toBeUndefined();
      else expect(roles[f.admin.userId]).toBe('admin');
    });

    it('mute: owner/admin only; the muted member cannot send (1203); bad duration 1004', async () => {
      const f = await fixture();
      expectFail(
        await api.raw.groupPost(f.member, '/members/mute', {
          group_id: f.groupId,
          user_id: f.target.userId,
          duration_seconds: 60,
        }),
        1209,
      );
      for (const bad of [-1, 30 * 24 * 3600 + 1, '60', 1.5])
        expectFail(
          await api.raw.groupPost(f.admin, '/members/mute', {
            group_id: f.groupId,
            user_id: f.target.userId,
            duration_seconds: bad,
          }),
          1004,
          'duration_seconds',
        );
      const muted = expectOk<{ user_id: string; muted_until: number; event_id: string }>(
        await api.raw.groupPost(f.admin, '/members/mute', {
          group_id: f.groupId,
          user_id: f.target.userId,
          duration_seconds: 600,
        }),
      );
      expect(muted.muted_until).toBeGreaterThan(t.clock.now());
      await expectEventType(t, muted.event_id, 'group.member_muted');
      const send = (text: string) =>
        api.raw.send(f.target, {
          conversation_id: `group_${f.groupId}`,
          client_message_id: `c-${randomBytes(4).toString('hex')}`,
          type: 'text',
          content: { text },
        });
      expectFail(await send('x'), 1203);
      const r = await api.raw.groupPost(f.admin, '/members/mute', {
        group_id: f.groupId,
        user_id: f.owner.userId,
        duration_seconds: 600,
      });
      expect(r.body.code).toBe(1209);
      expectOk(
        await api.raw.groupPost(f.admin, '/members/mute', {
          group_id: f.groupId,
          user_id: f.target.userId,
          duration_seconds: 0,
        }),
      );
      expectOk(await send('y'));
    });

    it('an update with one bad field changes nothing (also not the valid fields)', async () => {
      const f = await fixture();
      const before = await api.group(f.owner, f.groupId);
      expectFail(
        await api.raw.groupPost(f.owner, '/update', {
          group_id: f.groupId,
          name: 'Valid new name',
          avatar: 'not a url',
        }),
        1004,
        'avatar',
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, introduction: 'ok', name: ' bad' }),
        1004,
        'name',
      );
      expect(await api.group(f.owner, f.groupId)).toEqual(before);
    });

    it('an empty cursor and a 33-character group_id are 1004 naming the field', async () => {
      const [owner] = await api.users(1);
      const groupId = await create(owner);
      expectFail(await api.raw.groupGet(owner, '', { cursor: '' }), 1004, 'cursor');
      expectFail(await api.raw.groupGet(owner, '/members', { group_id: groupId, cursor: '' }), 1004, 'cursor');
      expectFail(await api.raw.groupGet(owner, '/members', { group_id: 'x'.repeat(33) }), 1004, 'group_id');
      expectFail(await api.raw.groupGet(owner, '/members', {}), 1004, 'group_id');
    });

    it('a code whose creator left the group is 1210', async () => {
      const f = await fixture();
      const [joiner] = await api.users(1);
      const inv = expectOk<{ code: string }>(
        await api.raw.groupPost(f.admin, '/invitations/create', { group_id: f.groupId }),
      );
      expectOk(await api.raw.groupPost(f.admin, '/leave', { group_id: f.groupId }));
      expectFail(await api.raw.groupPost(joiner, '/join', { code: inv.code }), 1210);
      expect(await api.myGroupIds(joiner)).toEqual([]);
    });

    it('a code of the old owner stays valid after a transfer (the old owner becomes admin)', async () => {
      const f = await fixture();
      const [joiner] = await api.users(1);
      const inv = expectOk<{ code: string }>(
        await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId }),
      );
      expectOk(await api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }));
      expectOk(await api.raw.groupPost(joiner, '/join', { code: inv.code }));
      expect(await api.myGroupIds(joiner)).toEqual([f.groupId]);
    });

    it('two transfers at once to different members leave exactly one owner', async () => {
      for (let round = 0; round < 3; round += 1) {
        const f = await fixture();
        const replies = await Promise.all([
          api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }),
          api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.target.userId }),
        ]);
        for (const r of replies) expect(r.status).toBe(200);
        expect(replies.filter((r) => r.body.code === 0)).toHaveLength(1);
        const roles = await api.groupRoles(f.admin, f.groupId);
        expect(Object.values(roles).filter((x) => x === 'owner')).toHaveLength(1);
        expect(roles[f.owner.userId]).toBe('admin');
      }
    });

    it('leave and remove of one member at once: one succeeds, one membership change, no 500', async () => {
      for (let round = 0; round < 3; round += 1) {
        const f = await fixture();
        const [leave, remove] = await Promise.all([
          api.raw.groupPost(f.target, '/leave', { group_id: f.groupId }),
          api.raw.groupPost(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }),
        ]);
        expect([leave.status, remove.status]).toEqual([200, 200]);
        const changed =
          (leave.body.code === 0 ? 1 : 0) +
          (remove.body.code === 0 && (remove.body.data.removed as string[]).length === 1 ? 1 : 0);
        expect(changed).toBe(1);
        expect((await api.groupRoles(f.owner, f.groupId))[f.target.userId]).toBeUndefined();
        expect((await api.group(f.owner, f.groupId)).member_count).toBe(3);
      }
    });

    it('dismiss and add at once: no one ends up in a dismissed group', async () => {
      const f = await fixture();
      const [x] = await api.users(1);
      const [dis, add] = await Promise.all([
        api.raw.groupPost(f.owner, '/dismiss', { group_id: f.groupId }),
        api.raw.groupPost(f.admin, '/members/add', { group_id: f.groupId, user_ids: [x.userId] }),
      ]);
      expectOk(dis);
      expect(add.status).toBe(200);
      expect(await api.myGroupIds(x)).toEqual([]);
      expectFail(await api.raw.groupGet(x, '/get', { group_id: f.groupId }), 1209);
    });

    it('member_count follows adds, leaves, removals and joins', async () => {
      const f = await fixture();
      const [x, y] = await api.users(2);
      expectOk(await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [x.userId] }));
      expect((await api.group(f.owner, f.groupId)).member_count).toBe(5);
      expectOk(await api.raw.groupPost(f.member, '/leave', { group_id: f.groupId }));
      expect((await api.group(f.owner, f.groupId)).member_count).toBe(4);
      const { code } = expectOk<{ code: string }>(
        await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId }),
      );
      expectOk(await api.raw.groupPost(y, '/join', { code }));
      expectOk(await api.raw.groupPost(f.member, '/join', { code }));
      const g = await api.group(f.owner, f.groupId);
      expect(g.member_count).toBe(6);
      expect(Object.keys(await api.groupRoles(f.owner, f.groupId))).toHaveLength(6);
      const mine = expectOk<Page<Group>>(await api.raw.groupGet(y, '')).items.find((i) => i.group_id === f.groupId);
      expect(mine).toMatchObject({ member_count: 6, my_role: 'member' });
    });

    it('members/removed events reach the removed member; group.created reaches every initial member', async () => {
      const [owner, a, b, stranger] = await api.users(4);
      const groupId = gid();
      const created = expectOk<{ event_id: string }>(
        await api.raw.groupPost(owner, '/create', { group_id: groupId, name: 'n', member_ids: [a.userId, b.userId] }),
      );
      const pos = async (eventId: string) =>
        ((await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId])) as { id: string | number }[])[0]
          .id;
      const p1 = await pos(created.event_id);
      for (const u of [owner, a, b]) expect(await isDeliveredTo(t, p1, u.id)).toBe(true);
      expect(await isDeliveredTo(t, p1, stranger.id)).toBe(false);
      const removed = expectOk<{ event_id: string }>(
        await api.raw.groupPost(owner, '/members/remove', { group_id: groupId, user_ids: [b.userId] }),
      );
      expect(await isDeliveredTo(t, await pos(removed.event_id), b.id)).toBe(true);
      expect(await isDeliveredTo(t, await pos(removed.event_id), a.id)).toBe(true);
    });
  });
});
