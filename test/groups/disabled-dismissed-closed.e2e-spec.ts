// e2e tests of the group endpoints (/app/sdk/groups/*): life cycle, every role check, disabled
// and dismissed groups, invitations, idempotency, races, paging and cursors, capability, and
// the side effects on conversation_members and the outbox.
// Black-box tests of groups, written from the issue (Groups, Directory lists, outbox), the spec
// (2.1, 2.2, 4, 6, 7, 8) and the documented choices (docs/api.md). Everything under test goes through
// HTTP; SQL is used only to read the outbox and to see whether a group ID is taken; the operator's
// disabling of a group (there is no endpoint for that) goes through the repository.
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, groupCid } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { gid, groupFixture, GroupFixture, storedGroupRows } from './group-kit';

type Method = 'get' | 'post';

const BASE = '/app/sdk/groups';

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

  const { groupRow, membership, convMember, event, ids } = storedGroupRows(() => t);

  const fixture = (): Promise<GroupFixture> => groupFixture(api, factories);

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

describe('Groups (black box)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp({ INVITATION_TTL_SECONDS: '3600' });
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
});
