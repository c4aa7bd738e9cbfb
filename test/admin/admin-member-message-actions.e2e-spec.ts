import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { expectOk, recipientIds, storedEvent } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { RtClient, connect, listen } from '../helpers/realtime';
import { ConversationStore } from '../../src/conversations/conversation-store.service';

interface ChangeItem {
  message_id: string;
  status: string;
  changed: boolean;
  event_id: string | null;
}

/** Issue 25: the operator mutes, removes and transfers in a group, and recalls or deletes messages, as their owners would. */
describe('admin: group members and messages as the operator', () => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  let moderator: AdminSession;
  let viewer: AdminSession;
  const clients: RtClient[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    url = await listen(t);
    moderator = await adminSession(t, 'moderator');
    viewer = await adminSession(t, 'viewer');
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(() => t.close());

  const live = async (token: string): Promise<RtClient> => {
    const client = await connect(url, { auth: { token } });
    clients.push(client);
    return client;
  };
  const auditOf = async (type: string, id: string) =>
    expectOk<{ items: Array<Record<string, unknown>> }>(
      await viewer.get('/app/admin/audit', { target_type: type, target_id: id }),
    ).items;
  const membersOf = async (u: { token: string }, groupId: string) =>
    expectOk<{ items: Array<{ user: { user_id: string }; role: string; muted_until: number }> }>(
      await api.raw.groupGet(u, '/members', { group_id: groupId }),
    ).items;

  it("mutes a member (1203 on send, seen by members' SDKs and sockets), unmutes, refuses the owner", async () => {
    const [owner, member, other] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(owner, [member, other]);
    const watcher = await live(other.token);
    const muted = expectOk<{ muted_until: number; event_id: string }>(
      await moderator.post('/app/admin/groups/members/mute', {
        group_id: groupId,
        user_id: member.userId,
        duration_seconds: 600,
      }),
    );
    expect(muted).toEqual({
      group_id: groupId,
      user_id: member.userId,
      muted_until: expect.any(Number),
      event_id: expect.any(String),
    });
    expect((await api.raw.sendText(member, groupCid(groupId), 'hello')).body.code).toBe(1203);
    const seen = await watcher.waitForEvent(muted.event_id, 10_000);
    expect(seen).toMatchObject({
      type: 'group.member_muted',
      data: expect.objectContaining({
        group_id: groupId,
        operator_user_id: owner.userId,
        user_id: member.userId,
        muted_until: muted.muted_until,
      }),
    });
    expect((await membersOf(other, groupId)).find((m) => m.user.user_id === member.userId)?.muted_until).toBe(
      muted.muted_until,
    );
    expectOk(
      await moderator.post('/app/admin/groups/members/mute', {
        group_id: groupId,
        user_id: member.userId,
        duration_seconds: 0,
      }),
    );
    await api.send(member, groupCid(groupId), 'back');

    const ownerMute = await moderator.post('/app/admin/groups/members/mute', {
      group_id: groupId,
      user_id: owner.userId,
      duration_seconds: 60,
    });
    expect(ownerMute.body).toEqual({
      code: 1209,
      msg: 'user_id: the owner cannot be muted (transfer the group first)',
      data: null,
    });
    for (const [body, field] of [
      [{ duration_seconds: -1 }, 'duration_seconds'],
      [{ duration_seconds: 2_592_001 }, 'duration_seconds'],
      [{ duration_seconds: 1.5 }, 'duration_seconds'],
      [{ duration_seconds: null }, 'duration_seconds'],
      [{ duration_seconds: '60' }, 'duration_seconds'],
      [{ duration_seconds: 60, user_id: null }, 'user_id'],
      [{ duration_seconds: 60, report_id: 'x' }, 'report_id'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await moderator.post('/app/admin/groups/members/mute', {
        group_id: groupId,
        user_id: member.userId,
        ...body,
      });
      expect({ body, code: response.body.code, msg: response.body.msg as string }).toEqual({
        body,
        code: 1004,
        msg: expect.stringMatching(new RegExp(`^${field}`)),
      });
    }
    const outsider = await issueUser(t);
    expect(
      (
        await moderator.post('/app/admin/groups/members/mute', {
          group_id: groupId,
          user_id: outsider.userId,
          duration_seconds: 60,
        })
      ).body.code,
    ).toBe(1209);
    expect(
      (
        await moderator.post('/app/admin/groups/members/mute', {
          group_id: 'no-such-group',
          user_id: member.userId,
          duration_seconds: 60,
        })
      ).body.code,
    ).toBe(1209);
    const audit = await auditOf('group', groupId);
    expect(audit.map((a) => [a.action, a.before, a.after, a.report_id ?? null])).toEqual([
      [
        'group.member_unmuted',
        { user_id: member.userId, muted_until: muted.muted_until },
        { user_id: member.userId, muted_until: 0 },
        null,
      ],
      [
        'group.member_muted',
        { user_id: member.userId, muted_until: 0 },
        { user_id: member.userId, muted_until: muted.muted_until },
        null,
      ],
    ]);
  });

  it('removes a member as the owner would (event to the removed member too), and never the owner', async () => {
    const [owner, member, other] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(owner, [member, other]);
    const removedSocket = await live(member.token);
    const removed = expectOk<{ removed: boolean; event_id: string }>(
      await moderator.post('/app/admin/groups/members/remove', { group_id: groupId, user_id: member.userId }),
    );
    expect(removed).toEqual({ group_id: groupId, user_id: member.userId, removed: true, event_id: expect.any(String) });
    const event = await storedEvent(t, removed.event_id);
    expect(event.type).toBe('group.members_removed');
    expect(event.payload).toMatchObject({ operator_user_id: owner.userId, user_ids: [member.userId] });
    expect(recipientIds(event)).toEqual([owner.id, member.id, other.id].sort());
    await removedSocket.waitForEvent(removed.event_id, 10_000);
    expect((await api.raw.sendText(member, groupCid(groupId), 'still?')).body.code).not.toBe(0);
    expect(Object.keys(await api.groupRoles(owner, groupId)).sort()).toEqual([owner.userId, other.userId].sort());

    // Again: not a member any more, so nothing changes.
    expect(
      expectOk(await moderator.post('/app/admin/groups/members/remove', { group_id: groupId, user_id: member.userId })),
    ).toEqual({ group_id: groupId, user_id: member.userId, removed: false, event_id: null });
    const ownerRemoval = await moderator.post('/app/admin/groups/members/remove', {
      group_id: groupId,
      user_id: owner.userId,
    });
    expect(ownerRemoval.body).toEqual({
      code: 1209,
      msg: 'user_id: the owner cannot be removed (transfer the group first)',
      data: null,
    });
    expect(await api.groupRoles(owner, groupId)).toEqual({ [owner.userId]: 'owner', [other.userId]: 'member' });
  });

  it('transfers ownership: the new owner is unmuted, the old one an admin; members see the event', async () => {
    const [owner, member, other] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(owner, [member, other]);
    await api.muteMember(owner, groupId, member, 600);
    const watcher = await live(other.token);
    const transferred = expectOk<{ event_id: string }>(
      await moderator.post('/app/admin/groups/transfer', { group_id: groupId, user_id: member.userId }),
    );
    expect(transferred).toEqual({
      group_id: groupId,
      owner_user_id: member.userId,
      previous_owner_user_id: owner.userId,
      event_id: expect.any(String),
    });
    const seen = await watcher.waitForEvent(transferred.event_id, 10_000);
    expect(seen).toMatchObject({
      type: 'group.owner_transferred',
      data: expect.objectContaining({ previous_owner_user_id: owner.userId, owner_user_id: member.userId }),
    });
    expect(await api.groupRoles(other, groupId)).toEqual({
      [owner.userId]: 'admin',
      [member.userId]: 'owner',
      [other.userId]: 'member',
    });
    expect((await membersOf(other, groupId)).find((m) => m.user.user_id === member.userId)?.muted_until).toBe(0);
    expect((await api.group(other, groupId)).owner_user_id).toBe(member.userId);
    // The new owner really owns it: their own owner-only operation works.
    await api.setAdmin(member, groupId, other, true);
    const already = await moderator.post('/app/admin/groups/transfer', { group_id: groupId, user_id: member.userId });
    expect(already.body).toEqual({ code: 1209, msg: 'user_id: already owns the group', data: null });
    const outsider = await issueUser(t);
    expect(
      (await moderator.post('/app/admin/groups/transfer', { group_id: groupId, user_id: outsider.userId })).body.code,
    ).toBe(1209);
    expect((await auditOf('group', groupId))[0]).toMatchObject({
      action: 'group.owner_transferred',
      before: { owner_user_id: owner.userId },
      after: { owner_user_id: member.userId },
    });
  });

  it('recalls and deletes one-to-one messages for everyone; the peer sees it (HTTP and socket); idempotent', async () => {
    const [alice, bob] = [await issueUser(t), await issueUser(t)];
    await api.befriend(alice, bob);
    const sent = await api.sendMany(alice, friendCid(bob), 3, 'abuse');
    const conversation = await t.app.get(ConversationStore).findDirect(alice.id, bob.id);
    const conversationId = String(conversation!.id);
    const peer = await live(bob.token);
    const ids = sent.map((m) => m.mid);

    const recalled = expectOk<{ conversation_id: string; items: ChangeItem[] }>(
      await moderator.post('/app/admin/messages/recall', {
        conversation_id: conversationId,
        message_ids: ids.slice(0, 2),
      }),
    );
    expect(recalled.conversation_id).toBe(conversationId);
    expect(recalled.items).toEqual(
      ids
        .slice(0, 2)
        .map((id) => ({ message_id: id, status: 'recalled', changed: true, event_id: expect.any(String) })),
    );
    const event = await peer.waitForEvent(recalled.items[0].event_id!, 10_000);
    expect(event).toMatchObject({
      type: 'message.recalled',
      data: expect.objectContaining({
        by: alice.userId,
        message: expect.objectContaining({ mid: ids[0], status: 'recalled' }),
      }),
    });
    // The peer names the conversation after the sender, as for the sender's own recall.
    expect(event.data.conversation_id).toBe(friendCid(alice));
    const window = await api.latest(bob, friendCid(alice));
    expect(window.messages.map((m) => [m.mid, m.status])).toEqual([
      [ids[0], 'recalled'],
      [ids[1], 'recalled'],
      [ids[2], 'normal'],
    ]);

    // Again: already recalled, nothing changes. A recall and a delete in one call, each reported.
    const again = expectOk<{ items: ChangeItem[] }>(
      await moderator.post('/app/admin/messages/recall', { conversation_id: conversationId, message_ids: [ids[0]] }),
    );
    expect(again.items).toEqual([{ message_id: ids[0], status: 'recalled', changed: false, event_id: null }]);
    const deleted = expectOk<{ items: ChangeItem[] }>(
      await moderator.post('/app/admin/messages/delete', {
        conversation_id: conversationId,
        message_ids: [ids[0], ids[2]],
      }),
    );
    expect(deleted.items.map((i) => [i.message_id, i.status, i.changed])).toEqual([
      [ids[0], 'deleted', true],
      [ids[2], 'deleted', true],
    ]);
    await peer.waitForEvent(deleted.items[1].event_id!, 10_000);
    const after = await api.latest(alice, friendCid(bob));
    expect(after.messages.map((m) => [m.mid, m.status])).toEqual(
      expect.arrayContaining([
        [ids[1], 'recalled'],
        ...(after.messages.some((m) => m.mid === ids[0]) ? [[ids[0], 'deleted']] : []),
      ]),
    );
    expect(JSON.stringify(after.messages)).not.toContain('abuse 3');
    // A recall of a deleted message changes nothing.
    const late = expectOk<{ items: ChangeItem[] }>(
      await moderator.post('/app/admin/messages/recall', { conversation_id: conversationId, message_ids: [ids[2]] }),
    );
    expect(late.items).toEqual([{ message_id: ids[2], status: 'deleted', changed: false, event_id: null }]);
    const audit = await auditOf('conversation', conversationId);
    expect(audit.map((a) => a.action)).toEqual([
      'message.recalled',
      'message.deleted',
      'message.recalled',
      'message.recalled',
    ]);
    expect(audit[1]).toMatchObject({
      before: { messages: { [ids[0]]: 'recalled', [ids[2]]: 'normal' } },
      after: { messages: { [ids[0]]: 'deleted', [ids[2]]: 'deleted' } },
    });
  });

  it('recalls a group message by group_<id> with no time limit; a message of another conversation changes nothing', async () => {
    const [owner, member] = [await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(owner, [member]);
    const [first] = await api.sendMany(member, groupCid(groupId), 1, 'group text');
    const [alice, bob] = [await issueUser(t), await issueUser(t)];
    await api.befriend(alice, bob);
    const [elsewhere] = await api.sendMany(alice, friendCid(bob), 1, 'elsewhere');
    // Past the sender's recall window (120 s by default): the sender could not recall it any more.
    t.clock.advance(10 * 60 * 1000);
    try {
      expect((await api.raw.recall(member, groupCid(groupId), first.mid)).body.code).toBe(1208);
      const mixed = await moderator.post('/app/admin/messages/recall', {
        conversation_id: groupCid(groupId),
        message_ids: [first.mid, elsewhere.mid],
      });
      expect(mixed.body).toEqual({
        code: 1207,
        msg: `message_ids: no message ${elsewhere.mid} in this conversation`,
        data: null,
      });
      expect((await api.latest(owner, groupCid(groupId))).messages.find((m) => m.mid === first.mid)?.status).toBe(
        'normal',
      );
      const watcher = await live(owner.token);
      const recalled = expectOk<{ items: ChangeItem[] }>(
        await moderator.post('/app/admin/messages/recall', {
          conversation_id: groupCid(groupId),
          message_ids: [first.mid],
        }),
      );
      expect(recalled.items[0]).toMatchObject({ status: 'recalled', changed: true });
      const event = await watcher.waitForEvent(recalled.items[0].event_id!, 10_000);
      expect((event.data as { conversation_id: string }).conversation_id).toBe(groupCid(groupId));
      expect((await api.latest(member, groupCid(groupId))).messages.find((m) => m.mid === first.mid)?.status).toBe(
        'recalled',
      );
    } finally {
      t.clock.advance(-10 * 60 * 1000);
    }
  });

  it('concurrent recalls of the same messages change each once, beside the members own recalls', async () => {
    const [owner, member] = [await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(owner, [member]);
    const sent = await api.sendMany(member, groupCid(groupId), 6, 'burst');
    const ids = sent.map((m) => m.mid);
    const body = { conversation_id: groupCid(groupId), message_ids: ids };
    const replies = await Promise.all([
      moderator.post('/app/admin/messages/recall', body),
      moderator.post('/app/admin/messages/recall', { ...body, message_ids: [...ids].reverse() }),
      api.raw.recall(member, groupCid(groupId), ids[2]),
      api.raw.recall(member, groupCid(groupId), ids[4]),
    ]);
    for (const reply of replies) expect(reply.body.code).toBe(0);
    const changes = replies
      .slice(0, 2)
      .flatMap((r) => (r.body.data as { items: ChangeItem[] }).items.filter((i) => i.changed).map((i) => i.message_id));
    const own = replies.slice(2).filter((r) => (r.body.data as { event_id: string | null }).event_id !== null).length;
    // Every message was recalled exactly once, by one of the four calls.
    expect(changes.length + own).toBe(ids.length);
    expect(new Set(changes).size).toBe(changes.length);
    expect((await api.latest(owner, groupCid(groupId))).messages.map((m) => m.status)).toEqual(
      ids.map(() => 'recalled'),
    );
  });

  it('refuses bad message requests naming the field, and an unknown conversation', async () => {
    const cases: Array<[Record<string, unknown>, string | number]> = [
      [{ conversation_id: '1', message_ids: [] }, 'message_ids'],
      [{ conversation_id: '1', message_ids: Array.from({ length: 51 }, (_, i) => String(i + 1)) }, 'message_ids'],
      [{ conversation_id: '1', message_ids: ['1', '1'] }, 'message_ids'],
      [{ conversation_id: '1', message_ids: [1] }, 'message_ids'],
      [{ conversation_id: '1', message_ids: ['01'] }, 'message_ids'],
      [{ conversation_id: '1', message_ids: null }, 'message_ids'],
      [{ conversation_id: 'friend_abc', message_ids: ['1'] }, 'conversation_id'],
      [{ conversation_id: null, message_ids: ['1'] }, 'conversation_id'],
      [{ conversation_id: '1', message_ids: ['1'], report_id: null }, 'report_id'],
      [{ conversation_id: '999999999999', message_ids: ['1'] }, 1201],
    ];
    for (const path of ['recall', 'delete'])
      for (const [body, expected] of cases) {
        const response = await moderator.post(`/app/admin/messages/${path}`, body);
        if (typeof expected === 'number') expect({ body, code: response.body.code }).toEqual({ body, code: expected });
        else
          expect({ body, code: response.body.code, msg: response.body.msg as string }).toEqual({
            body,
            code: 1004,
            msg: expect.stringMatching(new RegExp(`^${expected}`)),
          });
      }
  });

  it('a viewer is refused every action (403 / 1004)', async () => {
    const [owner, member] = [await issueUser(t), await issueUser(t)];
    const groupId = await api.createGroup(owner, [member]);
    const [message] = await api.sendMany(member, groupCid(groupId), 1);
    for (const [path, body] of [
      ['groups/members/mute', { group_id: groupId, user_id: member.userId, duration_seconds: 60 }],
      ['groups/members/remove', { group_id: groupId, user_id: member.userId }],
      ['groups/transfer', { group_id: groupId, user_id: member.userId }],
      ['messages/recall', { conversation_id: groupCid(groupId), message_ids: [message.mid] }],
      ['messages/delete', { conversation_id: groupCid(groupId), message_ids: [message.mid] }],
    ] as Array<[string, object]>) {
      const response = await viewer.post(`/app/admin/${path}`, body);
      expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 403, code: 1004 });
    }
    expect(await api.groupRoles(owner, groupId)).toEqual({ [owner.userId]: 'owner', [member.userId]: 'member' });
    expect((await api.latest(owner, groupCid(groupId))).messages.find((m) => m.mid === message.mid)?.status).toBe(
      'normal',
    );
  });
});
