// Server API review: host sends, notices, group and friend writes, their events, codes and audit rows.
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { adminSession } from '../helpers/admin-client';
import { sleep } from '../helpers/realtime';
import { TEST_SECRETS, TestApp, randomGroupId } from '../helpers/test-app';
import { requestIds, useReviewApp } from './review-kit';

jest.setTimeout(120_000);

const TEST_SDK_SECRET = TEST_SECRETS.SDK_SECRET;

const rid = requestIds('r');

describe('host integration review: server API', () => {
  let t: TestApp;
  let api: ApiClient;
  const { server, rt, groupMessages } = useReviewApp((app) => ({ t, api } = app));

  describe('events and notices', () => {
    it('a host send reaches both sockets; a notice reaches group members; clients cannot send notices', async () => {
      const [a, b] = await api.users(2);
      const [ca, cb] = [await rt(a.token), await rt(b.token)];
      const sent = await server('messages/send', {
        request_id: rid(),
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'hi from host' },
      });
      expect(sent.body.code).toBe(0);
      expect(sent.body.data.message.client_message_id).toMatch(/^#host:/);
      await ca.waitForEvent(sent.body.data.event_id, 10_000);
      const got = await cb.waitForEvent(sent.body.data.event_id, 10_000);
      expect(got.type).toBe('message.new');

      const gid = randomGroupId();
      const created = await server('groups/create', {
        request_id: rid(),
        owner_id: a.userId,
        group_id: gid,
        name: 'G',
        member_ids: [b.userId],
      });
      expect(created.body.code).toBe(0);
      await cb.waitForEvent(created.body.data.event_id, 10_000);
      const notice = await server('messages/notice', {
        request_id: rid(),
        group_id: gid,
        content: { text: 'welcome', data: { k: 1 } },
      });
      expect(notice.body.code).toBe(0);
      expect(notice.body.data.message.sender_id).toBe('');
      expect(notice.body.data.message.type).toBe('notice');
      await cb.waitForEvent(notice.body.data.event_id, 10_000);

      const clientNotice = await api.raw.send(b, {
        conversation_id: groupCid(gid),
        client_message_id: 'c-n-' + rid(),
        type: 'notice',
        content: { text: 'fake' },
      });
      expect(clientNotice.body.code).toBe(1004);
      expect(clientNotice.body.msg).toContain('type');
      // through the socket too, if the socket can send
      const viaSocket = await cb
        .request<{ code: number; msg: string }>('message.send', {
          conversation_id: groupCid(gid),
          client_message_id: 'c-n2-' + rid(),
          type: 'notice',
          content: { text: 'fake' },
        })
        .catch(() => ({ code: -1, msg: 'no ack' }));
      expect(viaSocket.code).not.toBe(0);
      await sleep(200);
      expect((await groupMessages(gid)).messages.filter((m) => m.type === 'notice')).toHaveLength(1);
    });

    it('a notice to a pair: user_ids must be exactly two distinct existing users', async () => {
      const [a, b] = await api.users(2);
      for (const ids of [
        [a.userId],
        [a.userId, a.userId],
        [a.userId, b.userId, b.userId],
        [a.userId, 'nobody-x-' + b.userId],
        null,
        'x',
      ]) {
        const res = await server('messages/notice', { request_id: rid(), user_ids: ids, content: { text: 'n' } });
        expect(res.status).toBeLessThan(500);
        expect(res.body.code).toBe(1004);
      }
      const ok = await server('messages/notice', {
        request_id: rid(),
        user_ids: [a.userId, b.userId],
        content: { text: 'n' },
      });
      expect(ok.body.code).toBe(0);
      expect(ok.body.data.message.conversation_id).toBe(friendCid(b));
    });

    it('a block either way is never bypassed by a host send (1203)', async () => {
      const [a, b] = await api.users(2);
      await api.block(b, a);
      const res = await server('messages/send', {
        request_id: rid(),
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'x' },
      });
      expect(res.body.code).toBe(1203);
      const rev = await server('messages/send', {
        request_id: rid(),
        sender_id: b.userId,
        to_user_id: a.userId,
        type: 'text',
        content: { text: 'x' },
      });
      expect(rev.body.code).toBe(1203);
    });

    it('sending to oneself is refused rather than opening a self-conversation', async () => {
      const [a] = await api.users(1);
      const res = await server('messages/send', {
        request_id: rid(),
        sender_id: a.userId,
        to_user_id: a.userId,
        type: 'text',
        content: { text: 'x' },
      });
      expect(res.status).toBeLessThan(500);
      expect(res.body.code).not.toBe(0);
    });
  });

  describe('groups, friends and reads: documented codes', () => {
    async function group(owner: string, members: string[] = []): Promise<string> {
      const gid = randomGroupId();
      const r = await server('groups/create', {
        request_id: rid(),
        owner_id: owner,
        group_id: gid,
        name: 'G',
        member_ids: members,
      });
      expect(r.body.code).toBe(0);
      return gid;
    }

    it('group rules: owner cannot be removed or re-roled (1209), unknown group 1209, update needs a field', async () => {
      const [a, b, c] = await api.users(3);
      const gid = await group(a.userId, [b.userId]);
      expect(
        (await server('groups/members/remove', { request_id: rid(), group_id: gid, user_ids: [a.userId] })).body.code,
      ).toBe(1209);
      expect(
        (await server('groups/members/role', { request_id: rid(), group_id: gid, user_id: a.userId, role: 'admin' }))
          .body.code,
      ).toBe(1209);
      expect(
        (await server('groups/members/role', { request_id: rid(), group_id: gid, user_id: c.userId, role: 'admin' }))
          .body.code,
      ).toBe(1209);
      const badRole = await server('groups/members/role', {
        request_id: rid(),
        group_id: gid,
        user_id: b.userId,
        role: 'owner',
      });
      expect(badRole.body.code).toBe(1004);
      expect(badRole.body.msg).toContain('role');
      expect(
        (await server('groups/update', { request_id: rid(), group_id: 'g-nope-' + a.userId, name: 'x' })).body.code,
      ).toBe(1209);
      const none = await server('groups/update', { request_id: rid(), group_id: gid });
      expect(none.body.code).toBe(1004);
      const same = await server('groups/update', { request_id: rid(), group_id: gid, name: 'G' });
      expect(same.body.code).toBe(0);
      expect(same.body.data.event_id).toBeNull();
      const taken = await server('groups/create', {
        request_id: rid(),
        owner_id: b.userId,
        group_id: gid,
        name: 'dup',
      });
      expect(taken.body.code).toBe(1004);
      expect(taken.body.msg).toContain('group_id');
      const d = await server('groups/dismiss', { request_id: rid(), group_id: gid });
      expect(d.body.code).toBe(0);
      expect((await server('groups/dismiss', { request_id: rid(), group_id: gid })).body.code).toBe(1209);
      expect(
        (await server('messages/notice', { request_id: rid(), group_id: gid, content: { text: 'n' } })).body.code,
      ).toBe(1203);
      expect(
        (await server('groups/members/add', { request_id: rid(), group_id: gid, user_ids: [c.userId] })).body.code,
      ).toBe(1209);
    });

    it('two creates of one group_id at once with different request_ids: one group, the other 1004', async () => {
      const [a, b] = await api.users(2);
      const gid = randomGroupId();
      const replies = await Promise.all(
        [a, b, a, b].map((u) =>
          server('groups/create', { request_id: rid(), owner_id: u.userId, group_id: gid, name: 'race' }),
        ),
      );
      const codes = replies.map((r) => r.body.code).sort();
      expect(codes).toEqual([0, 1004, 1004, 1004]);
    });

    it('friends: concurrent adds with different request_ids make one friendship; codes 1206/1211/1204', async () => {
      const [a, b, c] = await api.users(3);
      const replies = await Promise.all([
        server('friends/add', { request_id: rid(), user_id: a.userId, friend_id: b.userId }),
        server('friends/add', { request_id: rid(), user_id: b.userId, friend_id: a.userId }),
        server('friends/add', { request_id: rid(), user_id: a.userId, friend_id: b.userId }),
      ]);
      expect(replies.map((r) => r.body.code).sort()).toEqual([0, 1206, 1206]);
      expect((await api.friends(a)).items).toHaveLength(1);
      expect(
        (await server('friends/add', { request_id: rid(), user_id: a.userId, friend_id: a.userId })).body.code,
      ).toBe(1004);
      await api.block(c, a);
      expect(
        (await server('friends/add', { request_id: rid(), user_id: a.userId, friend_id: c.userId })).body.code,
      ).toBe(1211);
      expect(
        (await server('friends/delete', { request_id: rid(), user_id: a.userId, friend_id: c.userId })).body.code,
      ).toBe(1204);
      const del = await server('friends/delete', { request_id: rid(), user_id: b.userId, friend_id: a.userId });
      expect(del.body.code).toBe(0);
      expect((await api.friends(a)).items).toHaveLength(0);
    });

    it('a pending request is accepted by friends/add', async () => {
      const [a, b] = await api.users(2);
      await api.friendRequest(a, b);
      expect(
        (await server('friends/add', { request_id: rid(), user_id: b.userId, friend_id: a.userId })).body.code,
      ).toBe(0);
      const pending = await api.friendRequests(b, 'incoming', 'pending');
      expect(pending).toHaveLength(0);
    });

    it('notice data over 8192 characters is 1004 naming data; data must be an object', async () => {
      const [a, b] = await api.users(2);
      for (const data of [{ big: 'x'.repeat(8200) }, 'str', [1, 2], 5]) {
        const r = await server('messages/notice', {
          request_id: rid(),
          user_ids: [a.userId, b.userId],
          content: { text: 'n', data },
        });
        expect(r.body.code).toBe(1004);
        expect(r.body.msg).toMatch(/data/);
      }
    });

    it("messages/list pages the whole conversation; conversations/list is the user's sync", async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      const sent = await api.sendMany(a, friendCid(b), 5);
      await api.deleteMessage(a, friendCid(b), sent[1].mid);
      const p1 = await server('messages/list', { user_ids: [b.userId, a.userId], count: 2 });
      expect(p1.body.code).toBe(0);
      expect(p1.body.data.messages.map((m: { mid: string }) => m.mid)).toEqual([sent[0].mid, sent[1].mid]);
      expect(p1.body.data.messages[1].content).toBeNull();
      expect(p1.body.data.has_more).toBe(true);
      const p2 = await server('messages/list', {
        user_ids: [a.userId, b.userId],
        count: 200,
        after_seq: p1.body.data.next_after_seq,
      });
      expect(p2.body.data.messages).toHaveLength(3);
      expect(p2.body.data.has_more).toBe(false);
      const convs = await server('conversations/list', { user_id: b.userId });
      expect(convs.body.code).toBe(0);
      expect(convs.body.data.items.length).toBeGreaterThanOrEqual(1);
      const unknown = await server('conversations/list', { user_id: 'nobody-' + a.userId });
      expect(unknown.body.code).toBe(1004);
      expect(unknown.body.msg).toContain('user_id');
      const badCursor = await server('conversations/list', { user_id: b.userId, cursor: 'garbage!' });
      expect(badCursor.body.code).toBe(1004);
      expect(badCursor.body.msg).toContain('cursor');
    });

    it('the request_id of an erase cannot be reused on another endpoint', async () => {
      const [a, b, c] = await api.users(3);
      const id = rid();
      expect((await server('users/erase', { user_id: c.userId, request_id: id })).body.code).toBe(0);
      const reuse = await server('friends/add', { request_id: id, user_id: a.userId, friend_id: b.userId });
      expect(reuse.body.code).toBe(1004);
      expect(reuse.body.msg).toContain('request_id');
    });
  });

  describe('group events and audit', () => {
    it("group writes reach the members' sockets naming the owner as operator; the audit names the host", async () => {
      const [a, b, c] = await api.users(3);
      const [cb, cc] = [await rt(b.token), await rt(c.token)];
      const gid = randomGroupId();
      const createId = rid();
      const created = await server('groups/create', {
        request_id: createId,
        owner_id: a.userId,
        group_id: gid,
        name: 'Evt',
        member_ids: [b.userId],
      });
      expect(created.body.code).toBe(0);
      expect(created.body.data.group.my_role).toBe('owner');
      const ev = await cb.waitForEvent(created.body.data.event_id, 10_000);
      expect(ev.type).toBe('group.created');
      expect(ev.data.operator_user_id).toBe(a.userId);
      const added = await server('groups/members/add', {
        request_id: rid(),
        group_id: gid,
        user_ids: [c.userId, b.userId],
      });
      expect(added.body.code).toBe(0);
      await cc.waitForEvent(added.body.data.event_id, 10_000);
      const role = await server('groups/members/role', {
        request_id: rid(),
        group_id: gid,
        user_id: c.userId,
        role: 'admin',
      });
      expect(role.body.code).toBe(0);
      await cc.waitForEvent(role.body.data.event_id, 10_000);
      const removed = await server('groups/members/remove', { request_id: rid(), group_id: gid, user_ids: [c.userId] });
      expect(removed.body.code).toBe(0);
      await cc.waitForEvent(removed.body.data.event_id, 10_000);
      const dismissed = await server('groups/dismiss', { request_id: rid(), group_id: gid });
      expect(dismissed.body.code).toBe(0);
      const dev = await cb.waitForEvent(dismissed.body.data.event_id, 10_000);
      expect(dev.type).toBe('group.dismissed');

      const viewer = await adminSession(t, 'viewer');
      // This group's rows: the log's first page (50, newest first) is shared with every spec file
      // writing audit rows meanwhile on the shared MySQL database.
      const audit = await viewer.get('/app/admin/audit', { admin: '(host)', target_id: gid });
      expect(audit.body.code).toBe(0);
      const rows = JSON.stringify(audit.body.data);
      expect(rows).toContain(createId);
      expect(rows).toContain('server.group.created');
      expect(rows).toContain('server.group.dismissed');
      expect(rows).not.toContain(TEST_SDK_SECRET);
    });
  });
});
