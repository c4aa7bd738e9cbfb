// Server API review: the host secret, request_id idempotency under concurrency, and the server_api rate limit.
import { ApiClient } from '../helpers/api-client';
import { TestApp, bearer, hostAuth, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { requestIds, useReviewApp } from './review-kit';

jest.setTimeout(120_000);

const rid = requestIds('r');

describe('host integration review: server API', () => {
  let t: TestApp;
  let api: ApiClient;
  const { server, groupMessages } = useReviewApp((app) => ({ t, api } = app));

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

  describe('rate limit', () => {
    it('past server_api the host gets 1005; an unauthenticated caller does not spend it', async () => {
      const limited = await startTestApp({
        RATE_LIMITS:
          'send=100000/1s,friend_request=100000/1s,report=100000/1s,client_error=100000/1s,media_upload=100000/1s,server_api=5/60s',
      });
      try {
        // The limit counts in fixed windows of the clock's minutes: hold the clock inside one, so that
        // these requests cannot straddle a minute's edge on a slow machine.
        limited.clock.set(Math.ceil(limited.clock.now() / 60_000) * 60_000 + 1000);
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
