// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the README's documented choices. Everything under test goes through
// HTTP; SQL is used only to read the outbox and to find a group's internal ID so that the
// operator can disable it (there is no endpoint for that).
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { GroupsRepository } from '../../src/groups/groups.repository';
import { isDeliveredTo } from '../helpers/outbox';
import { IssuedUser, TestApp, bearer, issueUser, randomUserId, startTestApp } from '../helpers/test-app';

type Body = Record<string, unknown>;

interface Group {
  group_id: string;
  conversation_id: string;
  name: string;
  avatar: string;
  introduction: string;
  owner_user_id: string;
  member_count: number;
  my_role: string;
  created_at: number;
  updated_at: number;
  dismissed: boolean;
}
interface Member {
  user: { user_id: string };
  role: string;
  joined_at: number;
  muted_until: number;
}
interface Page<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
}

const gid = (): string => `g.${randomBytes(6).toString('hex')}`;

function ok<T = Body>(response: Response): T {
  expect({ status: response.status, code: response.body?.code, body: response.body }).toMatchObject({ status: 200, code: 0 });
  expect(response.body.msg).toBe('ok');
  return response.body.data as T;
}

function fail(response: Response, code: number, field?: string): void {
  const body = response.body ?? {};
  expect({ status: response.status, code: body.code, data: body.data, msg: body.msg }).toEqual({ status: 200, code, data: null, msg: expect.any(String) });
  if (field) expect(body.msg).toContain(field);
}

