// client.groups against the service: a group's whole life through the SDK (create, read, list,
// update, members, roles, mute, invitations, transfer, leave, dismiss), the replies' fields, and
// refusals as typed errors. The spec names 1209 (group operation forbidden) and 1210
// (invitation invalid) and leaves the group endpoints' shapes unstated (4.6).
import { randomGroupId } from '../helpers/test-app';
import { useSdkApp } from './sdk-harness';
import { REFUSED, refusal, sdkUser } from './api-kit';

describe('Web SDK: client.groups', () => {
  const app = useSdkApp();

  it('creates a group with members, reads, lists and updates it, and lists its members', async () => {
    const [owner, bob, carol] = [await sdkUser(app), await sdkUser(app), await sdkUser(app)];
    const groupId = randomGroupId();
    const created = await owner.c.groups.create({
      group_id: groupId,
      name: 'Hikers',
      introduction: 'Weekends',
      member_ids: [bob.userId, carol.userId],
    });
    expect(created).toEqual({
      group: {
        group_id: groupId,
        conversation_id: `group_${groupId}`,
        name: 'Hikers',
        avatar: expect.stringMatching(/^https?:\/\//),
        introduction: 'Weekends',
        owner_user_id: owner.userId,
        member_count: 3,
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
        dismissed: false,
        my_role: 'owner',
      },
      event_id: expect.any(String),
    });
    // Without a group_id the service makes one.
    const generated = await bob.c.groups.create({ name: 'Solo' });
    expect(generated.group).toMatchObject({
      group_id: expect.stringMatching(/^[A-Za-z0-9._-]{1,32}$/),
      member_count: 1,
    });

    expect(await bob.c.groups.get(groupId)).toEqual({ group: { ...created.group, my_role: 'member' } });
    const mine = await bob.c.groups.list();
    expect(mine.items.map((g) => g.group_id).sort()).toEqual([groupId, generated.group.group_id].sort());
    expect({ has_more: mine.has_more, next_cursor: mine.next_cursor }).toEqual({ has_more: false, next_cursor: null });

    const updated = await owner.c.groups.update(groupId, { name: 'Hikers 2', introduction: '' });
    expect(updated).toEqual({
      group: { ...created.group, name: 'Hikers 2', introduction: '', updated_at: expect.any(Number) },
      event_id: expect.any(String),
    });
    expect(await owner.c.groups.update(groupId, { name: 'Hikers 2' })).toMatchObject({ event_id: null });

    const members = await carol.c.groups.members(groupId);
    expect(members.has_more).toBe(false);
    expect(Object.fromEntries(members.items.map((m) => [m.user.user_id, m.role]))).toEqual({
      [owner.userId]: 'owner',
      [bob.userId]: 'member',
      [carol.userId]: 'member',
    });
    expect(members.items[0]).toEqual({
      user: expect.objectContaining({ user_id: expect.any(String) }),
      role: expect.any(String),
      joined_at: expect.any(Number),
      muted_until: 0,
    });
    // A plain member may not update (1209).
    expect(await refusal(carol.c.groups.update(groupId, { name: 'Mine' }))).toEqual(REFUSED(1209));
  });

  it('adds and removes members, sets an admin, mutes and unmutes, and invites with a code', async () => {
    const [owner, bob, carol, dave] = [await sdkUser(app), await sdkUser(app), await sdkUser(app), await sdkUser(app)];
    const groupId = (await owner.c.groups.create({ name: 'Team', member_ids: [bob.userId] })).group.group_id;

    expect(await owner.c.groups.addMembers(groupId, [carol.userId, bob.userId])).toEqual({
      added: [carol.userId],
      event_id: expect.any(String),
    });
    expect(await owner.c.groups.addMembers(groupId, [carol.userId])).toEqual({ added: [], event_id: null });
    expect(await owner.c.groups.removeMembers(groupId, [carol.userId])).toEqual({
      removed: [carol.userId],
      event_id: expect.any(String),
    });
    expect(await refusal(carol.c.groups.get(groupId))).toEqual(REFUSED(1209));

    expect(await owner.c.groups.setAdmin(groupId, bob.userId, true)).toEqual({
      user_id: bob.userId,
      role: 'admin',
      event_id: expect.any(String),
    });
    expect((await bob.c.groups.get(groupId)).group.my_role).toBe('admin');

    // dave is not a member yet: muting him is refused as the operation not allowed (1209).
    expect(await refusal(bob.c.groups.muteMember(groupId, dave.userId, 60))).toEqual(REFUSED(1209));

    const invitation = await bob.c.groups.createInvitation(groupId, { ttl_seconds: 3600 });
    expect(invitation).toEqual({
      code: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      group_id: groupId,
      expires_at: expect.any(Number),
      event_id: expect.any(String),
    });
    const joined = await dave.c.groups.join(invitation.code);
    expect(joined).toEqual({
      group: expect.objectContaining({ group_id: groupId, my_role: 'member', member_count: 3 }),
      event_id: expect.any(String),
    });
    expect((await dave.c.groups.join(invitation.code)).event_id).toBeNull();
    expect((await owner.c.groups.createInvitation(groupId)).code).not.toBe(invitation.code);

    const mute = await bob.c.groups.muteMember(groupId, dave.userId, 60);
    expect(mute).toEqual({ user_id: dave.userId, muted_until: expect.any(Number), event_id: expect.any(String) });
    expect(mute.muted_until).toBeGreaterThan(joined.group.updated_at);
    expect(await bob.c.groups.muteMember(groupId, dave.userId, 0)).toEqual({
      user_id: dave.userId,
      muted_until: 0,
      event_id: expect.any(String),
    });
    // An admin may not mute the owner (1209); an unknown invitation code is 1210.
    expect(await refusal(bob.c.groups.muteMember(groupId, owner.userId, 60))).toEqual(REFUSED(1209));
    expect(await refusal(carol.c.groups.join('AAAAAAAAAAAAAAAAAAAAAAAA'))).toEqual(REFUSED(1210));
  });

  it('the owner cannot leave before transferring; after the transfer the old owner leaves and the new one dismisses', async () => {
    const [owner, bob] = [await sdkUser(app), await sdkUser(app)];
    const groupId = (await owner.c.groups.create({ name: 'Handover', member_ids: [bob.userId] })).group.group_id;
    expect(await refusal(owner.c.groups.leave(groupId))).toEqual(REFUSED(1209));

    const transferred = await owner.c.groups.transfer(groupId, bob.userId);
    expect(transferred).toEqual({
      group: expect.objectContaining({ group_id: groupId, owner_user_id: bob.userId, my_role: 'admin' }),
      event_id: expect.any(String),
    });
    expect(await owner.c.groups.leave(groupId)).toEqual({ group_id: groupId, event_id: expect.any(String) });
    expect((await owner.c.groups.list()).items).toEqual([]);

    const dismissed = await bob.c.groups.dismiss(groupId);
    expect(dismissed).toEqual({ group_id: groupId, dismissed_at: expect.any(Number), event_id: expect.any(String) });
    expect(await refusal(bob.c.groups.get(groupId))).toEqual(REFUSED(1209));
    expect(await refusal(bob.c.groups.dismiss(groupId))).toEqual(REFUSED(1209));
  });
});
