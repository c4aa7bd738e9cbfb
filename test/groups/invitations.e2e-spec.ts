// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { DataSource } from 'typeorm';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser } from '../helpers/api-client';
import { expectFail, expectOk, expectEventType } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { gid, groupFixture, GroupFixture, storedGroupRows } from './group-kit';

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

  const { internalGroupId, membership, convMember, event, ids, eventCount } = storedGroupRows(() => t);

  const fixture = (): Promise<GroupFixture> => groupFixture(api, factories);

  describe('invitations', () => {
    it('creates a random code (default TTL from config) and joins with it', async () => {
      const f = await fixture();
      const before = t.clock.now();
      const inv = expectOk(await post(f.admin, '/invitations/create', { group_id: f.publicId }));
      expect(inv).toEqual({
        code: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
        group_id: f.publicId,
        expires_at: expect.any(Number),
        event_id: expect.any(String),
      });
      expect(inv.expires_at as number).toBeGreaterThanOrEqual(before + t.config.messaging.invitationTtlSeconds * 1000);
      const created = await event(inv.event_id as string);
      expect(created).toMatchObject({ type: 'group.invitation_created', recipients: [f.admin.id] });
      expect(JSON.stringify(created.payload)).not.toContain(inv.code as string);

      const other = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId, ttl_seconds: 60 }));
      expect(other.code).not.toBe(inv.code);

      const [joiner] = await api.users(1);
      const joined = expectOk(await post(joiner, '/join', { code: inv.code }));
      expect(joined.group).toMatchObject({ group_id: f.publicId, my_role: 'member', member_count: 5 });
      const joinedEvent = await event(joined.event_id as string);
      expect(joinedEvent).toMatchObject({
        type: 'group.member_joined',
        recipients: ids(f.owner, f.admin, f.member, f.target, joiner),
      });
      expect(await convMember(f.publicId, joiner)).toEqual({ from: '0', to: null });
      expect(expectOk(await post(joiner, '/join', { code: inv.code })).event_id).toBeNull();
    });

    it('expires by the clock: valid until expires_at, then 1210', async () => {
      const f = await fixture();
      const inv = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId, ttl_seconds: 60 }));
      t.clock.advance(58_000);
      const [early, late] = await api.users(2);
      expectOk(await post(early, '/join', { code: inv.code }));
      t.clock.advance(2_001);
      expectFail(await post(late, '/join', { code: inv.code }), 1210);
      expect(await membership(f.publicId, late)).toBeUndefined();
    });

    it('answers 1210 for unknown codes and codes of a demoted or departed inviter, 1004 for malformed ones', async () => {
      const f = await fixture();
      const [u] = await api.users(1);
      expectFail(await post(u, '/join', { code: 'AAAAAAAAAAAAAAAAAAAAAAAA' }), 1210);
      expectFail(await post(u, '/join', { code: 'not a code!' }), 1004, 'code');
      expectFail(await post(u, '/join', {}), 1004, 'code');
      expectFail(await post(u, '/join', { code: 123 }), 1004, 'code');
      const inv = expectOk(await post(f.admin, '/invitations/create', { group_id: f.publicId }));
      expectOk(await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.admin.userId, admin: false }));
      expectFail(await post(u, '/join', { code: inv.code }), 1210);
      expectOk(await post(f.owner, '/admins/set', { group_id: f.publicId, user_id: f.admin.userId, admin: true }));
      expectOk(await post(u, '/join', { code: inv.code }));
    });

    it('refuses ttl_seconds outside 60..max with 1004', async () => {
      const f = await fixture();
      const max = t.config.messaging.invitationTtlSeconds;
      for (const ttl of [59, max + 1, '600', 60.5, -60]) {
        expectFail(
          await post(f.owner, '/invitations/create', { group_id: f.publicId, ttl_seconds: ttl }),
          1004,
          'ttl_seconds',
        );
      }
      expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId, ttl_seconds: max }));
    });

    it('two joins with the same code at once make one membership', async () => {
      const f = await fixture();
      const inv = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId }));
      const [u, v] = await api.users(2);
      const replies = (await Promise.all([u, u, u, v, v].map((x) => post(x, '/join', { code: inv.code })))).map(
        expectOk,
      );
      expect(replies.filter((r) => r.event_id !== null)).toHaveLength(2);
      const gid = await internalGroupId(f.publicId);
      for (const x of [u, v])
        expect(
          await db.query('SELECT id FROM group_members WHERE group_id = ? AND user_id = ?', [gid, x.id]),
        ).toHaveLength(1);
      expect(await eventCount('group.member_joined', f.publicId)).toBe(2);
    });

    it('lets a removed member rejoin with a code', async () => {
      const f = await fixture();
      const inv = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId }));
      expectOk(await post(f.owner, '/members/remove', { group_id: f.publicId, user_ids: [f.member.userId] }));
      expectOk(await post(f.member, '/join', { code: inv.code }));
      expect(await membership(f.publicId, f.member)).toMatchObject({ status: 'active', role: 'member' });
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

  describe('invitations', () => {
    it('owner/admin create a 24-character code; joining makes a plain member with an event; repeats converge', async () => {
      const f = await fixture();
      const [joiner] = await api.users(1);
      expectFail(await api.raw.groupPost(f.member, '/invitations/create', { group_id: f.groupId }), 1209);
      expectFail(await api.raw.groupPost(f.outsider, '/invitations/create', { group_id: f.groupId }), 1209);
      const inv = expectOk<{ code: string; group_id: string; expires_at: number; event_id: string }>(
        await api.raw.groupPost(f.admin, '/invitations/create', { group_id: f.groupId, ttl_seconds: 600 }),
      );
      expect(inv.code).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(inv.group_id).toBe(f.groupId);
      expect(Math.abs(inv.expires_at - (t.clock.now() + 600_000))).toBeLessThan(5000);
      await expectEventType(t, inv.event_id, 'group.invitation_created');
      const joined = expectOk<Body>(await api.raw.groupPost(joiner, '/join', { code: inv.code }));
      expect(typeof joined.event_id).toBe('string');
      await expectEventType(t, joined.event_id, 'group.member_joined');
      expect((await api.group(joiner, f.groupId)).my_role).toBe('member');
      expect(await api.myGroupIds(joiner)).toEqual([f.groupId]);
      // Joining again changes nothing.
      const again = await api.raw.groupPost(joiner, '/join', { code: inv.code });
      expect(again.status).toBe(200);
      if (again.body.code === 0) expect(again.body.data.event_id).toBeNull();
      const roles = await api.groupRoles(f.owner, f.groupId);
      expect(Object.keys(roles)).toHaveLength(5);
      // An existing admin joining by code keeps the role.
      const byAdmin = await api.raw.groupPost(f.admin, '/join', { code: inv.code });
      expect(byAdmin.status).toBe(200);
      expect((await api.groupRoles(f.owner, f.groupId))[f.admin.userId]).toBe('admin');
    });

    it('unknown, malformed and expired codes are 1210 / 1004 and change nothing', async () => {
      const f = await fixture();
      const [joiner] = await api.users(1);
      expectFail(await api.raw.groupPost(joiner, '/join', { code: 'AAAAAAAAAAAAAAAAAAAAAAAA' }), 1210);
      expectFail(await api.raw.groupPost(joiner, '/join', { code: '' }), 1004, 'code');
      expectFail(await api.raw.groupPost(joiner, '/join', { code: 12 }), 1004, 'code');
      expectFail(await api.raw.groupPost(joiner, '/join', { code: 'abc def' }), 1004, 'code');
      expectFail(await api.raw.groupPost(joiner, '/join', {}), 1004, 'code');
      const inv = expectOk<{ code: string; expires_at: number }>(
        await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: 60 }),
      );
      t.clock.advance(61_000);
      try {
        expectFail(await api.raw.groupPost(joiner, '/join', { code: inv.code }), 1210);
      } finally {
        t.clock.advance(-61_000);
      }
      expect(await api.myGroupIds(joiner)).toEqual([]);
      expect(Object.keys(await api.groupRoles(f.owner, f.groupId))).toHaveLength(4);
    });

    it('ttl_seconds: default and maximum INVITATION_TTL_SECONDS; outside 60..max or not an integer is 1004', async () => {
      const f = await fixture();
      const def = expectOk<{ expires_at: number }>(
        await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId }),
      );
      expect(Math.abs(def.expires_at - (t.clock.now() + 3_600_000))).toBeLessThan(5000);
      for (const bad of [59, 3601, 0, -5, 60.5, '600', true])
        expectFail(
          await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: bad }),
          1004,
          'ttl_seconds',
        );
      expectOk(await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: 60 }));
      expectOk(await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: 3600 }));
    });

    it('a code whose creator is no longer owner or admin is 1210', async () => {
      const f = await fixture();
      const [joiner] = await api.users(1);
      const inv = expectOk<{ code: string }>(
        await api.raw.groupPost(f.admin, '/invitations/create', { group_id: f.groupId }),
      );
      expectOk(
        await api.raw.groupPost(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.admin.userId, admin: false }),
      );
      expectFail(await api.raw.groupPost(joiner, '/join', { code: inv.code }), 1210);
      expect(await api.myGroupIds(joiner)).toEqual([]);
    });

    it('a removed member may come back by invitation as a plain member', async () => {
      const f = await fixture();
      expectOk(
        await api.raw.groupPost(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.admin.userId] }),
      );
      const inv = expectOk<{ code: string }>(
        await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId }),
      );
      expectOk(await api.raw.groupPost(f.admin, '/join', { code: inv.code }));
      expect((await api.group(f.admin, f.groupId)).my_role).toBe('member');
    });

    it('two joins by one user at once converge on one membership without 500s', async () => {
      for (let round = 0; round < 4; round += 1) {
        const [owner, joiner, other] = await api.users(3);
        const groupId = await create(owner);
        const inv = expectOk<{ code: string }>(
          await api.raw.groupPost(owner, '/invitations/create', { group_id: groupId }),
        );
        const replies = await Promise.all([
          api.raw.groupPost(joiner, '/join', { code: inv.code }),
          api.raw.groupPost(joiner, '/join', { code: inv.code }),
          api.raw.groupPost(other, '/join', { code: inv.code }),
        ]);
        for (const r of replies) expectOk(r);
        const eventIds = replies.slice(0, 2).map((r) => r.body.data.event_id as string | null);
        expect(eventIds.filter((e) => e !== null)).toHaveLength(1);
        expect(await api.groupRoles(owner, groupId)).toEqual({
          [owner.userId]: 'owner',
          [joiner.userId]: 'member',
          [other.userId]: 'member',
        });
        expect((await api.group(joiner, groupId)).member_count).toBe(3);
      }
    });
  });
});
