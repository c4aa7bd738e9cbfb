// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
import { DataSource } from 'typeorm';
import { GroupsRepository } from '../src/groups/groups.repository';
import { TestApp, bearer, randomGroupId, randomUserId, startTestApp } from './helpers/test-app';
import { ApiClient, Body, IssuedUser, groupCid } from './helpers/api-client';
import { expectFail, expectOk, groupEventCount, recipientIds, storedEvent } from './helpers/assertions';
import { Factories } from './helpers/factories';

type Method = 'get' | 'post';

const BASE = '/app/sdk/groups';
const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';

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

  /** A group endpoint by method, for the tables of cases below. */
  const call = (user: IssuedUser, method: Method, path: string, payload: Body = {}) =>
    method === 'get' ? api.raw.groupGet(user, path, payload) : api.raw.groupPost(user, path, payload);
  const post = (user: IssuedUser, path: string, body: Body = {}) => api.raw.groupPost(user, path, body);
  const get = (user: IssuedUser, path: string, query: Body = {}) => api.raw.groupGet(user, path, query);

  // What no endpoint shows: the stored group, membership and conversation rows.
  const row = async <T = Body>(sql: string, params: unknown[]): Promise<T | undefined> =>
    ((await db.query(sql, params)) as T[])[0];
  const groupRow = (publicId: string) =>
    row<{ id: string | number; owner_id: string | number; dismissed_at: string | number | null; disabled: unknown }>(
      'SELECT * FROM `groups` WHERE public_id = ?',
      [publicId],
    );
  const internalGroupId = async (publicId: string): Promise<string> => String((await groupRow(publicId))!.id);
  const conversationOf = async (publicId: string): Promise<{ id: string; lastSeq: string }> => {
    const conv = await row<{ id: string | number; last_seq: string | number }>(
      'SELECT id, last_seq FROM conversations WHERE group_id = ?',
      [await internalGroupId(publicId)],
    );
    return { id: String(conv!.id), lastSeq: String(conv!.last_seq) };
  };
  const membership = async (publicId: string, user: IssuedUser) =>
    row<{ role: string; status: string; muted_until: string | number; left_at: string | number | null }>(
      'SELECT role, status, muted_until, left_at FROM group_members WHERE group_id = ? AND user_id = ?',
      [await internalGroupId(publicId), user.id],
    );
  const convMember = async (publicId: string, user: IssuedUser) => {
    const conv = await conversationOf(publicId);
    const r = await row<{
      visible_from_seq: string | number;
      visible_to_seq: string | number | null;
      read_seq: string | number;
    }>(
      'SELECT visible_from_seq, visible_to_seq, read_seq FROM conversation_members WHERE conversation_id = ? AND user_id = ?',
      [conv.id, user.id],
    );
    return r
      ? { from: String(r.visible_from_seq), to: r.visible_to_seq === null ? null : String(r.visible_to_seq) }
      : null;
  };
  /** The event with its type, payload and the sorted internal IDs of its recipients (group events carry no private part). */
  const event = async (eventId: unknown) => {
    const e = await storedEvent(t, eventId);
    expect([...e.recipients.values()].every((p) => p === null)).toBe(true);
    return { type: e.type, payload: e.payload, recipients: recipientIds(e) };
  };
  const ids = (...list: IssuedUser[]): string[] => list.map((u) => u.id).sort();
  const eventCount = (type: string, publicId: string): Promise<number> => groupEventCount(t, type, publicId);

  /** owner O, admin A, members M and T (a target), non-member N, former member F (left). */
  interface Fixture {
    publicId: string;
    owner: IssuedUser;
    admin: IssuedUser;
    member: IssuedUser;
    target: IssuedUser;
    outsider: IssuedUser;
    former: IssuedUser;
  }
  async function fixture(): Promise<Fixture> {
    const [owner, admin, member, target, outsider, former] = await api.users(6);
    const publicId = await factories.group(owner, [admin, member, target, former]);
    expectOk(await post(owner, '/admins/set', { group_id: publicId, user_id: admin.userId, admin: true }));
    expectOk(await post(former, '/leave', { group_id: publicId }));
    return { publicId, owner, admin, member, target, outsider, former };
  }

  describe('POST /create', () => {
    it('creates the group, memberships, conversation and group.created in one go', async () => {
      const [owner, a, b] = await api.users(3);
      const publicId = randomGroupId();
      const before = t.clock.now();
      const response = await post(owner, '/create', {
        group_id: publicId,
        name: 'Hikers',
        introduction: 'Line one\nline two',
        member_ids: [a.userId, b.userId],
      });
      const data = expectOk(response);
      expect(data).toEqual({
        group: {
          group_id: publicId,
          conversation_id: `group_${publicId}`,
          name: 'Hikers',
          avatar: DEFAULT_AVATAR,
          introduction: 'Line one\nline two',
          owner_user_id: owner.userId,
          member_count: 3,
          my_role: 'owner',
          created_at: expect.any(Number),
          updated_at: expect.any(Number),
          dismissed: false,
        },
        event_id: expect.any(String),
      });
      const group = data.group as Body;
      expect(group.created_at).toBeGreaterThanOrEqual(before);
      expect(group.updated_at).toBe(group.created_at);

      expect(await membership(publicId, owner)).toMatchObject({ role: 'owner', status: 'active' });
      expect(await membership(publicId, a)).toMatchObject({ role: 'member', status: 'active' });
      for (const u of [owner, a, b]) expect(await convMember(publicId, u)).toEqual({ from: '0', to: null });

      const created = await event(data.event_id as string);
      expect(created).toMatchObject({ type: 'group.created', recipients: ids(owner, a, b) });
      expect(created.payload).toMatchObject({
        group_id: publicId,
        conversation_id: `group_${publicId}`,
        operator_user_id: owner.userId,
        member_user_ids: [owner.userId, a.userId, b.userId],
      });
      expect(created.payload.group).toMatchObject({
        group_id: publicId,
        member_count: 3,
        owner_user_id: owner.userId,
        dismissed: false,
      });
      expect(created.payload.group).not.toHaveProperty('my_role');

      // Every member sees it, with their own role.
      expect((expectOk(await get(a, '/get', { group_id: publicId })).group as Body).my_role).toBe('member');
    });

    it('generates a group_id when none is sent, and keeps a given avatar', async () => {
      const [owner] = await api.users(1);
      const data = expectOk(await post(owner, '/create', { name: 'Solo', avatar: 'https://cdn.example.com/g.png' }));
      const group = data.group as Body;
      expect(group.group_id).toMatch(/^g[0-9a-z]{16}$/);
      expect(group.conversation_id).toBe(`group_${group.group_id}`);
      expect(group.avatar).toBe('https://cdn.example.com/g.png');
      expect(group.member_count).toBe(1);
    });

    it('refuses a taken group_id with 1004 naming group_id, also under a race', async () => {
      const [owner, other] = await api.users(2);
      const publicId = await factories.group(owner);
      expectFail(await post(other, '/create', { group_id: publicId, name: 'Copy' }), 1004, 'group_id');

      const raced = randomGroupId();
      const replies = await Promise.all(
        [owner, other, owner, other].map((u) => post(u, '/create', { group_id: raced, name: 'Race' })),
      );
      expect(replies.filter((r) => r.body.code === 0)).toHaveLength(1);
      for (const r of replies.filter((r) => r.body.code !== 0)) expectFail(r, 1004, 'group_id');
      expect(await db.query('SELECT id FROM `groups` WHERE public_id = ?', [raced])).toHaveLength(1);
      expect(
        await db.query('SELECT c.id FROM conversations c JOIN `groups` g ON g.id = c.group_id WHERE g.public_id = ?', [
          raced,
        ]),
      ).toHaveLength(1);
    });

    it('refuses unknown members with 1204 naming the user, and writes nothing', async () => {
      const [owner, a] = await api.users(2);
      const ghost = randomUserId('ghost');
      const publicId = randomGroupId();
      const response = await post(owner, '/create', { group_id: publicId, name: 'X', member_ids: [a.userId, ghost] });
      expectFail(response, 1204, ghost);
      expect(response.body.msg).toContain('member_ids');
      expect(await groupRow(publicId)).toBeUndefined();
    });

    it.each<[string, Body, string]>([
      ['name missing', {}, 'name'],
      ['name empty', { name: '' }, 'name'],
      ['name too long', { name: 'x'.repeat(81) }, 'name'],
      ['name with a control character', { name: 'a\u0007b' }, 'name'],
      ['name with edge whitespace', { name: ' a' }, 'name'],
      ['name not a string', { name: 5 }, 'name'],
      ['group_id with a space', { name: 'n', group_id: 'a b' }, 'group_id'],
      ['group_id too long', { name: 'n', group_id: 'x'.repeat(33) }, 'group_id'],
      ['group_id empty', { name: 'n', group_id: '' }, 'group_id'],
      ['avatar not a URL', { name: 'n', avatar: 'ftp://x' }, 'avatar'],
      ['avatar too long', { name: 'n', avatar: `https://x/${'a'.repeat(1015)}` }, 'avatar'],
      ['introduction too long', { name: 'n', introduction: 'x'.repeat(1001) }, 'introduction'],
      ['introduction with NUL', { name: 'n', introduction: 'a\u0000' }, 'introduction'],
      ['member_ids not an array', { name: 'n', member_ids: 'u1' }, 'member_ids'],
      ['member_ids with duplicates', { name: 'n', member_ids: ['u1', 'u1'] }, 'member_ids[1]'],
      ['member_ids with a non-string', { name: 'n', member_ids: [7] }, 'member_ids[0]'],
      ['member_ids too many', { name: 'n', member_ids: Array.from({ length: 201 }, (_, i) => `u${i}`) }, 'member_ids'],
    ])('refuses %s with 1004', async (_label, body, field) => {
      const [owner] = await api.users(1);
      expectFail(await post(owner, '/create', body), 1004, field);
    });

    it('refuses the creator among member_ids with 1004', async () => {
      const [owner] = await api.users(1);
      expectFail(await post(owner, '/create', { name: 'n', member_ids: [owner.userId] }), 1004, 'member_ids');
    });
  });

  describe('role checks of every endpoint (owner, admin, member, non-member, former member)', () => {
    type Role = 'owner' | 'admin' | 'member' | 'outsider' | 'former';
    const ROLES: Role[] = ['owner', 'admin', 'member', 'outsider', 'former'];
    interface Case {
      name: string;
      method: Method;
      path: string;
      body: (f: Fixture, fresh: IssuedUser) => Body;
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

  describe('GET /get and GET / (my groups)', () => {
    it('refuses a missing, repeated or malformed group_id with 1004', async () => {
      const [u] = await api.users(1);
      expectFail(await get(u, '/get'), 1004, 'group_id');
      expectFail(await t.http.get(`${BASE}/get?group_id=a&group_id=b`).set(...bearer(u.token)), 1004, 'group_id');
      expectFail(await get(u, '/get', { group_id: 'bad id' }), 1004, 'group_id');
    });

    it('pages my groups 50 at a time, bound to the account and endpoint', async () => {
      const [me, other] = await api.users(2);
      const created: string[] = [];
      for (let i = 0; i < 53; i += 10) {
        created.push(
          ...(await Promise.all(Array.from({ length: Math.min(10, 53 - i) }, () => factories.group(me, [other])))),
        );
      }
      const first = expectOk(await get(me, ''));
      expect((first.items as Body[]).length).toBe(50);
      expect(first.has_more).toBe(true);
      expect(first.next_cursor).toEqual(expect.any(String));
      expect((first.items as Body[])[0]).toMatchObject({ my_role: 'owner', member_count: 2, owner_user_id: me.userId });
      const second = expectOk(await get(me, '', { cursor: first.next_cursor }));
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      const all = [...(first.items as Body[]), ...(second.items as Body[])].map((g) => g.group_id);
      expect(all.sort()).toEqual([...created].sort());
      // The other member's list shows the same groups, with role member.
      const theirs = expectOk(await get(other, ''));
      expect((theirs.items as Body[])[0]).toMatchObject({ my_role: 'member' });
      // Another account, or another endpoint, cannot use the cursor.
      expectFail(await get(other, '', { cursor: first.next_cursor }), 1004, 'cursor');
      expectFail(await get(me, '/members', { group_id: created[0], cursor: first.next_cursor }), 1004, 'cursor');
      // A tampered cursor is refused.
      const cursor = first.next_cursor as string;
      const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
      expectFail(await get(me, '', { cursor: tampered }), 1004, 'cursor');
      expectFail(await get(me, '', { cursor: 'garbage' }), 1004, 'cursor');
    });

    it.each(['page', 'offset', 'limit'])('refuses %s with 1004', async (param) => {
      const [me] = await api.users(1);
      const publicId = await factories.group(me);
      expectFail(await get(me, '', { [param]: '1' }), 1004, param);
      expectFail(await get(me, '/members', { group_id: publicId, [param]: '1' }), 1004, param);
    });
  });

  describe('POST /update', () => {
    it('changes fields, bumps updated_at, emits group.updated; an unchanged update has event_id null', async () => {
      const f = await fixture();
      t.clock.advance(5);
      const data = expectOk(
        await post(f.admin, '/update', {
          group_id: f.publicId,
          name: 'New name',
          introduction: 'Intro',
          avatar: 'https://x.example/a.png',
        }),
      );
      expect(data.group).toMatchObject({
        name: 'New name',
        introduction: 'Intro',
        avatar: 'https://x.example/a.png',
        my_role: 'admin',
      });
      const group = data.group as Body;
      expect(group.updated_at as number).toBeGreaterThan(group.created_at as number);
      const updated = await event(data.event_id as string);
      expect(updated).toMatchObject({ type: 'group.updated', recipients: ids(f.owner, f.admin, f.member, f.target) });
      expect(updated.payload).toMatchObject({
        changed_fields: ['name', 'avatar', 'introduction'],
        operator_user_id: f.admin.userId,
      });

      const again = expectOk(await post(f.owner, '/update', { group_id: f.publicId, name: 'New name' }));
      expect(again.event_id).toBeNull();
      expect((again.group as Body).updated_at).toBe(group.updated_at);
      // "" selects the default avatar.
      expect(
        (expectOk(await post(f.owner, '/update', { group_id: f.publicId, avatar: '' })).group as Body).avatar,
      ).toBe(DEFAULT_AVATAR);
    });

    it('needs at least one field, and validates each', async () => {
      const f = await fixture();
      expectFail(await post(f.owner, '/update', { group_id: f.publicId }), 1004, 'name');
      expectFail(await post(f.owner, '/update', { group_id: f.publicId, name: '' }), 1004, 'name');
      expectFail(await post(f.owner, '/update', { group_id: f.publicId, avatar: 'nope' }), 1004, 'avatar');
      expectFail(await post(f.owner, '/update', { name: 'x' }), 1004, 'group_id');
    });
  });

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

  describe('disabled groups (1218)', () => {
    it('every group endpoint answers 1218 to members, 1209 to non-members; the list leaves it out', async () => {
      const f = await fixture();
      const code = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId })).code;
      await factories.disableGroup(f.publicId);
      const [fresh] = await api.users(1);
      const requests: [Method, string, Body][] = [
        ['get', '/get', { group_id: f.publicId }],
        ['get', '/members', { group_id: f.publicId }],
        ['post', '/update', { group_id: f.publicId, name: 'x' }],
        ['post', '/members/add', { group_id: f.publicId, user_ids: [fresh.userId] }],
        ['post', '/members/remove', { group_id: f.publicId, user_ids: [f.target.userId] }],
        ['post', '/leave', { group_id: f.publicId }],
        ['post', '/admins/set', { group_id: f.publicId, user_id: f.target.userId, admin: true }],
        ['post', '/transfer', { group_id: f.publicId, user_id: f.target.userId }],
        ['post', '/dismiss', { group_id: f.publicId }],
        ['post', '/members/mute', { group_id: f.publicId, user_id: f.target.userId, duration_seconds: 60 }],
        ['post', '/invitations/create', { group_id: f.publicId }],
      ];
      for (const [method, path, body] of requests) {
        for (const caller of [f.owner, f.member]) expectFail(await call(caller, method, path, body), 1218);
        for (const caller of [f.outsider, f.former]) expectFail(await call(caller, method, path, body), 1209);
      }
      expectFail(await post(fresh, '/join', { code }), 1218);
      expect((expectOk(await get(f.owner, '')).items as Body[]).map((g) => g.group_id)).not.toContain(f.publicId);
      // Nothing changed while disabled; enabling restores access.
      expect(await membership(f.publicId, f.target)).toMatchObject({ status: 'active', role: 'member' });
      await factories.disableGroup(f.publicId, false);
      expectOk(await get(f.member, '/get', { group_id: f.publicId }));
      expect((expectOk(await get(f.owner, '')).items as Body[]).map((g) => g.group_id)).toContain(f.publicId);
    });
  });

  describe('POST /dismiss', () => {
    it('closes every membership, tells everyone, and leaves only 1209 (1210 for codes)', async () => {
      const f = await fixture();
      const code = expectOk(await post(f.owner, '/invitations/create', { group_id: f.publicId })).code;
      await api.send(f.member, groupCid(f.publicId), 'hello');
      const data = expectOk(await post(f.owner, '/dismiss', { group_id: f.publicId }));
      expect(data).toEqual({ group_id: f.publicId, dismissed_at: expect.any(Number), event_id: expect.any(String) });
      const dismissed = await event(data.event_id as string);
      expect(dismissed).toMatchObject({
        type: 'group.dismissed',
        recipients: ids(f.owner, f.admin, f.member, f.target),
      });
      expect(dismissed.payload.group).toMatchObject({ dismissed: true, member_count: 0 });
      expect(Number((await groupRow(f.publicId))!.dismissed_at)).toBe(data.dismissed_at);
      for (const u of [f.owner, f.admin, f.member, f.target]) {
        expect(await membership(f.publicId, u)).toMatchObject({ status: 'removed' });
        expect(await convMember(f.publicId, u)).toEqual({ from: '0', to: '1' });
      }
      expect(await membership(f.publicId, f.former)).toMatchObject({ status: 'left' });
      for (const u of [f.owner, f.member]) {
        const r = await get(u, '/get', { group_id: f.publicId });
        expectFail(r, 1209);
        expect(r.body.msg).toContain('dismissed');
        expectFail(await post(u, '/dismiss', { group_id: f.publicId }), 1209);
        expectFail(await post(u, '/update', { group_id: f.publicId, name: 'x' }), 1209);
        expectFail(await get(u, '/members', { group_id: f.publicId }), 1209);
        expectFail(await post(u, '/leave', { group_id: f.publicId }), 1209);
        expectFail(await post(u, '/invitations/create', { group_id: f.publicId }), 1209);
      }
      expectFail(await post(f.outsider, '/join', { code }), 1210);
      expect((expectOk(await get(f.owner, '')).items as Body[]).map((g) => g.group_id)).not.toContain(f.publicId);
      // The public ID stays taken.
      expectFail(await post(f.owner, '/create', { group_id: f.publicId, name: 'again' }), 1004, 'group_id');
    });
  });

  describe('authentication and capability', () => {
    it('requires an IM token', async () => {
      const response = await t.http.get(`${BASE}/get`).query({ group_id: 'x' });
      expectFail(response, 1101);
      expectFail(await t.http.post(`${BASE}/create`).set('Authorization', 'Bearer nope').send({ name: 'x' }), 1102);
    });
  });
});

describe('Groups with the capability closed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CAPABILITIES_CLOSED: 'groups' });
  });
  afterAll(() => t.close());

  it('answers 1202 on every group endpoint', async () => {
    const api = new ApiClient(t);
    const user = await api.user();
    const endpoints: [Method, string][] = [
      ['post', '/create'],
      ['get', '/get'],
      ['get', ''],
      ['post', '/update'],
      ['get', '/members'],
      ['post', '/members/add'],
      ['post', '/members/remove'],
      ['post', '/leave'],
      ['post', '/admins/set'],
      ['post', '/transfer'],
      ['post', '/dismiss'],
      ['post', '/members/mute'],
      ['post', '/invitations/create'],
      ['post', '/join'],
    ];
    for (const [method, path] of endpoints) {
      const response =
        method === 'get'
          ? api.raw.groupGet(user, path, { group_id: 'g1' })
          : api.raw.groupPost(user, path, { group_id: 'g1', name: 'n' });
      expectFail(await response, 1202);
    }
  });
});