describe('Groups (black box)', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp({ INVITATION_TTL_SECONDS: '3600' });
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const users = (n: number): Promise<IssuedUser[]> => Promise.all(Array.from({ length: n }, () => issueUser(t)));
  const post = (u: IssuedUser, path: string, body: Body) => t.http.post(`/app/sdk/groups${path}`).set(...bearer(u.token)).send(body);
  const get = (u: IssuedUser, path: string, query: Record<string, string> = {}) => t.http.get(`/app/sdk/groups${path}`).set(...bearer(u.token)).query(query);

  async function create(owner: IssuedUser, members: IssuedUser[] = [], extra: Body = {}): Promise<string> {
    const groupId = gid();
    ok(await post(owner, '/create', { group_id: groupId, name: `Team ${groupId}`, member_ids: members.map((m) => m.userId), ...extra }));
    return groupId;
  }
  const getGroup = async (u: IssuedUser, groupId: string): Promise<Group> => ok<{ group: Group }>(await get(u, '/get', { group_id: groupId })).group;
  async function members(u: IssuedUser, groupId: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    let cursor: string | null = null;
    do {
      const q: Record<string, string> = { group_id: groupId };
      if (cursor) q.cursor = cursor;
      const page: Page<Member> = ok<Page<Member>>(await get(u, '/members', q));
      for (const m of page.items) {
        expect(out[m.user.user_id]).toBeUndefined(); // no duplicates across pages
        out[m.user.user_id] = m.role;
      }
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return out;
  }
  const myGroupIds = async (u: IssuedUser): Promise<string[]> => ok<Page<Group>>(await get(u, '')).items.map((g) => g.group_id);
  async function expectEvent(eventId: unknown, type: string): Promise<void> {
    expect(typeof eventId).toBe('string');
    const rows: { type: string }[] = await db.query('SELECT type FROM outbox_events WHERE event_id = ?', [eventId]);
    expect(rows.map((r) => r.type)).toEqual([type]);
  }
  async function setDisabled(groupId: string, disabled: boolean): Promise<void> {
    const rows: { id: string | number }[] = await db.query('SELECT id FROM `groups` WHERE public_id = ?', [groupId]);
    await t.app.get(GroupsRepository).setDisabled(String(rows[0].id), disabled, t.clock.now());
  }
  /** owner, admin, two members, an outsider. */
  async function fixture() {
    const [owner, admin, member, target, outsider] = await users(5);
    const groupId = await create(owner, [admin, member, target]);
    ok(await post(owner, '/admins/set', { group_id: groupId, user_id: admin.userId, admin: true }));
    return { groupId, owner, admin, member, target, outsider };
  }

  describe('create', () => {
    it('creates with a chosen group_id: owner, members, conversation, group.created', async () => {
      const [owner, a, b] = await users(3);
      const groupId = gid();
      const data = ok<{ group: Group; event_id: string }>(await post(owner, '/create', { group_id: groupId, name: 'Hikers', introduction: 'line 1\nline 2', member_ids: [a.userId, b.userId] }));
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
      await expectEvent(data.event_id, 'group.created');
      expect(await members(owner, groupId)).toEqual({ [owner.userId]: 'owner', [a.userId]: 'member', [b.userId]: 'member' });
      expect((await getGroup(a, groupId)).my_role).toBe('member');
      expect(await myGroupIds(a)).toEqual([groupId]);
      // The group conversation exists and a member can send into it.
      ok(await t.http.post('/app/sdk/messages/send').set(...bearer(a.token)).send({ conversation_id: `group_${groupId}`, client_message_id: 'c1', type: 'text', content: { text: 'hi' } }));
    });

    it.each([
      ['one character', () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[randomBytes(1)[0] % 62]],
      ['32 characters', () => randomBytes(16).toString('hex')],
      ['all allowed punctuation', () => `._-${randomBytes(4).toString('hex')}`],
      ['dots only plus suffix', () => `...${randomBytes(2).toString('hex')}`],
      ['mixed case', () => `A.b_C-${randomBytes(4).toString('hex')}`],
    ])('accepts a group_id with %s', async (_label, make) => {
      const [owner] = await users(1);
      let chosen = make();
      // A one-character ID may be taken by an earlier run on MariaDB: pick a free one.
      for (let i = 0; i < 20 && (await db.query('SELECT id FROM `groups` WHERE public_id = ?', [chosen])).length > 0; i += 1) chosen = make();
      expect(chosen).toMatch(/^[A-Za-z0-9._-]{1,32}$/);
      const data = ok<{ group: Group }>(await post(owner, '/create', { group_id: chosen, name: 'n' }));
      expect(data.group.group_id).toBe(chosen);
      expect(data.group.conversation_id).toBe(`group_${chosen}`);
      expect((await getGroup(owner, chosen)).group_id).toBe(chosen);
    });

    it('generates a valid unique group_id when absent', async () => {
      const [owner] = await users(1);
      const ids = new Set<string>();
      for (let i = 0; i < 5; i += 1) {
        const data = ok<{ group: Group }>(await post(owner, '/create', { name: `gen ${i}` }));
        expect(data.group.group_id).toMatch(/^[A-Za-z0-9._-]{1,32}$/);
        expect(data.group.conversation_id).toBe(`group_${data.group.group_id}`);
        ids.add(data.group.group_id);
      }
      expect(ids.size).toBe(5);
      expect((await myGroupIds(owner)).sort()).toEqual([...ids].sort());
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
      const [owner] = await users(1);
      fail(await post(owner, '/create', { group_id: value, name: 'n' }), 1004, 'group_id');
      expect(await myGroupIds(owner)).toEqual([]);
    });

    it('refuses a taken group_id with 1004 naming group_id; the original group is unchanged', async () => {
      const [a, b] = await users(2);
      const groupId = await create(a, [], { name: 'Original' });
      fail(await post(b, '/create', { group_id: groupId, name: 'Thief' }), 1004, 'group_id');
      expect(await myGroupIds(b)).toEqual([]);
      expect((await getGroup(a, groupId)).name).toBe('Original');
      fail(await get(b, '/get', { group_id: groupId }), 1209);
    });

    it('group_ids are case-sensitive (binary compare on both drivers)', async () => {
      const [a, b] = await users(2);
      const base = `Cs${randomBytes(4).toString('hex')}`;
      ok(await post(a, '/create', { group_id: base, name: 'upper' }));
      const lower = ok<{ group: Group }>(await post(b, '/create', { group_id: base.toLowerCase(), name: 'lower' }));
      expect(lower.group.group_id).toBe(base.toLowerCase());
      expect((await getGroup(a, base)).name).toBe('upper');
      expect((await getGroup(b, base.toLowerCase())).name).toBe('lower');
    });

    it('two creates of one group_id at once: one wins, the other is 1004, no 500', async () => {
      const [a, b] = await users(2);
      const groupId = gid();
      const replies = await Promise.all([post(a, '/create', { group_id: groupId, name: 'A' }), post(b, '/create', { group_id: groupId, name: 'B' })]);
      for (const r of replies) expect(r.status).toBe(200);
      expect(replies.map((r) => r.body.code).sort()).toEqual([0, 1004]);
    });

    it.each([
      ['name missing', { }, 'name'],
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
      const [owner, m] = await users(2);
      const body = JSON.parse(JSON.stringify(raw).replace(/DUP/g, m.userId)) as Body;
      const groupId = gid();
      fail(await post(owner, '/create', { group_id: groupId, ...body }), 1004, field);
      expect(await myGroupIds(owner)).toEqual([]);
      expect(await myGroupIds(m)).toEqual([]);
      fail(await get(owner, '/get', { group_id: groupId }), 1209);
    });

    it('an unknown member is 1204 and creates nothing', async () => {
      const [owner, m] = await users(2);
      const groupId = gid();
      fail(await post(owner, '/create', { group_id: groupId, name: 'n', member_ids: [m.userId, randomUserId('ghost')] }), 1204);
      expect(await myGroupIds(owner)).toEqual([]);
      expect(await myGroupIds(m)).toEqual([]);
      // The ID stays free.
      ok(await post(owner, '/create', { group_id: groupId, name: 'n' }));
    });
  });

  describe('get, update and list', () => {
    it('get answers a member with their role; a non-member and an unknown group both get 1209', async () => {
      const f = await fixture();
      expect((await getGroup(f.owner, f.groupId)).my_role).toBe('owner');
      expect((await getGroup(f.admin, f.groupId)).my_role).toBe('admin');
      const g = await getGroup(f.member, f.groupId);
      expect(g).toMatchObject({ my_role: 'member', member_count: 4, owner_user_id: f.owner.userId });
      fail(await get(f.outsider, '/get', { group_id: f.groupId }), 1209);
      fail(await get(f.outsider, '/get', { group_id: gid() }), 1209);
      fail(await get(f.outsider, '/get', {}), 1004, 'group_id');
      fail(await get(f.outsider, '/get', { group_id: 'a b' }), 1004, 'group_id');
      fail(await get(f.outsider, '/members', { group_id: f.groupId }), 1209);
    });

    it('owner and admin update; a member gets 1209; events; a no-op is event_id null; bad fields 1004', async () => {
      const f = await fixture();
      const byAdmin = ok<{ group: Group; event_id: string }>(await post(f.admin, '/update', { group_id: f.groupId, name: 'Renamed', introduction: 'hello' }));
      expect(byAdmin.group).toMatchObject({ name: 'Renamed', introduction: 'hello' });
      await expectEvent(byAdmin.event_id, 'group.updated');
      const byOwner = ok<{ group: Group; event_id: string }>(await post(f.owner, '/update', { group_id: f.groupId, avatar: 'https://cdn.example/a.png' }));
      expect(byOwner.group.avatar).toBe('https://cdn.example/a.png');
      expect(byOwner.group.name).toBe('Renamed');
      const noop = ok<{ group: Group; event_id: string | null }>(await post(f.owner, '/update', { group_id: f.groupId, name: 'Renamed' }));
      expect(noop.event_id).toBeNull();
      fail(await post(f.member, '/update', { group_id: f.groupId, name: 'Mine' }), 1209);
      fail(await post(f.outsider, '/update', { group_id: f.groupId, name: 'Mine' }), 1209);
      fail(await post(f.owner, '/update', { group_id: f.groupId, name: '' }), 1004, 'name');
      fail(await post(f.owner, '/update', { group_id: f.groupId, name: 'x'.repeat(81) }), 1004, 'name');
      fail(await post(f.owner, '/update', { group_id: f.groupId, avatar: 'javascript:alert(1)' }), 1004, 'avatar');
      fail(await post(f.owner, '/update', { group_id: f.groupId, introduction: 7 }), 1004, 'introduction');
      const r = await post(f.owner, '/update', { group_id: f.groupId });
      expect(r.status).toBe(200);
      if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
      else expect(r.body.code).toBe(1004);
      expect(await getGroup(f.member, f.groupId)).toMatchObject({ name: 'Renamed', introduction: 'hello', avatar: 'https://cdn.example/a.png' });
    });

    it('my groups and members page by 50 with cursors bound to account, endpoint and filters', async () => {
      const [owner, other] = await users(2);
      const extra = await users(54);
      const ids: string[] = [];
      for (let i = 0; i < 52; i += 1) ids.push(gid());
      for (let i = 0; i < ids.length; i += 8) await Promise.all(ids.slice(i, i + 8).map((g) => post(owner, '/create', { group_id: g, name: g }).then((r) => ok(r))));
      const first = ok<Page<Group>>(await get(owner, ''));
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      const second = ok<Page<Group>>(await get(owner, '', { cursor: first.next_cursor! }));
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...first.items, ...second.items].map((g) => g.group_id))).toEqual(new Set(ids));
      expect(first.items.length + second.items.length).toBe(52);
      fail(await get(other, '', { cursor: first.next_cursor! }), 1004, 'cursor');
      fail(await get(owner, '/members', { group_id: ids[0], cursor: first.next_cursor! }), 1004, 'cursor');
      fail(await t.http.get('/app/sdk/friends').set(...bearer(owner.token)).query({ cursor: first.next_cursor! }), 1004, 'cursor');

      // The home list's cursor and the group list's cursor are not interchangeable.
      const sync = ok<{ conversations: Page<unknown> }>(await t.http.post('/app/sdk/sync').set(...bearer(owner.token)).send({}));
      expect(sync.conversations.has_more).toBe(true);
      fail(await get(owner, '', { cursor: sync.conversations.next_cursor! }), 1004, 'cursor');
      fail(await t.http.post('/app/sdk/sync').set(...bearer(owner.token)).send({ cursor: first.next_cursor }), 1004, 'cursor');
      // Members: one group of 55 (owner + 54), another of 55.
      ok(await post(owner, '/members/add', { group_id: ids[0], user_ids: extra.map((u) => u.userId) }));
      ok(await post(owner, '/members/add', { group_id: ids[1], user_ids: extra.map((u) => u.userId) }));
      const m1 = ok<Page<Member>>(await get(owner, '/members', { group_id: ids[0] }));
      expect(m1.items).toHaveLength(50);
      expect(m1.has_more).toBe(true);
      const m2 = ok<Page<Member>>(await get(owner, '/members', { group_id: ids[0], cursor: m1.next_cursor! }));
      expect(m2.items).toHaveLength(5);
      expect(m2).toMatchObject({ has_more: false, next_cursor: null });
      expect(new Set([...m1.items, ...m2.items].map((m) => m.user.user_id)).size).toBe(55);
      fail(await get(owner, '/members', { group_id: ids[1], cursor: m1.next_cursor! }), 1004, 'cursor');
      fail(await get(extra[0], '/members', { group_id: ids[0], cursor: m1.next_cursor! }), 1004, 'cursor');
      fail(await get(owner, '', { cursor: m1.next_cursor! }), 1004, 'cursor');
      const [payload, sig] = m1.next_cursor!.split('.');
      fail(await get(owner, '/members', { group_id: ids[0], cursor: `${payload}x.${sig}` }), 1004, 'cursor');
      fail(await get(owner, '/members', { group_id: ids[0], cursor: `${payload}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}` }), 1004, 'cursor');
    });

    it.each([
      ['/members', true],
      ['', false],
    ])('GET /app/sdk/groups%s refuses page, offset and limit with 1004 naming them', async (path, needsGroup) => {
      const [owner] = await users(1);
      const groupId = await create(owner);
      for (const field of ['page', 'offset', 'limit']) {
        const q: Record<string, string> = { [field]: '1' };
        if (needsGroup) q.group_id = groupId;
        fail(await get(owner, path, q), 1004, field);
      }
    });
  });

  describe('membership', () => {
    it('owner and admin add members; a member gets 1209; current members are skipped; unknown users 1204', async () => {
      const f = await fixture();
      const [x, y, z] = await users(3);
      const added = ok<{ added: string[]; event_id: string }>(await post(f.admin, '/members/add', { group_id: f.groupId, user_ids: [x.userId, f.member.userId] }));
      expect(added.added).toEqual([x.userId]);
      await expectEvent(added.event_id, 'group.members_added');
      const again = ok<{ added: string[]; event_id: string | null }>(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [x.userId] }));
      expect(again).toEqual({ added: [], event_id: null });
      fail(await post(f.member, '/members/add', { group_id: f.groupId, user_ids: [y.userId] }), 1209);
      fail(await post(f.outsider, '/members/add', { group_id: f.groupId, user_ids: [y.userId] }), 1209);
      fail(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [z.userId, randomUserId('ghost')] }), 1204);
      fail(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [] }), 1004, 'user_ids');
      fail(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [z.userId, z.userId] }), 1004, 'user_ids');
      fail(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: z.userId }), 1004, 'user_ids');
      const all = await members(f.owner, f.groupId);
      expect(all[x.userId]).toBe('member');
      expect(all[y.userId]).toBeUndefined();
      expect(all[z.userId]).toBeUndefined();
      expect((await getGroup(f.owner, f.groupId)).member_count).toBe(5);
    });

    it('remove: admin removes members but not admins or the owner; a batch is all or nothing', async () => {
      const f = await fixture();
      const [admin2] = await users(1);
      ok(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [admin2.userId] }));
      ok(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: admin2.userId, admin: true }));
      fail(await post(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId, admin2.userId] }), 1209);
      fail(await post(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.owner.userId] }), 1209);
      fail(await post(f.member, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }), 1209);
      expect(Object.keys(await members(f.owner, f.groupId))).toHaveLength(5);
      const removed = ok<{ removed: string[]; event_id: string }>(await post(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }));
      expect(removed.removed).toEqual([f.target.userId]);
      await expectEvent(removed.event_id, 'group.members_removed');
      expect(ok<{ removed: string[]; event_id: string | null }>(await post(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] }))).toEqual({ removed: [], event_id: null });
      fail(await get(f.target, '/get', { group_id: f.groupId }), 1209);
      expect(await myGroupIds(f.target)).toEqual([]);
      fail(await t.http.post('/app/sdk/messages/send').set(...bearer(f.target.token)).send({ conversation_id: `group_${f.groupId}`, client_message_id: 'c1', type: 'text', content: { text: 'x' } }), 1203);
      // The owner may remove an admin.
      ok(await post(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [admin2.userId] }));
      // Added again: a plain member.
      ok(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [admin2.userId] }));
      expect((await members(f.owner, f.groupId))[admin2.userId]).toBe('member');
    });

    it('leave: members leave; the owner must transfer first (1209)', async () => {
      const f = await fixture();
      const left = ok<{ group_id: string; event_id: string }>(await post(f.member, '/leave', { group_id: f.groupId }));
      expect(left.group_id).toBe(f.groupId);
      await expectEvent(left.event_id, 'group.member_left');
      expect((await members(f.owner, f.groupId))[f.member.userId]).toBeUndefined();
      fail(await post(f.member, '/leave', { group_id: f.groupId }), 1209);
      fail(await post(f.owner, '/leave', { group_id: f.groupId }), 1209);
      expect((await members(f.owner, f.groupId))[f.owner.userId]).toBe('owner');
      fail(await post(f.outsider, '/leave', { group_id: f.groupId }), 1209);
      ok(await post(f.admin, '/leave', { group_id: f.groupId }));
      expect(await members(f.owner, f.groupId)).toEqual({ [f.owner.userId]: 'owner', [f.target.userId]: 'member' });
    });

    it('concurrent adds of the same users converge on one membership each', async () => {
      const [owner, x, y] = await users(3);
      const groupId = await create(owner);
      const replies = await Promise.all(Array.from({ length: 5 }, () => post(owner, '/members/add', { group_id: groupId, user_ids: [x.userId, y.userId] })));
      for (const r of replies) ok(r);
      const addedCounts = replies.map((r) => (r.body.data.added as string[]).length);
      expect(addedCounts.reduce((s, n) => s + n, 0)).toBe(2);
      expect(await members(owner, groupId)).toEqual({ [owner.userId]: 'owner', [x.userId]: 'member', [y.userId]: 'member' });
      expect((await getGroup(x, groupId)).member_count).toBe(3);
    });
  });

  describe('roles', () => {
    it('only the owner sets admins; admin is a JSON boolean; a repeat is event_id null', async () => {
      const f = await fixture();
      fail(await post(f.admin, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true }), 1209);
      fail(await post(f.member, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true }), 1209);
      for (const bad of ['true', 1, null]) fail(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: bad }), 1004, 'admin');
      fail(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: 7, admin: true }), 1004, 'user_id');
      expect((await members(f.owner, f.groupId))[f.member.userId]).toBe('member');
      const set = ok<{ user_id: string; role: string; event_id: string }>(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true }));
      expect(set).toMatchObject({ user_id: f.member.userId, role: 'admin' });
      await expectEvent(set.event_id, 'group.admin_changed');
      expect(ok<{ event_id: string | null }>(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true })).event_id).toBeNull();
      expect((await getGroup(f.member, f.groupId)).my_role).toBe('admin');
      const unset = ok<{ role: string; event_id: string }>(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: false }));
      expect(unset.role).toBe('member');
      fail(await post(f.member, '/update', { group_id: f.groupId, name: 'x' }), 1209);
      // A non-member cannot be made admin.
      const r = await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.outsider.userId, admin: true });
      expect(r.status).toBe(200);
      expect(r.body.code).not.toBe(0);
      fail(await get(f.outsider, '/get', { group_id: f.groupId }), 1209);
    });

    it('transfer: owner only; the old owner becomes admin; the new owner may dismiss', async () => {
      const f = await fixture();
      fail(await post(f.admin, '/transfer', { group_id: f.groupId, user_id: f.admin.userId }), 1209);
      fail(await post(f.member, '/transfer', { group_id: f.groupId, user_id: f.member.userId }), 1209);
      const r = await post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.outsider.userId });
      expect(r.status).toBe(200);
      expect(r.body.code).not.toBe(0);
      const data = ok<{ group: Group; event_id: string }>(await post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }));
      await expectEvent(data.event_id, 'group.owner_transferred');
      expect(data.group.owner_user_id).toBe(f.member.userId);
      const roles = await members(f.member, f.groupId);
      expect(roles[f.member.userId]).toBe('owner');
      expect(roles[f.owner.userId]).toBe('admin');
      expect(Object.values(roles).filter((x) => x === 'owner')).toHaveLength(1);
      expect((await getGroup(f.owner, f.groupId)).owner_user_id).toBe(f.member.userId);
      fail(await post(f.owner, '/dismiss', { group_id: f.groupId }), 1209);
      ok(await post(f.owner, '/leave', { group_id: f.groupId }));
      ok(await post(f.member, '/dismiss', { group_id: f.groupId }));
    });

    it('dismiss: owner only; afterwards every operation is 1209, codes 1210, and lists drop it', async () => {
      const f = await fixture();
      const { code } = ok<{ code: string }>(await post(f.admin, '/invitations/create', { group_id: f.groupId }));
      fail(await post(f.admin, '/dismiss', { group_id: f.groupId }), 1209);
      fail(await post(f.member, '/dismiss', { group_id: f.groupId }), 1209);
      const data = ok<{ group_id: string; dismissed_at: number; event_id: string }>(await post(f.owner, '/dismiss', { group_id: f.groupId }));
      expect(data.group_id).toBe(f.groupId);
      await expectEvent(data.event_id, 'group.dismissed');
      for (const u of [f.owner, f.admin, f.member]) {
        fail(await get(u, '/get', { group_id: f.groupId }), 1209);
        fail(await get(u, '/members', { group_id: f.groupId }), 1209);
        expect(await myGroupIds(u)).toEqual([]);
      }
      fail(await post(f.owner, '/update', { group_id: f.groupId, name: 'z' }), 1209);
      fail(await post(f.owner, '/dismiss', { group_id: f.groupId }), 1209);
      fail(await post(f.outsider, '/join', { code }), 1210);
      // The public ID of a dismissed group is not handed out again.
      fail(await post(f.outsider, '/create', { group_id: f.groupId, name: 'reuse' }), 1004, 'group_id');
    });
  });

  describe('invitations', () => {
    it('owner/admin create a 24-character code; joining makes a plain member with an event; repeats converge', async () => {
      const f = await fixture();
      const [joiner] = await users(1);
      fail(await post(f.member, '/invitations/create', { group_id: f.groupId }), 1209);
      fail(await post(f.outsider, '/invitations/create', { group_id: f.groupId }), 1209);
      const inv = ok<{ code: string; group_id: string; expires_at: number; event_id: string }>(await post(f.admin, '/invitations/create', { group_id: f.groupId, ttl_seconds: 600 }));
      expect(inv.code).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(inv.group_id).toBe(f.groupId);
      expect(Math.abs(inv.expires_at - (t.clock.now() + 600_000))).toBeLessThan(5000);
      await expectEvent(inv.event_id, 'group.invitation_created');
      const joined = ok<Body>(await post(joiner, '/join', { code: inv.code }));
      expect(typeof joined.event_id).toBe('string');
      await expectEvent(joined.event_id, 'group.member_joined');
      expect((await getGroup(joiner, f.groupId)).my_role).toBe('member');
      expect(await myGroupIds(joiner)).toEqual([f.groupId]);
      // Joining again changes nothing.
      const again = await post(joiner, '/join', { code: inv.code });
      expect(again.status).toBe(200);
      if (again.body.code === 0) expect(again.body.data.event_id).toBeNull();
      const roles = await members(f.owner, f.groupId);
      expect(Object.keys(roles)).toHaveLength(5);
      // An existing admin joining by code keeps the role.
      const byAdmin = await post(f.admin, '/join', { code: inv.code });
      expect(byAdmin.status).toBe(200);
      expect((await members(f.owner, f.groupId))[f.admin.userId]).toBe('admin');
    });

    it('unknown, malformed and expired codes are 1210 / 1004 and change nothing', async () => {
      const f = await fixture();
      const [joiner] = await users(1);
      fail(await post(joiner, '/join', { code: 'AAAAAAAAAAAAAAAAAAAAAAAA' }), 1210);
      fail(await post(joiner, '/join', { code: '' }), 1004, 'code');
      fail(await post(joiner, '/join', { code: 12 }), 1004, 'code');
      fail(await post(joiner, '/join', { code: 'abc def' }), 1004, 'code');
      fail(await post(joiner, '/join', {}), 1004, 'code');
      const inv = ok<{ code: string; expires_at: number }>(await post(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: 60 }));
      t.clock.advance(61_000);
      try {
        fail(await post(joiner, '/join', { code: inv.code }), 1210);
      } finally {
        t.clock.advance(-61_000);
      }
      expect(await myGroupIds(joiner)).toEqual([]);
      expect(Object.keys(await members(f.owner, f.groupId))).toHaveLength(4);
    });

    it('ttl_seconds: default and maximum INVITATION_TTL_SECONDS; outside 60..max or not an integer is 1004', async () => {
      const f = await fixture();
      const def = ok<{ expires_at: number }>(await post(f.owner, '/invitations/create', { group_id: f.groupId }));
      expect(Math.abs(def.expires_at - (t.clock.now() + 3_600_000))).toBeLessThan(5000);
      for (const bad of [59, 3601, 0, -5, 60.5, '600', true]) fail(await post(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: bad }), 1004, 'ttl_seconds');
      ok(await post(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: 60 }));
      ok(await post(f.owner, '/invitations/create', { group_id: f.groupId, ttl_seconds: 3600 }));
    });

    it('a code whose creator is no longer owner or admin is 1210', async () => {
      const f = await fixture();
      const [joiner] = await users(1);
      const inv = ok<{ code: string }>(await post(f.admin, '/invitations/create', { group_id: f.groupId }));
      ok(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.admin.userId, admin: false }));
      fail(await post(joiner, '/join', { code: inv.code }), 1210);
      expect(await myGroupIds(joiner)).toEqual([]);
    });

    it('a removed member may come back by invitation as a plain member', async () => {
      const f = await fixture();
      ok(await post(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.admin.userId] }));
      const inv = ok<{ code: string }>(await post(f.owner, '/invitations/create', { group_id: f.groupId }));
      ok(await post(f.admin, '/join', { code: inv.code }));
      expect((await getGroup(f.admin, f.groupId)).my_role).toBe('member');
    });

    it('two joins by one user at once converge on one membership without 500s', async () => {
      for (let round = 0; round < 4; round += 1) {
        const [owner, joiner, other] = await users(3);
        const groupId = await create(owner);
        const inv = ok<{ code: string }>(await post(owner, '/invitations/create', { group_id: groupId }));
        const replies = await Promise.all([post(joiner, '/join', { code: inv.code }), post(joiner, '/join', { code: inv.code }), post(other, '/join', { code: inv.code })]);
        for (const r of replies) ok(r);
        const eventIds = replies.slice(0, 2).map((r) => r.body.data.event_id as string | null);
        expect(eventIds.filter((e) => e !== null)).toHaveLength(1);
        expect(await members(owner, groupId)).toEqual({ [owner.userId]: 'owner', [joiner.userId]: 'member', [other.userId]: 'member' });
        expect((await getGroup(joiner, groupId)).member_count).toBe(3);
      }
    });
  });

  describe('edge cases', () => {
    it('create with the caller in member_ids keeps one owner membership', async () => {
      const [owner, m] = await users(2);
      const groupId = gid();
      const r = await post(owner, '/create', { group_id: groupId, name: 'n', member_ids: [owner.userId, m.userId] });
      expect(r.status).toBe(200);
      if (r.body.code === 0) {
        expect(r.body.data.group.member_count).toBe(2);
        expect(await members(owner, groupId)).toEqual({ [owner.userId]: 'owner', [m.userId]: 'member' });
      } else {
        expect(r.body.code).toBe(1004);
        expect(r.body.msg).toContain('member_ids');
        expect(await myGroupIds(owner)).toEqual([]);
      }
    });

    it('create ignores unknown fields such as owner_user_id and my_role', async () => {
      const [owner, other] = await users(2);
      const groupId = gid();
      const data = ok<{ group: Group }>(await post(owner, '/create', { group_id: groupId, name: 'n', owner_user_id: other.userId, my_role: 'member', member_count: 99 }));
      expect(data.group).toMatchObject({ owner_user_id: owner.userId, my_role: 'owner', member_count: 1 });
      fail(await get(other, '/get', { group_id: groupId }), 1209);
    });

    it('a disabled user: add and create treat them alike (README leaves this open; profile answers 1204)', async () => {
      const [owner, m] = await users(2);
      ok(await t.http.post('/app/sdk/users/status').set('Authorization', 'Bearer test-sdk-secret-0123456789abcdef-0123456789').send({ user_id: m.userId, disabled: true }));
      const groupId = await create(owner);
      const add = await post(owner, '/members/add', { group_id: groupId, user_ids: [m.userId] });
      const make = await post(owner, '/create', { name: 'n', member_ids: [m.userId] });
      expect([add.status, make.status]).toEqual([200, 200]);
      expect(add.body.code === 0).toBe(make.body.code === 0);
      if (add.body.code !== 0) expect(add.body.code).toBe(1204);
    });

    it('a batch add with one malformed ID is 1004 naming user_ids and adds no one', async () => {
      const [owner, m] = await users(2);
      const groupId = await create(owner);
      fail(await post(owner, '/members/add', { group_id: groupId, user_ids: [m.userId, ''] }), 1004, 'user_ids');
      fail(await post(owner, '/members/add', { group_id: groupId, user_ids: [m.userId, 'x'.repeat(65)] }), 1004, 'user_ids');
      expect(Object.keys(await members(owner, groupId))).toEqual([owner.userId]);
    });

    it('the owner cannot be demoted or made admin through admins/set, nor remove themself', async () => {
      const f = await fixture();
      for (const admin of [false, true]) {
        const r = await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.owner.userId, admin });
        expect(r.status).toBe(200);
        if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
        expect((await members(f.owner, f.groupId))[f.owner.userId]).toBe('owner');
      }
      const rm = await post(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.owner.userId] });
      expect(rm.status).toBe(200);
      expect(rm.body.code).not.toBe(0);
      expect((await members(f.admin, f.groupId))[f.owner.userId]).toBe('owner');
      const tr = await post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.owner.userId });
      expect(tr.status).toBe(200);
      if (tr.body.code === 0) expect(tr.body.data.event_id).toBeNull();
      expect((await members(f.admin, f.groupId))[f.owner.userId]).toBe('owner');
      expect((await getGroup(f.member, f.groupId)).owner_user_id).toBe(f.owner.userId);
    });

    it('an admin cannot remove themself through members/remove as a way around roles? (admins may leave)', async () => {
      const f = await fixture();
      const r = await post(f.admin, '/members/remove', { group_id: f.groupId, user_ids: [f.admin.userId] });
      expect(r.status).toBe(200);
      // An admin may not remove admins: themself included, or it is a leave. Either way no 500 and a consistent state.
      const roles = await members(f.owner, f.groupId);
      if (r.body.code === 0) expect(roles[f.admin.userId]).toBeUndefined();
      else expect(roles[f.admin.userId]).toBe('admin');
    });

    it('mute: owner/admin only; the muted member cannot send (1203); bad duration 1004', async () => {
      const f = await fixture();
      fail(await post(f.member, '/members/mute', { group_id: f.groupId, user_id: f.target.userId, duration_seconds: 60 }), 1209);
      for (const bad of [-1, 30 * 24 * 3600 + 1, '60', 1.5]) fail(await post(f.admin, '/members/mute', { group_id: f.groupId, user_id: f.target.userId, duration_seconds: bad }), 1004, 'duration_seconds');
      const muted = ok<{ user_id: string; muted_until: number; event_id: string }>(await post(f.admin, '/members/mute', { group_id: f.groupId, user_id: f.target.userId, duration_seconds: 600 }));
      expect(muted.muted_until).toBeGreaterThan(t.clock.now());
      await expectEvent(muted.event_id, 'group.member_muted');
      const send = (text: string) => t.http.post('/app/sdk/messages/send').set(...bearer(f.target.token)).send({ conversation_id: `group_${f.groupId}`, client_message_id: `c-${randomBytes(4).toString('hex')}`, type: 'text', content: { text } });
      fail(await send('x'), 1203);
      const r = await post(f.admin, '/members/mute', { group_id: f.groupId, user_id: f.owner.userId, duration_seconds: 600 });
      expect(r.body.code).toBe(1209);
      ok(await post(f.admin, '/members/mute', { group_id: f.groupId, user_id: f.target.userId, duration_seconds: 0 }));
      ok(await send('y'));
    });

    it('an update with one bad field changes nothing (also not the valid fields)', async () => {
      const f = await fixture();
      const before = await getGroup(f.owner, f.groupId);
      fail(await post(f.owner, '/update', { group_id: f.groupId, name: 'Valid new name', avatar: 'not a url' }), 1004, 'avatar');
      fail(await post(f.owner, '/update', { group_id: f.groupId, introduction: 'ok', name: ' bad' }), 1004, 'name');
      expect(await getGroup(f.owner, f.groupId)).toEqual(before);
    });

    it('an empty cursor and a 33-character group_id are 1004 naming the field', async () => {
      const [owner] = await users(1);
      const groupId = await create(owner);
      fail(await get(owner, '', { cursor: '' }), 1004, 'cursor');
      fail(await get(owner, '/members', { group_id: groupId, cursor: '' }), 1004, 'cursor');
      fail(await get(owner, '/members', { group_id: 'x'.repeat(33) }), 1004, 'group_id');
      fail(await get(owner, '/members', {}), 1004, 'group_id');
    });

    it('a code whose creator left the group is 1210', async () => {
      const f = await fixture();
      const [joiner] = await users(1);
      const inv = ok<{ code: string }>(await post(f.admin, '/invitations/create', { group_id: f.groupId }));
      ok(await post(f.admin, '/leave', { group_id: f.groupId }));
      fail(await post(joiner, '/join', { code: inv.code }), 1210);
      expect(await myGroupIds(joiner)).toEqual([]);
    });

    it('a code of the old owner stays valid after a transfer (the old owner becomes admin)', async () => {
      const f = await fixture();
      const [joiner] = await users(1);
      const inv = ok<{ code: string }>(await post(f.owner, '/invitations/create', { group_id: f.groupId }));
      ok(await post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }));
      ok(await post(joiner, '/join', { code: inv.code }));
      expect(await myGroupIds(joiner)).toEqual([f.groupId]);
    });

    it('two transfers at once to different members leave exactly one owner', async () => {
      for (let round = 0; round < 3; round += 1) {
        const f = await fixture();
        const replies = await Promise.all([
          post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }),
          post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.target.userId }),
        ]);
        for (const r of replies) expect(r.status).toBe(200);
        expect(replies.filter((r) => r.body.code === 0)).toHaveLength(1);
        const roles = await members(f.admin, f.groupId);
        expect(Object.values(roles).filter((x) => x === 'owner')).toHaveLength(1);
        expect(roles[f.owner.userId]).toBe('admin');
      }
    });

    it('leave and remove of one member at once: one succeeds, one membership change, no 500', async () => {
      for (let round = 0; round < 3; round += 1) {
        const f = await fixture();
        const [leave, remove] = await Promise.all([post(f.target, '/leave', { group_id: f.groupId }), post(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.target.userId] })]);
        expect([leave.status, remove.status]).toEqual([200, 200]);
        const changed = (leave.body.code === 0 ? 1 : 0) + (remove.body.code === 0 && (remove.body.data.removed as string[]).length === 1 ? 1 : 0);
        expect(changed).toBe(1);
        expect((await members(f.owner, f.groupId))[f.target.userId]).toBeUndefined();
        expect((await getGroup(f.owner, f.groupId)).member_count).toBe(3);
      }
    });

    it('dismiss and add at once: no one ends up in a dismissed group', async () => {
      const f = await fixture();
      const [x] = await users(1);
      const [dis, add] = await Promise.all([post(f.owner, '/dismiss', { group_id: f.groupId }), post(f.admin, '/members/add', { group_id: f.groupId, user_ids: [x.userId] })]);
      ok(dis);
      expect(add.status).toBe(200);
      expect(await myGroupIds(x)).toEqual([]);
      fail(await get(x, '/get', { group_id: f.groupId }), 1209);
    });

    it('member_count follows adds, leaves, removals and joins', async () => {
      const f = await fixture();
      const [x, y] = await users(2);
      ok(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [x.userId] }));
      expect((await getGroup(f.owner, f.groupId)).member_count).toBe(5);
      ok(await post(f.member, '/leave', { group_id: f.groupId }));
      expect((await getGroup(f.owner, f.groupId)).member_count).toBe(4);
      const { code } = ok<{ code: string }>(await post(f.owner, '/invitations/create', { group_id: f.groupId }));
      ok(await post(y, '/join', { code }));
      ok(await post(f.member, '/join', { code }));
      const g = await getGroup(f.owner, f.groupId);
      expect(g.member_count).toBe(6);
      expect(Object.keys(await members(f.owner, f.groupId))).toHaveLength(6);
      const mine = ok<Page<Group>>(await get(y, '')).items.find((i) => i.group_id === f.groupId);
      expect(mine).toMatchObject({ member_count: 6, my_role: 'member' });
    });

    it('members/removed events reach the removed member; group.created reaches every initial member', async () => {
      const [owner, a, b, stranger] = await users(4);
      const groupId = gid();
      const created = ok<{ event_id: string }>(await post(owner, '/create', { group_id: groupId, name: 'n', member_ids: [a.userId, b.userId] }));
      const pos = async (eventId: string) => ((await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId])) as { id: string | number }[])[0].id;
      const p1 = await pos(created.event_id);
      for (const u of [owner, a, b]) expect(await isDeliveredTo(t, p1, u.id)).toBe(true);
      expect(await isDeliveredTo(t, p1, stranger.id)).toBe(false);
      const removed = ok<{ event_id: string }>(await post(owner, '/members/remove', { group_id: groupId, user_ids: [b.userId] }));
      expect(await isDeliveredTo(t, await pos(removed.event_id), b.id)).toBe(true);
      expect(await isDeliveredTo(t, await pos(removed.event_id), a.id)).toBe(true);
    });
  });

  describe('disabled group (1218)', () => {
    it('members get 1218 on every operation; non-members 1209; nothing changes', async () => {
      const f = await fixture();
      const inv = ok<{ code: string }>(await post(f.owner, '/invitations/create', { group_id: f.groupId }));
      await setDisabled(f.groupId, true);
      try {
        fail(await get(f.member, '/get', { group_id: f.groupId }), 1218);
        fail(await get(f.owner, '/members', { group_id: f.groupId }), 1218);
        fail(await post(f.owner, '/update', { group_id: f.groupId, name: 'x' }), 1218);
        fail(await post(f.owner, '/members/add', { group_id: f.groupId, user_ids: [f.outsider.userId] }), 1218);
        fail(await post(f.owner, '/members/remove', { group_id: f.groupId, user_ids: [f.member.userId] }), 1218);
        fail(await post(f.member, '/leave', { group_id: f.groupId }), 1218);
        fail(await post(f.owner, '/admins/set', { group_id: f.groupId, user_id: f.member.userId, admin: true }), 1218);
        fail(await post(f.owner, '/transfer', { group_id: f.groupId, user_id: f.member.userId }), 1218);
        fail(await post(f.owner, '/dismiss', { group_id: f.groupId }), 1218);
        fail(await post(f.admin, '/invitations/create', { group_id: f.groupId }), 1218);
        fail(await post(f.outsider, '/join', { code: inv.code }), 1218);
        fail(await get(f.outsider, '/get', { group_id: f.groupId }), 1209);
        fail(
          await t.http.post('/app/sdk/messages/send').set(...bearer(f.member.token)).send({ conversation_id: `group_${f.groupId}`, client_message_id: 'c-dis', type: 'text', content: { text: 'x' } }),
          1218,
        );
      } finally {
        await setDisabled(f.groupId, false);
      }
      const g = await getGroup(f.member, f.groupId);
      expect(g).toMatchObject({ member_count: 4, owner_user_id: f.owner.userId, name: `Team ${f.groupId}` });
      expect(await members(f.owner, f.groupId)).toEqual({ [f.owner.userId]: 'owner', [f.admin.userId]: 'admin', [f.member.userId]: 'member', [f.target.userId]: 'member' });
    });
  });

  describe('capability closed', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ CAPABILITIES_CLOSED: 'groups' });
    });
    afterAll(() => closed.close());

    it('group endpoints answer 1202', async () => {
      const u = await issueUser(closed);
      fail(await closed.http.post('/app/sdk/groups/create').set(...bearer(u.token)).send({ name: 'x' }), 1202);
      fail(await closed.http.get('/app/sdk/groups').set(...bearer(u.token)), 1202);
      fail(await closed.http.get('/app/sdk/groups/get').set(...bearer(u.token)).query({ group_id: 'abc' }), 1202);
      fail(await closed.http.post('/app/sdk/groups/join').set(...bearer(u.token)).send({ code: 'AAAAAAAAAAAAAAAAAAAAAAAA' }), 1202);
    });
  });
});
