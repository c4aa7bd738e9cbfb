// Server API review: bad and hostile input is refused naming the field, by the same rules as the SDK.
import { ApiClient, friendCid } from '../helpers/api-client';
import { TestApp, hostAuth, randomGroupId, randomUserId } from '../helpers/test-app';
import { requestIds, useReviewApp } from './review-kit';

jest.setTimeout(120_000);

const rid = requestIds('r');

describe('host integration review: server API', () => {
  let t: TestApp;
  let api: ApiClient;
  const { server } = useReviewApp((app) => ({ t, api } = app));

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
});
