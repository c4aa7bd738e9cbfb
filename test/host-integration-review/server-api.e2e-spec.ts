// Black-box review of the server API (docs/host-integration.md, "Server API").
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { adminSession } from '../helpers/admin-client';
import { connect, listen, RtClient, sleep } from '../helpers/realtime';
import {
  TEST_SECRETS,
  TestApp,
  bearer,
  hostAuth,
  randomGroupId,
  randomUserId,
  startTestApp,
} from '../helpers/test-app';

const TEST_SDK_SECRET = TEST_SECRETS.SDK_SECRET;

jest.setTimeout(120_000);

const rid = (): string => `r-${Math.random().toString(36).slice(2)}-${Date.now()}`;

describe('host integration review: server API', () => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  const clients: RtClient[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    url = await listen(t);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await t.close();
  });

  const server = (path: string, body: unknown) =>
    t.http
      .post(`/app/server/${path}`)
      .set(...hostAuth())
      .send(body as object);

  const rt = async (token: string): Promise<RtClient> => {
    const c = await connect(url, { auth: { token } });
    clients.push(c);
    return c;
  };

  const groupMessages = async (groupId: string) =>
    (await server('messages/list', { group_id: groupId, count: 200 })).body.data as {
      messages: Array<{ mid: string; type: string; sender_id: string; content: unknown }>;
    };

  describe('auth', () => {
    it('refuses no secret, a wrong secret and an IM token with 1001', async () => {
      const u = await api.user();
      const body = {
        request_id: rid(),
        sender_id: u.userId,
        to_user_id: u.userId,
        type: 'text',
        content: { text: 'x' },
      };
      const none = await t.http.post('/app/server/messages/send').send(body);
      const wrong = await t.http
        .post('/app/server/messages/send')
        .set('Authorization', 'Bearer not-the-secret')
        .send(body);
      const im = await t.http
        .post('/app/server/messages/send')
        .set(...bearer(u.token))
        .send(body);
      const exportIm = await t.http
        .post('/app/server/users/export')
        .set(...bearer(u.token))
        .send({ user_id: u.userId });
      for (const r of [none, wrong, im, exportIm]) expect(r.body.code).toBe(1001);
    });
  });

  describe('bad input names the field and changes nothing', () => {
    it.each([
      ['null request_id', { request_id: null }, 'request_id'],
      ['number request_id', { request_id: 5 }, 'request_id'],
      ['65-char request_id', { request_id: 'a'.repeat(65) }, 'request_id'],
      ['request_id with a space', { request_id: 'a b' }, 'request_id'],
      ['request_id with unicode', { request_id: 'é' }, 'request_id'],
      ['null content', { content: null }, 'content'],
      ['array content', { content: ['x'] }, 'content'],
      ['text too long', { content: { text: 'x'.repeat(5001) } }, 'content'],
      ['numeric text', { content: { text: 5 } }, 'text'],
      ['unknown type', { type: 'notice' }, 'type'],
      ['type null', { type: null }, 'type'],
      ['both targets', { group_id: 'g-x' }, ''],
      ['sender_id object', { sender_id: { $gt: '' } }, 'sender_id'],
      ['unknown sender', { sender_id: 'nobody-' + Math.random() }, 'sender_id'],
    ])('messages/send: %s', async (_what, patch, field) => {
      const [a, b] = await api.users(2);
      const body = {
        request_id: rid(),
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'hello' },
        ...patch,
      };
      const res = await server('messages/send', body);
      expect(res.body.code).toBe(1004);
      if (field) expect(res.body.msg).toContain(field);
      const list = await server('messages/list', { user_ids: [a.userId, b.userId] });
      // no conversation (1201) or an empty one
      if (list.body.code === 0) expect(list.body.data.messages).toHaveLength(0);
      else expect(list.body.code).toBe(1201);
    });

    it.each([
      [
        'messages/send text',
        (a: string, b: string) =>
          `{"request_id":"${rid()}","sender_id":"${a}","to_user_id":"${b}","type":"text","content":{"text":"a\\ud800b"}}`,
      ],
      [
        'messages/send custom description',
        (a: string, b: string) =>
          `{"request_id":"${rid()}","sender_id":"${a}","to_user_id":"${b}","type":"custom","content":{"data":{},"description":"a\\udc00"}}`,
      ],
      [
        'messages/notice text',
        (a: string, b: string) => `{"request_id":"${rid()}","user_ids":["${a}","${b}"],"content":{"text":"a\\ud800b"}}`,
      ],
    ])('%s with a lone surrogate is 1004 like an SDK send', async (what, make) => {
      const [a, b] = await api.users(2);
      const path = what.startsWith('messages/send') ? 'messages/send' : 'messages/notice';
      const res = await t.http
        .post(`/app/server/${path}`)
        .set(...hostAuth())
        .set('Content-Type', 'application/json')
        .send(make(a.userId, b.userId));
      expect(res.status).toBeLessThan(500);
      expect(res.body.code).toBe(1004);
      expect(res.body.msg).toMatch(/content/);
    });

    it('group name with a lone surrogate is 1004', async () => {
      const [a] = await api.users(1);
      const res = await t.http
        .post('/app/server/groups/create')
        .set(...hostAuth())
        .set('Content-Type', 'application/json')
        .send(`{"request_id":"${rid()}","owner_id":"${a.userId}","name":"x\\ud800"}`);
      expect(res.body.code).toBe(1004);
      expect(res.body.msg).toContain('name');
    });

    it('deeply nested custom data is refused with 1004, not a crash', async () => {
      const [a, b] = await api.users(2);
      const depth = 5000;
      const nested = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const raw = `{"request_id":"${rid()}","sender_id":"${a.userId}","to_user_id":"${b.userId}","type":"custom","content":{"data":${nested}}}`;
      const res = await t.http
        .post('/app/server/messages/send')
        .set(...hostAuth())
        .set('Content-Type', 'application/json')
        .send(raw);
      expect(res.status).toBeLessThan(500);
      expect(res.body.code).not.toBe(0);
    });

    it('a huge body is refused without a 500', async () => {
      const [a, b] = await api.users(2);
      const res = await server('messages/send', {
        request_id: rid(),
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'x'.repeat(3_000_000) },
      });
      expect(res.status).toBeLessThan(500);
      expect(res.body.code).not.toBe(0);
    });

    it('a disabled user cannot be a sender, owner, new member or new friend (1004 "disabled")', async () => {
      const [a, d, c] = await api.users(3);
      expect((await api.raw.userStatus(d.userId, true)).body.code).toBe(0);
      const send = await server('messages/send', {
        request_id: rid(),
        sender_id: d.userId,
        to_user_id: a.userId,
        type: 'text',
        content: { text: 'x' },
      });
      const owner = await server('groups/create', { request_id: rid(), owner_id: d.userId, name: 'G' });
      const member = await server('groups/create', {
        request_id: rid(),
        owner_id: a.userId,
        name: 'G',
        member_ids: [c.userId, d.userId],
      });
      const friend = await server('friends/add', { request_id: rid(), user_id: a.userId, friend_id: d.userId });
      for (const r of [send, owner, member, friend]) {
        expect(r.body.code).toBe(1004);
        expect(r.body.msg).toMatch(/disabled/);
      }
      expect(await api.myGroupIds(a)).toEqual([]);
    });

    it('groups/create with duplicates/owner among members, null name, a huge member list', async () => {
      const [a, b] = await api.users(2);
      for (const body of [
        { request_id: rid(), owner_id: a.userId, name: null },
        { request_id: rid(), owner_id: a.userId, name: 'x'.repeat(10_000) },
        { request_id: rid(), owner_id: a.userId, name: 'G', member_ids: 'b' },
        {
          request_id: rid(),
          owner_id: a.userId,
          name: 'G',
          member_ids: Array.from({ length: 201 }, () => randomUserId()),
        },
        { request_id: rid(), owner_id: a.userId, name: 'G', member_ids: [null] },
        { request_id: rid(), owner_id: a.userId, name: 'G', group_id: 'bad id with spaces' },
      ]) {
        const res = await server('groups/create', body);
        expect(res.status).toBeLessThan(500);
        expect(res.body.code).toBe(1004);
      }
      expect(await api.myGroupIds(a)).toEqual([]);
      // owner listed again among the members / duplicated member: no error 500, one membership each
      const res = await server('groups/create', {
        request_id: rid(),
        owner_id: a.userId,
        name: 'G',
        member_ids: [a.userId, b.userId, b.userId],
      });
      expect(res.status).toBeLessThan(500);
      if (res.body.code === 0) expect(res.body.data.group.member_count).toBe(2);
    });

    it('messages/list refuses bad seqs and counts', async () => {
      const [a] = await api.users(1);
      const gid = randomGroupId();
      expect(
        (await server('groups/create', { request_id: rid(), owner_id: a.userId, group_id: gid, name: 'G' })).body.code,
      ).toBe(0);
      for (const body of [
        { group_id: gid, count: 0 },
        { group_id: gid, count: 201 },
        { group_id: gid, count: '5' },
        { group_id: gid, after_seq: -1 },
        { group_id: gid, after_seq: '-1' },
        { group_id: gid, after_seq: '1e3' },
        { group_id: gid, after_seq: '99999999999999999999999999' },
        { group_id: gid, limit: 5 },
        { group_id: gid, user_ids: [a.userId, a.userId] },
        {},
      ]) {
        const res = await server('messages/list', body);
        expect(res.status).toBeLessThan(500);
        expect(res.body.code).toBe(1004);
      }
    });
  });

  describe('idempotency', () => {
    it('5 identical sends at once: one message, same reply', async () => {
      const [a, b] = await api.users(2);
      const body = {
        request_id: rid(),
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'once' },
      };
      const replies = await Promise.all(Array.from({ length: 5 }, () => server('messages/send', body)));
      for (const r of replies) expect(r.body.code).toBe(0);
      const mids = new Set(replies.map((r) => r.body.data.message.mid));
      const events = new Set(replies.map((r) => r.body.data.event_id));
      expect(mids.size).toBe(1);
      expect(events.size).toBe(1);
      const list = await server('messages/list', { user_ids: [a.userId, b.userId] });
      expect(list.body.data.messages).toHaveLength(1);
    });

    it('5 identical notices at once: one notice', async () => {
      const [a] = await api.users(1);
      const gid = randomGroupId();
      expect(
        (await server('groups/create', { request_id: rid(), owner_id: a.userId, group_id: gid, name: 'G' })).body.code,
      ).toBe(0);
      const body = { request_id: rid(), group_id: gid, content: { text: 'notice' } };
      const replies = await Promise.all(Array.from({ length: 5 }, () => server('messages/notice', body)));
      for (const r of replies) expect(r.body.code).toBe(0);
      expect(new Set(replies.map((r) => r.body.data.message.mid)).size).toBe(1);
      expect((await groupMessages(gid)).messages.filter((m) => m.type === 'notice')).toHaveLength(1);
    });

    it('5 identical group creates at once (no group_id): one group', async () => {
      const [a, b] = await api.users(2);
      const body = { request_id: rid(), owner_id: a.userId, name: 'Once', member_ids: [b.userId] };
      const replies = await Promise.all(Array.from({ length: 5 }, () => server('groups/create', body)));
      for (const r of replies) expect(r.body.code).toBe(0);
      expect(new Set(replies.map((r) => r.body.data.group.group_id)).size).toBe(1);
      expect(await api.myGroupIds(a)).toHaveLength(1);
    });

    it('5 identical member adds / friend adds at once: one event each', async () => {
      const [a, b, c] = await api.users(3);
      const gid = randomGroupId();
      expect(
        (await server('groups/create', { request_id: rid(), owner_id: a.userId, group_id: gid, name: 'G' })).body.code,
      ).toBe(0);
      const add = { request_id: rid(), group_id: gid, user_ids: [b.userId, c.userId] };
      const adds = await Promise.all(Array.from({ length: 5 }, () => server('groups/members/add', add)));
      for (const r of adds) expect(r.body.code).toBe(0);
      expect(new Set(adds.map((r) => r.body.data.event_id)).size).toBe(1);
      expect((await api.group(a, gid)).member_count).toBe(3);

      const fr = { request_id: rid(), user_id: b.userId, friend_id: c.userId };
      const frs = await Promise.all(Array.from({ length: 5 }, () => server('friends/add', fr)));
      for (const r of frs) expect(r.body.code).toBe(0);
      expect(new Set(frs.map((r) => r.body.data.event_id)).size).toBe(1);
      expect((await api.friends(b)).items).toHaveLength(1);
    });

    it('same request_id with a different body, or on another endpoint, is 1004 naming request_id', async () => {
      const [a, b] = await api.users(2);
      const id = rid();
      const body = {
        request_id: id,
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'one' },
      };
      expect((await server('messages/send', body)).body.code).toBe(0);
      const again = await server('messages/send', { ...body, content: { text: 'two' } });
      expect(again.body.code).toBe(1004);
      expect(again.body.msg).toContain('request_id');
      const other = await server('friends/add', { request_id: id, user_id: a.userId, friend_id: b.userId });
      expect(other.body.code).toBe(1004);
      expect(other.body.msg).toContain('request_id');
      // key order does not matter
      const reordered = await server('messages/send', {
        content: { text: 'one' },
        type: 'text',
        to_user_id: b.userId,
        sender_id: a.userId,
        request_id: id,
      });
      expect(reordered.body.code).toBe(0);
      expect((await server('messages/list', { user_ids: [a.userId, b.userId] })).body.data.messages).toHaveLength(1);
      expect((await api.friends(a)).items).toHaveLength(0);
    });

    it('a refused request may be retried with the same request_id once fixed', async () => {
      const [a, b] = await api.users(2);
      const gid = randomGroupId();
      const id = rid();
      const refused = await server('groups/create', {
        request_id: id,
        owner_id: a.userId,
        group_id: gid,
        name: 'G',
        member_ids: ['nobody-' + b.userId],
      });
      expect(refused.body.code).toBe(1004);
      const ok = await server('groups/create', {
        request_id: id,
        owner_id: a.userId,
        group_id: gid,
        name: 'G',
        member_ids: [b.userId],
      });
      expect(ok.body.code).toBe(0);
    });
  });

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

  describe('hostile shapes', () => {
    it('non-JSON, array, form-encoded and __proto__ bodies are refused without a 500', async () => {
      const [a, b] = await api.users(2);
      const post = () => t.http.post('/app/server/messages/send').set(...hostAuth());
      const replies = [
        await post().set('Content-Type', 'application/json').send('{"request_id": "x",'),
        await post().set('Content-Type', 'application/json').send('[1,2,3]'),
        await post().set('Content-Type', 'text/plain').send('hello'),
        await post()
          .set('Content-Type', 'application/x-www-form-urlencoded')
          .send(`request_id=${rid()}&sender_id=${a.userId}&to_user_id=${b.userId}&type=text&content[text]=hi`),
        await post()
          .set('Content-Type', 'application/json')
          .send(
            `{"request_id":"${rid()}","sender_id":"${a.userId}","to_user_id":"${b.userId}","type":"text","content":{"text":"hi","__proto__":{"admin":true}},"__proto__":{"x":1}}`,
          ),
      ];
      for (const r of replies) expect(r.status).toBeLessThan(500);
      for (const r of replies.slice(0, 4)) expect(r.body.code).not.toBe(0);
      const last = replies[4];
      if (last.body.code === 0) expect(last.body.data.message.content).toEqual({ text: 'hi' });
    });

    it('two 64-character request_ids that differ only at the end are two requests', async () => {
      const [a, b] = await api.users(2);
      const stem = `L${Date.now()}`.padEnd(63, 'x');
      const one = await server('messages/send', {
        request_id: `${stem}1`,
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'same' },
      });
      const two = await server('messages/send', {
        request_id: `${stem}2`,
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'same' },
      });
      expect(one.body.code).toBe(0);
      expect(two.body.code).toBe(0);
      expect(two.body.data.message.mid).not.toBe(one.body.data.message.mid);
      const again = await server('messages/send', {
        request_id: `${stem}1`,
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'same' },
      });
      expect(again.body.data.message.mid).toBe(one.body.data.message.mid);
      expect((await server('messages/list', { user_ids: [a.userId, b.userId] })).body.data.messages).toHaveLength(2);
    });

    it('a client cannot take a host message key (#host:...) nor collide with a host send', async () => {
      const [a, b] = await api.users(2);
      await api.befriend(a, b);
      const id = rid();
      const claimed = await api.raw.send(a, {
        conversation_id: friendCid(b),
        client_message_id: `#host:${id}`,
        type: 'text',
        content: { text: 'client' },
      });
      expect(claimed.body.code).toBe(1004);
      expect(claimed.body.msg).toContain('client_message_id');
      const host = await server('messages/send', {
        request_id: id,
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'host' },
      });
      expect(host.body.code).toBe(0);
      expect(host.body.data.message.content).toEqual({ text: 'host' });
    });

    it('the same request_id for two different senders (a different body) is refused', async () => {
      const [a, b, c] = await api.users(3);
      const id = rid();
      expect(
        (
          await server('messages/send', {
            request_id: id,
            sender_id: a.userId,
            to_user_id: b.userId,
            type: 'text',
            content: { text: 'x' },
          })
        ).body.code,
      ).toBe(0);
      const other = await server('messages/send', {
        request_id: id,
        sender_id: c.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'x' },
      });
      expect(other.body.code).toBe(1004);
      expect(other.body.msg).toContain('request_id');
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
      const audit = await viewer.get('/app/admin/audit');
      expect(audit.body.code).toBe(0);
      const rows = JSON.stringify(audit.body.data);
      expect(rows).toContain(createId);
      expect(rows).toContain('server.group.created');
      expect(rows).toContain('server.group.dismissed');
      expect(rows).not.toContain(TEST_SDK_SECRET);
    });
  });

  describe('the same rules as the SDK', () => {
    it.each([
      ['javascript avatar', { avatar: 'javascript:alert(1)' }],
      ['data avatar', { avatar: 'data:text/html,<script>1</script>' }],
      ['huge introduction', { introduction: 'i'.repeat(100_000) }],
      ['name with only spaces', { name: '   ' }],
      ['name null', { name: null }],
      ['introduction number', { introduction: 5 }],
    ])("groups/update with %s answers as the owner's own update does", async (_w, patch) => {
      const [a] = await api.users(1);
      const gid = randomGroupId();
      expect(
        (await server('groups/create', { request_id: rid(), owner_id: a.userId, group_id: gid, name: 'Rules' })).body
          .code,
      ).toBe(0);
      const sdk = await api.raw.groupPost(a, '/update', { group_id: gid, ...patch });
      const host = await server('groups/update', { request_id: rid(), group_id: gid, ...patch });
      expect(host.status).toBeLessThan(500);
      expect(host.body.code === 0).toBe(sdk.body.code === 0);
      if (sdk.body.code !== 0) expect(host.body.code).toBe(sdk.body.code);
    });

    it('notice data with a lone surrogate anywhere is 1004', async () => {
      const [a, b] = await api.users(2);
      for (const data of ['{"k\\ud800":1}', '{"k":["\\udc00"]}']) {
        const res = await t.http
          .post('/app/server/messages/notice')
          .set(...hostAuth())
          .set('Content-Type', 'application/json')
          .send(
            `{"request_id":"${rid()}","user_ids":["${a.userId}","${b.userId}"],"content":{"text":"n","data":${data}}}`,
          );
        expect(res.status).toBeLessThan(500);
        expect(res.body.code).toBe(1004);
      }
    });
  });

  describe('rate limit', () => {
    it('past server_api the host gets 1005; an unauthenticated caller does not spend it', async () => {
      const limited = await startTestApp({
        RATE_LIMITS:
          'send=100000/1s,friend_request=100000/1s,report=100000/1s,client_error=100000/1s,media_upload=100000/1s,server_api=5/60s',
      });
      try {
        for (let i = 0; i < 20; i += 1) {
          const r = await limited.http
            .post('/app/server/users/export')
            .set('Authorization', 'Bearer wrong')
            .send({ user_id: 'x' });
          expect(r.body.code).toBe(1001);
        }
        const codes: number[] = [];
        for (let i = 0; i < 8; i += 1) {
          const r = await limited.http
            .post('/app/server/users/export')
            .set(...hostAuth())
            .send({ user_id: randomUserId() });
          codes.push(r.body.code);
        }
        expect(codes.slice(0, 5).every((c) => c !== 1005)).toBe(true);
        expect(codes.slice(5)).toEqual([1005, 1005, 1005]);
      } finally {
        await limited.close();
      }
    });
  });
});
