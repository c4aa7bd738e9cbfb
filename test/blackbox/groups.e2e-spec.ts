// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from '../helpers/outbox';
import { TestApp, bearer, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, Group, GroupMember as Member, IssuedUser, Page } from '../helpers/api-client';
import { expectEventType, expectFail, expectOk } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

const gid = (): string => `g.${randomBytes(6).toString('hex')}`;

describe('Groups (black box)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp({ INVITATION_TTL_SECONDS: '3600' });
    db = t.app.get(DataSource);
    api = new ApiClient(t);
    factories = new Factories(t, api);
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

  describe('create', () => {
    it('creates with a chosen group_id: owner, members, conversation, group.created', async () => {
      const [owner, a, b] = await api.users(3);
      const groupId = gid();
      const data = expectOk<{ group: Group; event_id: string }>(
        await api.raw.groupPost(owner, '/create', {
          group_id: groupId,
          name: 'Hikers',
          introduction: 'line 1\nline 2',
          member_ids: [a.userId, b.userId],
        }),
      );
      expect(data.group).toMatchObject({
        group_id: groupId,
        conversation_id: `group_${groupId}`,
        name: 'Hikers',
        introduction: 'line 1\nline 2',
        owner_user_id: owner.userId,
        member_count: 3,
        my_role: 'owner',
        dismissed: false,
      });
      await expectEventType(t, data.event_id, 'group.created');
      expect(await api.groupRoles(owner, groupId)).toEqual({
        [owner.userId]: 'owner',
        [a.userId]: 'member',
        [b.userId]: 'member',
      });
      expect((await api.group(a, groupId)).my_role).toBe('member');
      expect(await api.myGroupIds(a)).toEqual([groupId]);
      // The group conversation exists and a member can send into it.
      expectOk(
        await api.raw.send(a, {
          conversation_id: `group_${groupId}`,
          client_message_id: 'c1',
          type: 'text',
          content: { text: 'hi' },
        }),
      );
    });

    it.each([
      ['one character', () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[randomBytes(1)[0] % 62]],
      ['32 characters', () => randomBytes(16).toString('hex')],
      ['all allowed punctuation', () => `._-${randomBytes(4).toString('hex')}`],
      ['dots only plus suffix', () => `...${randomBytes(2).toString('hex')}`],
      ['mixed case', () => `A.b_C-${randomBytes(4).toString('hex')}`],
    ])('accepts a group_id with %s', async (_label, make) => {
      const [owner] = await api.users(1);
      let chosen = make();
      // A one-character ID may be taken by an earlier run on MariaDB: pick a free one.
      for (
        let i = 0;
        i < 20 && (await db.query('SELECT id FROM `groups` WHERE public_id = ?', [chosen])).length > 0;
        i += 1
      )
        chosen = make();
      expect(chosen).toMatch(/^[A-Za-z0-9._-]{1,32}$/);
      const data = expectOk<{ group: Group }>(
        await api.raw.groupPost(owner, '/create', { group_id: chosen, name: 'n' }),
      );
      expect(data.group.group_id).toBe(chosen);
      expect(data.group.conversation_id).toBe(`group_${chosen}`);
      expect((await api.group(owner, chosen)).group_id).toBe(chosen);
    });

    it('generates a valid unique group_id when absent', async () => {
      const [owner] = await api.users(1);
      const ids = new Set<string>();
      for (let i = 0; i < 5; i += 1) {
        const data = expectOk<{ group: Group }>(await api.raw.groupPost(owner, '/create', { name: `gen ${i}` }));
        expect(data.group.group_id).toMatch(/^[A-Za-z0-9._-]{1,32}$/);
        expect(data.group.conversation_id).toBe(`group_${data.group.group_id}`);
        ids.add(data.group.group_id);
      }
      expect(ids.size).toBe(5);
      expect((await api.myGroupIds(owner)).sort()).toEqual([...ids].sort());
    });

    it.each([
      ['empty', ''],
      ['33 characters', 'x'.repeat(33)],
      ['a space', 'a b'],
      ['a slash', 'a/b'],
      ['a non-ASCII letter', 'grüße'],
      ['a colon', 'a:b'],
      ['a plus', 'a+b'],
      ['a number', 12345],
      ['an array', ['ab']],
    ])('refuses a group_id with %s (1004 naming group_id) and creates nothing', async (_label, value) => {
      const [owner] = await api.users(1);
      expectFail(await api.raw.groupPost(owner, '/create', { group_id: value, name: 'n' }), 1004, 'group_id');
      expect(await api.myGroupIds(owner)).toEqual([]);
    });

    it('refuses a taken group_id with 1004 naming group_id; the original group is unchanged', async () => {
      const [a, b] = await api.users(2);
      const groupId = await create(a, [], { name: 'Original' });
      expectFail(await api.raw.groupPost(b, '/create', { group_id: groupId, name: 'Thief' }), 1004, 'group_id');
      expect(await api.myGroupIds(b)).toEqual([]);
      expect((await api.group(a, groupId)).name).toBe('Original');
      expectFail(await api.raw.groupGet(b, '/get', { group_id: groupId }), 1209);
    });

    it('group_ids are case-sensitive (binary compare on both drivers)', async () => {
      const [a, b] = await api.users(2);
      const base = `Cs${randomBytes(4).toString('hex')}`;
      expectOk(await api.raw.groupPost(a, '/create', { group_id: base, name: 'upper' }));
      const lower = expectOk<{ group: Group }>(
        await api.raw.groupPost(b, '/create', { group_id: base.toLowerCase(), name: 'lower' }),
      );
      expect(lower.group.group_id).toBe(base.toLowerCase());
      expect((await api.group(a, base)).name).toBe('upper');
      expect((await api.group(b, base.toLowerCase())).name).toBe('lower');
    });

    it('two creates of one group_id at once: one wins, the other is 1004, no 500', async () => {
      const [a, b] = await api.users(2);
      const groupId = gid();
      const replies = await Promise.all([
        api.raw.groupPost(a, '/create', { group_id: groupId, name: 'A' }),
        api.raw.groupPost(b, '/create', { group_id: groupId, name: 'B' }),
      ]);
      for (const r of replies) expect(r.status).toBe(200);
      expect(replies.map((r) => r.body.code).sort()).toEqual([0, 1004]);
    });

    it.each([
      ['name missing', {}, 'name'],
      ['name empty', { name: '' }, 'name'],
      ['name 81 characters', { name: 'n'.repeat(81) }, 'name'],
      ['name with an edge space', { name: ' team' }, 'name'],
      ['name with a control char', { name: 'a\u0001b' }, 'name'],
      ['name a number', { name: 5 }, 'name'],
      ['avatar not http(s)', { name: 'n', avatar: 'ftp://x/a.png' }, 'avatar'],
      ['introduction 1001 characters', { name: 'n', introduction: 'i'.repeat(1001) }, 'introduction'],
      ['member_ids not an array', { name: 'n', member_ids: 'u_1' }, 'member_ids'],
      ['member_ids with a number', { name: 'n', member_ids: [1] }, 'member_ids'],
      ['member_ids with a duplicate', { name: 'n', member_ids: ['DUP', 'DUP'] }, 'member_ids'],
    ])('refuses %s with 1004 naming the field and creates nothing', async (_label, raw, field) => {
      const [owner, m] = await api.users(2);
      const body = JSON.parse(JSON.stringify(raw).replace(/DUP/g, m.userId)) as Body;
      const groupId = gid();
      expectFail(await api.raw.groupPost(owner, '/create', { group_id: groupId, ...body }), 1004, field);
      expect(await api.myGroupIds(owner)).toEqual([]);
      expect(await api.myGroupIds(m)).toEqual([]);
      expectFail(await api.raw.groupGet(owner, '/get', { group_id: groupId }), 1209);
    });

    it('an unknown member is 1204 and creates nothing', async () => {
      const [owner, m] = await api.users(2);
      const groupId = gid();
      expectFail(
        await api.raw.groupPost(owner, '/create', {
          group_id: groupId,
          name: 'n',
          member_ids: [m.userId, randomUserId('ghost')],
        }),
        1204,
      );
      expect(await api.myGroupIds(owner)).toEqual([]);
      expect(await api.myGroupIds(m)).toEqual([]);
      // The ID stays free.
      expectOk(await api.raw.groupPost(owner, '/create', { group_id: groupId, name: 'n' }));
    });
  });

  describe('get, update and list', () => {
    it('get answers a member with their role; a non-member and an unknown group both get 1209', async () => {
      const f = await fixture();
      expect((await api.group(f.owner, f.groupId)).my_role).toBe('owner');
      expect((await api.group(f.admin, f.groupId)).my_role).toBe('admin');
      const g = await api.group(f.member, f.groupId);
      expect(g).toMatchObject({ my_role: 'member', member_count: 4, owner_user_id: f.owner.userId });
      expectFail(await api.raw.groupGet(f.outsider, '/get', { group_id: f.groupId }), 1209);
      expectFail(await api.raw.groupGet(f.outsider, '/get', { group_id: gid() }), 1209);
      expectFail(await api.raw.groupGet(f.outsider, '/get', {}), 1004, 'group_id');
      expectFail(await api.raw.groupGet(f.outsider, '/get', { group_id: 'a b' }), 1004, 'group_id');
      expectFail(await api.raw.groupGet(f.outsider, '/members', { group_id: f.groupId }), 1209);
    });

    it('owner and admin update; a member gets 1209; events; a no-op is event_id null; bad fields 1004', async () => {
      const f = await fixture();
      const byAdmin = expectOk<{ group: Group; event_id: string }>(
        await api.raw.groupPost(f.admin, '/update', { group_id: f.groupId, name: 'Renamed', introduction: 'hello' }),
      );
      expect(byAdmin.group).toMatchObject({ name: 'Renamed', introduction: 'hello' });
      await expectEventType(t, byAdmin.event_id, 'group.updated');
      const byOwner = expectOk<{ group: Group; event_id: string }>(
        await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, avatar: 'https://cdn.example/a.png' }),
      );
      expect(byOwner.group.avatar).toBe('https://cdn.example/a.png');
      expect(byOwner.group.name).toBe('Renamed');
      const noop = expectOk<{ group: Group; event_id: string | null }>(
        await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, name: 'Renamed' }),
      );
      expect(noop.event_id).toBeNull();
      expectFail(await api.raw.groupPost(f.member, '/update', { group_id: f.groupId, name: 'Mine' }), 1209);
      expectFail(await api.raw.groupPost(f.outsider, '/update', { group_id: f.groupId, name: 'Mine' }), 1209);
      expectFail(await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, name: '' }), 1004, 'name');
      expectFail(
        await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, name: 'x'.repeat(81) }),
        1004,
        'name',
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, avatar: 'javascript:alert(1)' }),
        1004,
        'avatar',
      );
      expectFail(
        await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, introduction: 7 }),
        1004,
        'introduction',
      );
      const r = await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId });
      expect(r.status).toBe(200);
      if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
      else expect(r.body.code).toBe(1004);
      expect(await api.group(f.member, f.groupId)).toMatchObject({
        name: 'Renamed',
        introduction: 'hello',
        avatar: 'https://cdn.example/a.png',
      });
    });

    it('my groups and members page by 50 with cursors bound to account, endpoint and filters', async () => {
      const [owner, other] = await api.users(2);
      const extra = await api.users(54);
      const ids: string[] = [];
      for (let i = 0; i < 52; i += 1) ids.push(gid());
      for (let i = 0; i < ids.length; i += 8)
        await Promise.all(
          ids
            .slice(i, i + 8)
            .map((g) => api.raw.groupPost(owner, '/create', { group_id: g, name: g }).then((r) => expectOk(r))),
        );
      const first = expectOk<Page<Group>>(await api.raw.groupGet(owner, ''));
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      const second = expectOk<Page<Group>>(await api.raw.groupGet(owner, '', { cursor: first.next_cursor! }));
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...first.items, ...second.items].map((g) => g.group_id))).toEqual(new Set(ids));
      expect(first.items.length + second.items.length).toBe(52);
      expectFail(await api.raw.groupGet(other, '', { cursor: first.next_cursor! }), 1004, 'cursor');
      expectFail(
        await api.raw.groupGet(owner, '/members', { group_id: ids[0], cursor: first.next_cursor! }),
        1004,
        'cursor',
      );
      expectFail(await api.raw.friends(owner, { cursor: first.next_cursor! }), 1004, 'cursor');

      // The home list's cursor and the group list's cursor are not interchangeable.
      const sync = expectOk<{ conversations: Page<unknown> }>(await api.raw.sync(owner, {}));
      expect(sync.conversations.has_more).toBe(true);
      expectFail(await api.raw.groupGet(owner, '', { cursor: sync.conversations.next_cursor! }), 1004, 'cursor');
      expectFail(await api.raw.sync(owner, { cursor: first.next_cursor }), 1004, 'cursor');
      // Members: one group of 55 (owner + 54), another of 55.
      expectOk(
        await api.raw.groupPost(owner, '/members/add', { group_id: ids[0], user_ids: extra.map((u) => u.userId) }),
      );
      expectOk(
        await api.raw.groupPost(owner, '/members/add', { group_id: ids[1], user_ids: extra.map((u) => u.userId) }),
      );
      const m1 = expectOk<Page<Member>>(await api.raw.groupGet(owner, '/members', { group_id: ids[0] }));
      expect(m1.items).toHaveLength(50);
      expect(m1.has_more).toBe(true);
      const m2 = expectOk<Page<Member>>(
        await api.raw.groupGet(owner, '/members', { group_id: ids[0], cursor: m1.next_cursor! }),
      );
      expect(m2.items).toHaveLength(5);
      expect(m2).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...m1.items, ...m2.items].map((m) => m.user.user_id)).size).toBe(55);
      expectFail(
        await api.raw.groupGet(owner, '/members', { group_id: ids[1], cursor: m1.next_cursor! }),
        1004,
        'cursor',
      );
      expectFail(
        await api.raw.groupGet(extra[0], '/members', { group_id: ids[0], cursor: m1.next_cursor! }),
        1004,
        'cursor',
      );
      expectFail(await api.raw.groupGet(owner, '', { cursor: m1.next_cursor! }), 1004, 'cursor');
      const [payload, sig] = m1.next_cursor!.split('.');
      expectFail(
        await api.raw.groupGet(owner, '/members', { group_id: ids[0], cursor: `${payload}x.${sig}` }),
        1004,
        'cursor',
      );
      expectFail(
        await api.raw.groupGet(owner, '/members', {
          group_id: ids[0],
          cursor: `${payload}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`,
        }),
        1004,
        'cursor',
      );
    });

    it.each([
      ['/members', true],
      ['', false],
    ])('GET /app/sdk/groups%s refuses page, offset and limit with 1004 naming them', async (path, needsGroup) => {
      const [owner] = await api.users(1);
      const groupId = await create(owner);
      for (const field of ['page', 'offset', 'limit']) {
        const q: Record<string, string> = { [field]: '1' };
        if (needsGroup) q.group_id = groupId;
        expectFail(await api.raw.groupGet(owner, path, q), 1004, field);
      }
    });
  });

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

  describe('disabled group (1218)', () => {
    it('members get 1218 on every operation; non-members 1209; nothing changes', async () => {
      const f = await fixture();
      const inv = expectOk<{ code: string }>(
        await api.raw.groupPost(f.owner, '/invitations/create', { group_id: f.groupId }),
      );
      await factories.disableGroup(f.groupId, true);
      try {
        expectFail(await api.raw.groupGet(f.member, '/get', { group_id: f.groupId }), 1218);
        expectFail(await api.raw.groupGet(f.owner, '/members', { group_id: f.groupId }), 1218);
        expectFail(await api.raw.groupPost(f.owner, '/update', { group_id: f.groupId, name: 'x' }), 1218);
        expectFail(
          await api.raw.groupPost(f.owner, '/members/add', { group_id: f.groupId, user_ids: [f.outsider.userId] }),
          1218,
        );
        expectFail(
          await api.raw.groupPost(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.member.userId] }),
          1218,
        );
        expectFail(await api.raw.groupPost(f.member, '/leave', { group_id: f.groupId }), 1218);
        expectFail(
          await api.raw.groupPost(f.owner, '/admins/set', {
            group_id: f.groupId,
            user_id: f.member.userId,
            admin: true,
          }),
          1218,
        );
        expectFail(
          await api.raw.groupPost(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }),
          1218,
        );
        expectFail(await api.raw.groupPost(f.owner, '/dismiss', { group_id: f.groupId }), 1218);
        expectFail(await api.raw.groupPost(f.admin, '/invitations/create', { group_id: f.groupId }), 1218);
        expectFail(await api.raw.groupPost(f.outsider, '/join', { code: inv.code }), 1218);
        expectFail(await api.raw.groupGet(f.outsider, '/get', { group_id: f.groupId }), 1209);
        expectFail(
          await api.raw.send(f.member, {
            conversation_id: `group_${f.groupId}`,
            client_message_id: 'c-dis',
            type: 'text',
            content: { text: 'x' },
          }),
          1218,
        );
      } finally {
        await factories.disableGroup(f.groupId, false);
      }
      const g = await api.group(f.member, f.groupId);
      expect(g).toMatchObject({ member_count: 4, owner_user_id: f.owner.userId, name: `Team ${f.groupId}` });
      expect(await api.groupRoles(f.owner, f.groupId)).toEqual({
        [f.owner.userId]: 'owner',
        [f.admin.userId]: 'admin',
        [f.member.userId]: 'member',
        [f.target.userId]: 'member',
      });
    });
  });

  describe('capability closed', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ CAPABILITIES_CLOSED: 'groups' });
    });
    afterAll(() => closed.close());

    it('group endpoints answer 1202', async () => {
      const u = await new ApiClient(closed).user();
      expectFail(
        await closed.http
          .post('/app/sdk/groups/create')
          .set(...bearer(u.token))
          .send({ name: 'x' }),
        1202,
      );
      expectFail(await closed.http.get('/app/sdk/groups').set(...bearer(u.token)), 1202);
      expectFail(
        await closed.http
          .get('/app/sdk/groups/get')
          .set(...bearer(u.token))
          .query({ group_id: 'abc' }),
        1202,
      );
      expectFail(
        await closed.http
          .post('/app/sdk/groups/join')
          .set(...bearer(u.token))
          .send({ code: 'AAAAAAAAAAAAAAAAAAAAAAAA' }),
        1202,
      );
    });
  });
});
