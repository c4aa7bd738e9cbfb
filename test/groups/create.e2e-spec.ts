// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { DataSource } from 'typeorm';
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, Group } from '../helpers/api-client';
import { expectFail, expectOk, expectEventType } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { randomBytes } from 'node:crypto';
import { DEFAULT_AVATAR, gid, storedGroupRows } from './group-kit';

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

  const { groupRow, membership, convMember, event, ids } = storedGroupRows(() => t);

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
});

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
});
