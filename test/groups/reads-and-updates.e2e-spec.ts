// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, Group, GroupMember as Member, Page } from '../helpers/api-client';
import { expectFail, expectOk, recipientIds, storedEvent, expectEventType } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { randomBytes } from 'node:crypto';

const BASE = '/app/sdk/groups';
const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';

const gid = (): string => `g.${randomBytes(6).toString('hex')}`;

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
  const post = (user: IssuedUser, path: string, body: Body = {}) => api.raw.groupPost(user, path, body);
  const get = (user: IssuedUser, path: string, query: Body = {}) => api.raw.groupGet(user, path, query);
  /** The event with its type, payload and the sorted internal IDs of its recipients (group events carry no private part). */
  const event = async (eventId: unknown) => {
    const e = await storedEvent(t, eventId);
    expect([...e.recipients.values()].every((p) => p === null)).toBe(true);
    return { type: e.type, payload: e.payload, recipients: recipientIds(e) };
  };
  const ids = (...list: IssuedUser[]): string[] => list.map((u) => u.id).sort();

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
});
