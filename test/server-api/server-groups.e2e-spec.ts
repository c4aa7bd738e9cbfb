// The server API's groups and friendships (issue 23): the host acts as the group's owner, with
// the owner's events reaching the members' sockets; every write idempotent by request_id (a
// repeat, a concurrent repeat, a reused key), audited with the host as actor; bad input names
// the field and changes nothing.
import type {
  AcceptFriendRequestReply,
  EventReply,
  GroupChangeReply,
  GroupDismissReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
} from '../../src/contract';
import { adminSession } from '../helpers/admin-client';
import { ApiClient } from '../helpers/api-client';
import { RtClient, connect, listen } from '../helpers/realtime';
import { TestApp, hostAuth, okData, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';

jest.setTimeout(120_000);

type Envelope = { code: number; msg: string; data: unknown };
const rid = (): string => `r-${randomUserId('x')}`;

describe('server API: groups and friends', () => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  const sockets: RtClient[] = [];

  const post = async (path: string, body: object): Promise<Envelope> =>
    (
      await t.http
        .post(`/app/server${path}`)
        .set(...hostAuth())
        .send(body)
    ).body as Envelope;
  const ok = async <T>(path: string, body: object): Promise<T> =>
    okData<T>(
      await t.http
        .post(`/app/server${path}`)
        .set(...hostAuth())
        .send(body),
    );
  const socketOf = async (user: { token: string }): Promise<RtClient> => {
    const client = await connect(url, { auth: { token: user.token } });
    sockets.push(client);
    return client;
  };
  const refused = async (path: string, body: object, code: number, field: string): Promise<void> => {
    const reply = await post(path, body);
    expect({ path, field, code: reply.code }).toEqual({ path, field, code });
    expect(reply.msg).toContain(field);
  };

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    url = await listen(t);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
  });

  it('refuses a missing secret with 1001', async () => {
    const reply = await t.http.post('/app/server/groups/create').send({ request_id: rid(), owner_id: 'x', name: 'x' });
    expect(reply.body.code).toBe(1001);
  });

  it('creates a group, updates it, adds and removes members, sets roles and dismisses it, with the events', async () => {
    const [owner, bob, carol, dave] = await api.users(4);
    const bobSocket = await socketOf(bob);
    const groupId = randomGroupId();
    const create = {
      request_id: rid(),
      owner_id: owner.userId,
      group_id: groupId,
      name: 'Team',
      member_ids: [bob.userId],
    };
    const created = await ok<GroupChangeReply>('/groups/create', create);
    expect(created.group).toMatchObject({
      group_id: groupId,
      name: 'Team',
      owner_user_id: owner.userId,
      member_count: 2,
    });
    const createdEvent = await bobSocket.waitForEvent(created.event_id as string);
    expect(createdEvent.type).toBe('group.created');
    expect(createdEvent.data.operator_user_id).toBe(owner.userId);
    expect(await ok<GroupChangeReply>('/groups/create', create)).toEqual(created);

    const updated = await ok<GroupChangeReply>('/groups/update', {
      request_id: rid(),
      group_id: groupId,
      name: 'Team 2',
    });
    expect(updated.group.name).toBe('Team 2');
    expect((await bobSocket.waitForEvent(updated.event_id as string)).type).toBe('group.updated');

    const added = await ok<MembersAddedReply>('/groups/members/add', {
      request_id: rid(),
      group_id: groupId,
      user_ids: [carol.userId, dave.userId, bob.userId],
    });
    expect(added.added).toEqual([carol.userId, dave.userId]);
    expect((await bobSocket.waitForEvent(added.event_id as string)).type).toBe('group.members_added');

    const role = await ok<MemberRoleReply>('/groups/members/role', {
      request_id: rid(),
      group_id: groupId,
      user_id: carol.userId,
      role: 'admin',
    });
    expect(role).toMatchObject({ user_id: carol.userId, role: 'admin' });
    expect((await bobSocket.waitForEvent(role.event_id as string)).type).toBe('group.admin_changed');
    expect(await api.groupRoles(owner, groupId)).toMatchObject({ [carol.userId]: 'admin' });

    const removed = await ok<MembersRemovedReply>('/groups/members/remove', {
      request_id: rid(),
      group_id: groupId,
      user_ids: [dave.userId],
    });
    expect(removed.removed).toEqual([dave.userId]);
    expect((await bobSocket.waitForEvent(removed.event_id as string)).type).toBe('group.members_removed');

    const dismiss = { request_id: rid(), group_id: groupId };
    const dismissed = await ok<GroupDismissReply>('/groups/dismiss', dismiss);
    expect(dismissed.group_id).toBe(groupId);
    expect((await bobSocket.waitForEvent(dismissed.event_id)).type).toBe('group.dismissed');
    expect(await ok<GroupDismissReply>('/groups/dismiss', dismiss)).toEqual(dismissed);
    expect((await post('/groups/dismiss', { request_id: rid(), group_id: groupId })).code).toBe(1209);

    const admin = await adminSession(t, 'owner');
    const audit = okData<{ items: Array<{ action: string; actor_kind: string; after: Record<string, unknown> }> }>(
      await admin.get('/app/admin/audit', { admin: '(host)', target_id: groupId }),
    );
    expect(audit.items.map((i) => i.action).sort()).toEqual(
      [
        'server.group.created',
        'server.group.updated',
        'server.group.members_added',
        'server.group.role_set',
        'server.group.members_removed',
        'server.group.dismissed',
      ].sort(),
    );
    expect(audit.items.every((i) => i.actor_kind === 'host')).toBe(true);
    expect(audit.items.find((i) => i.action === 'server.group.created')?.after).toMatchObject({
      request_id: create.request_id,
      event_id: created.event_id,
    });
  });

  it('two identical creates at once make one group with the same reply', async () => {
    const [owner, bob] = await api.users(2);
    const body = { request_id: rid(), owner_id: owner.userId, name: 'Once', member_ids: [bob.userId] };
    const replies = await Promise.all(Array.from({ length: 5 }, () => post('/groups/create', body)));
    for (const r of replies) expect(r).toEqual(replies[0]);
    expect(replies[0].code).toBe(0);
    expect(await api.myGroupIds(bob)).toEqual([(replies[0].data as GroupChangeReply).group.group_id]);
    // The same key with another body: 1004, no second group.
    await refused('/groups/create', { ...body, name: 'Other' }, 1004, 'request_id');
    expect(await api.myGroupIds(bob)).toHaveLength(1);
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const [owner, bob, carol] = await api.users(3);
    const groupId = await api.createGroup(owner, [bob]);
    await refused('/groups/create', { request_id: rid(), owner_id: randomUserId(), name: 'x' }, 1004, 'owner_id');
    await refused('/groups/create', { request_id: rid(), owner_id: owner.userId }, 1004, 'name');
    await refused('/groups/create', { request_id: rid(), owner_id: owner.userId, name: ' x' }, 1004, 'name');
    await refused(
      '/groups/create',
      { request_id: rid(), owner_id: owner.userId, name: 'x', member_ids: [owner.userId] },
      1004,
      'member_ids',
    );
    await refused(
      '/groups/create',
      { request_id: rid(), owner_id: owner.userId, name: 'x', member_ids: [randomUserId()] },
      1004,
      'member_ids',
    );
    await refused(
      '/groups/create',
      { request_id: rid(), owner_id: owner.userId, group_id: groupId, name: 'x' },
      1004,
      'group_id',
    );
    await refused('/groups/update', { request_id: rid(), group_id: groupId }, 1004, 'name');
    await refused('/groups/update', { request_id: rid(), group_id: randomGroupId(), name: 'x' }, 1209, 'group_id');
    await refused(
      '/groups/members/add',
      { request_id: rid(), group_id: groupId, user_ids: [carol.userId, randomUserId()] },
      1004,
      'user_ids',
    );
    await refused('/groups/members/add', { request_id: rid(), group_id: groupId, user_ids: [] }, 1004, 'user_ids');
    await refused(
      '/groups/members/remove',
      { request_id: rid(), group_id: groupId, user_ids: [owner.userId] },
      1209,
      'user_ids',
    );
    await refused(
      '/groups/members/role',
      { request_id: rid(), group_id: groupId, user_id: bob.userId, role: 'owner' },
      1004,
      'role',
    );
    await refused(
      '/groups/members/role',
      { request_id: rid(), group_id: groupId, user_id: carol.userId, role: 'admin' },
      1209,
      'user_id',
    );
    await refused('/groups/dismiss', { request_id: rid(), group_id: ['x'] }, 1004, 'group_id');
    const group = await api.group(owner, groupId);
    expect(group).toMatchObject({ name: `G ${groupId}`, member_count: 2 });
    expect(await api.groupRoles(owner, groupId)).toEqual({ [owner.userId]: 'owner', [bob.userId]: 'member' });
  });

  it('makes two users friends without a request and ends it, with the events; bad pairs are refused', async () => {
    const [alice, bob, carol] = await api.users(3);
    const bobSocket = await socketOf(bob);
    const body = { request_id: rid(), user_id: alice.userId, friend_id: bob.userId };
    const replies = await Promise.all([post('/friends/add', body), post('/friends/add', body)]);
    expect(replies[1]).toEqual(replies[0]);
    const added = replies[0].data as AcceptFriendRequestReply;
    expect(added.friend.user.user_id).toBe(bob.userId);
    expect((await bobSocket.waitForEvent(added.event_id)).type).toBe('friend.added');
    expect((await api.friends(bob)).items.map((f) => f.user.user_id)).toEqual([alice.userId]);

    await refused(
      '/friends/add',
      { request_id: rid(), user_id: alice.userId, friend_id: bob.userId },
      1206,
      'friend_id',
    );
    await refused(
      '/friends/add',
      { request_id: rid(), user_id: alice.userId, friend_id: alice.userId },
      1004,
      'friend_id',
    );
    await refused(
      '/friends/add',
      { request_id: rid(), user_id: alice.userId, friend_id: randomUserId() },
      1004,
      'friend_id',
    );
    await api.block(carol, alice);
    await refused(
      '/friends/add',
      { request_id: rid(), user_id: alice.userId, friend_id: carol.userId },
      1211,
      'friend_id',
    );

    const end = { request_id: rid(), user_id: alice.userId, friend_id: bob.userId };
    const deleted = await ok<EventReply>('/friends/delete', end);
    const event = await bobSocket.waitForEvent(deleted.event_id as string);
    expect(event.type).toBe('friend.deleted');
    expect(event.data.by).toBe(alice.userId);
    expect(await ok<EventReply>('/friends/delete', end)).toEqual(deleted);
    expect((await api.friends(bob)).items).toEqual([]);
    await refused(
      '/friends/delete',
      { request_id: rid(), user_id: alice.userId, friend_id: bob.userId },
      1204,
      'friend_id',
    );

    const admin = await adminSession(t, 'owner');
    const audit = okData<{ items: Array<{ action: string; after: Record<string, unknown> }> }>(
      await admin.get('/app/admin/audit', { admin: '(host)', target_id: alice.userId }),
    );
    expect(audit.items.map((i) => i.action)).toEqual(['server.friends.deleted', 'server.friends.added']);
  });
});
