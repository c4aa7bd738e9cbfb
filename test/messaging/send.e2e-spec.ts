// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
// Black-box tests of search within one conversation, the modes of GET /app/sdk/messages,
// recall/delete edge cases, custom payloads, the keyword list and GET /app/sdk/unread against
// sync, written from the spec (2.2, 4.6, 4.7, 7), issue 3 and docs/messaging.md. Everything goes through
// HTTP; friendships and groups are made through their own endpoints.
import { DataSource } from 'typeorm';
import { TestApp, bearer, randomGroupId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, Msg, cmid, friendCid, groupCid } from '../helpers/api-client';
import { expectFail, expectOk, range, seqs } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

describe('Messaging core (black box)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('keyword moderation', () => {
    let k: TestApp;
    let kApi: ApiClient;
    beforeAll(async () => {
      k = await startTestApp({ BLOCKED_KEYWORDS: 'badword' });
      kApi = new ApiClient(k);
    });
    afterAll(() => k.close());

    it('refuses a text containing a configured keyword with 1203 and stores nothing', async () => {
      const a = await kApi.user();
      const b = await kApi.user();
      await kApi.befriend(a, b);
      const sendK = (text: string) =>
        kApi.raw.send(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content: { text } });
      expectFail(await sendK('this has a badword inside'), 1203);
      expectFail(await sendK('this has a BadWord inside'), 1203);
      const okReply = expectOk<{ message: Msg }>(await sendK('clean text'));
      expect(okReply.message.conversation_seq).toBe('1');
    });
  });

  // =====================================================================================
  describe('send validation and idempotency', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let c: IssuedUser;
    beforeAll(async () => {
      ({ a, b } = await factories.pair());
      c = await api.user();
      await api.befriend(a, c);
    });

    it('a retry with the same client_message_id and content returns the original message and event_id', async () => {
      const key = cmid();
      const first = await api.send(a, friendCid(b), 'idempotent', key);
      const again = await api.send(a, friendCid(b), 'idempotent', key);
      expect(again).toEqual(first);
      const w = await api.latest(a, friendCid(b));
      expect(w.messages.filter((m) => m.client_message_id === key)).toHaveLength(1);
      const rows: unknown[] = await db.query('SELECT id FROM outbox_events WHERE event_id = ?', [first.event_id]);
      expect(rows).toHaveLength(1);
      // the next message still takes the next sequence
      const next = await api.send(a, friendCid(b), 'next');
      expect(Number(next.message.conversation_seq)).toBe(Number(first.message.conversation_seq) + 1);
    });

    it('the same key with other content, another type or another conversation is refused with 1004', async () => {
      const key = cmid();
      const first = await api.send(a, friendCid(b), 'original', key);
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: key,
          type: 'text',
          content: { text: 'changed' },
        }),
        1004,
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: key,
          type: 'custom',
          content: { data: { text: 'original' } },
        }),
        1004,
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(c),
          client_message_id: key,
          type: 'text',
          content: { text: 'original' },
        }),
        1004,
      );
      const w = await api.latest(a, friendCid(b));
      expect(w.last_seq).toBe(first.message.conversation_seq);
      expect((await api.latest(a, friendCid(c))).messages.filter((m) => m.client_message_id === key)).toHaveLength(0);
    });

    it('the key is per sender: another sender may use the same key', async () => {
      const key = cmid();
      const fromA = await api.send(a, friendCid(b), 'same key', key);
      const fromB = await api.send(b, friendCid(a), 'same key', key);
      expect(fromB.message.mid).not.toBe(fromA.message.mid);
      expect(Number(fromB.message.conversation_seq)).toBe(Number(fromA.message.conversation_seq) + 1);
      expect(fromB.event_id).not.toBe(fromA.event_id);
    });

    it('a retry after the original was recalled still does not create a second message', async () => {
      const key = cmid();
      const first = await api.send(a, friendCid(b), 'to be recalled', key);
      await api.recall(a, friendCid(b), first.message.mid);
      const again = await api.raw.send(a, {
        conversation_id: friendCid(b),
        client_message_id: key,
        type: 'text',
        content: { text: 'to be recalled' },
      });
      if (again.body.code === 0) expect(again.body.data.message.mid).toBe(first.message.mid);
      const w = await api.latest(a, friendCid(b));
      expect(w.last_seq).toBe(first.message.conversation_seq);
    });

    it.each<[string, unknown]>([
      ['empty', ''],
      ['65 chars', 'k'.repeat(65)],
      ['a space', 'a b'],
      ['a slash', 'a/b'],
      ['non-ASCII', 'ключ'],
      ['a number', 12345],
      ['missing', undefined],
    ])('refuses a client_message_id that is %s with 1004', async (_label, value) => {
      const body: Body = { conversation_id: friendCid(b), type: 'text', content: { text: 'x' } };
      if (value !== undefined) body.client_message_id = value;
      expectFail(await api.raw.send(a, body), 1004);
    });

    it('accepts a 64-char client_message_id using every allowed character class', async () => {
      const key = `Az09._:-${'q'.repeat(56)}`;
      expect(key).toHaveLength(64);
      const s = await api.send(a, friendCid(b), 'long key', key);
      expect(s.message.client_message_id).toBe(key);
    });

    it.each<[string, unknown]>([
      ['missing text', {}],
      ['empty text', { text: '' }],
      ['blank text', { text: '   \n\t ' }],
      ['5001 chars', { text: 'x'.repeat(5001) }],
      ['a number', { text: 5 }],
      ['null content', null],
      ['a string content', 'hello'],
      ['an array content', ['hello']],
    ])('refuses text content with %s (1004)', async (_label, content) => {
      expectFail(
        await api.raw.send(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'text', content }),
        1004,
      );
    });

    it('accepts 5000-char text and drops unknown content fields', async () => {
      const s = await api.send(a, friendCid(b), 'y'.repeat(5000));
      expect((s.message.content as { text: string }).text).toHaveLength(5000);
      const extra = expectOk<{ message: Msg }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'hi', extra: 'drop me', html: '<b>' },
        }),
      );
      expect(extra.message.content).toEqual({ text: 'hi' });
      const w = await api.latest(b, friendCid(a));
      expect(w.messages.find((m) => m.mid === extra.message.mid)?.content).toEqual({ text: 'hi' });
    });

    it('accepts custom content and refuses invalid custom content with 1004', async () => {
      const okCustom = expectOk<{ message: Msg }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'custom',
          content: { data: { kind: 'card', n: 1 }, description: 'd'.repeat(200), junk: 1 },
        }),
      );
      expect(okCustom.message).toMatchObject({
        type: 'custom',
        content: { data: { kind: 'card', n: 1 }, description: 'd'.repeat(200) },
      });
      expect(okCustom.message.content).not.toHaveProperty('junk');
      const noDescription = expectOk<{ message: Msg }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'custom',
          content: { data: {} },
        }),
      );
      expect(noDescription.message.content).toMatchObject({ data: {} });
      // data whose JSON is exactly 8192 chars is accepted; 8193 is refused
      const pad = (n: number) => ({ p: 'z'.repeat(n - JSON.stringify({ p: '' }).length) });
      expect(JSON.stringify(pad(8192))).toHaveLength(8192);
      expectOk(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'custom',
          content: { data: pad(8192) },
        }),
      );
      for (const content of [
        { data: pad(8193) },
        { data: [1, 2] },
        { data: 'str' },
        {},
        { data: {}, description: 'd'.repeat(201) },
        { data: {}, description: 5 },
      ]) {
        expectFail(
          await api.raw.send(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'custom', content }),
          1004,
        );
      }
    });

    it('refuses an unknown type with 1004', async () => {
      for (const type of ['video', 'TEXT', '', 5]) {
        expectFail(
          await api.raw.send(a, {
            conversation_id: friendCid(b),
            client_message_id: cmid(),
            type,
            content: { text: 'x' },
          }),
          1004,
        );
      }
    });

    it('refuses a missing or non-string conversation_id with 1004', async () => {
      expectFail(await api.raw.send(a, { client_message_id: cmid(), type: 'text', content: { text: 'x' } }), 1004);
      expectFail(
        await api.raw.send(a, { conversation_id: 5, client_message_id: cmid(), type: 'text', content: { text: 'x' } }),
        1004,
      );
    });

    it('counts characters, not bytes: 5000 CJK characters, 200-char non-ASCII description, 8192-char non-ASCII data', async () => {
      const cjk = '字'.repeat(5000);
      const s1 = await api.send(a, friendCid(b), cjk);
      expect((s1.message.content as { text: string }).text).toBe(cjk);
      expect(
        (
          (await api.latest(b, friendCid(a))).messages.find((m) => m.mid === s1.message.mid)?.content as {
            text: string;
          }
        ).text,
      ).toBe(cjk);
      const emoji = await api.send(a, friendCid(b), 'hi 😀 👍🏽');
      expect(emoji.message.content).toEqual({ text: 'hi 😀 👍🏽' });
      const description = 'é'.repeat(200);
      const data = { p: 'ü'.repeat(8192 - JSON.stringify({ p: '' }).length) };
      expect(JSON.stringify(data)).toHaveLength(8192);
      const custom = expectOk<{ message: Msg }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'custom',
          content: { data, description },
        }),
      );
      expect(custom.message.content).toEqual({ data, description });
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: '字'.repeat(5001) },
        }),
        1004,
      );
    });

    it('refuses text made only of Unicode spaces (blank) with 1004', async () => {
      for (const text of ['\u3000\u3000', '\u00a0', ' \u2003 ']) {
        expectFail(
          await api.raw.send(a, {
            conversation_id: friendCid(b),
            client_message_id: cmid(),
            type: 'text',
            content: { text },
          }),
          1004,
        );
      }
    });

    it('a retry whose only difference is an unknown (dropped) field is the same message', async () => {
      const key = cmid();
      const first = await api.send(a, friendCid(b), 'same after drop', key);
      const again = expectOk<{ message: Msg; event_id: string }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: key,
          type: 'text',
          content: { text: 'same after drop', extra: true },
        }),
      );
      expect(again).toEqual(first);
    });

    it('a retry of custom content with the same data in another key order is the same message', async () => {
      const key = cmid();
      const first = expectOk<{ message: Msg; event_id: string }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: key,
          type: 'custom',
          content: { data: { x: 1, y: 2 } },
        }),
      );
      const again = expectOk<{ message: Msg; event_id: string }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: key,
          type: 'custom',
          content: { data: { y: 2, x: 1 } },
        }),
      );
      expect(again.message.mid).toBe(first.message.mid);
      expect(again.event_id).toBe(first.event_id);
    });

    it('an idempotent retry is answered even after the clock passed the recall window, and the message keeps its seq', async () => {
      const key = cmid();
      const first = await api.send(a, friendCid(b), 'old retry', key);
      t.clock.advance(600_000);
      const again = await api.send(a, friendCid(b), 'old retry', key);
      expect(again.message.mid).toBe(first.message.mid);
      expect(again.message.conversation_seq).toBe(first.message.conversation_seq);
      expect(again.event_id).toBe(first.event_id);
    });
  });

  // =====================================================================================
  describe('HTTP conventions on the messaging endpoints', () => {
    it('every reply carries Cache-Control: no-store, success or failure', async () => {
      const { a, b } = await factories.pair();
      const s = await api.raw.send(a, {
        conversation_id: friendCid(b),
        client_message_id: cmid(),
        type: 'text',
        content: { text: 'cc' },
      });
      const mid: string = s.body.data.message.mid;
      const replies = [
        s,
        await api.raw.send(a, {
          conversation_id: 'bad',
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'cc' },
        }),
        await api.raw.read(b, friendCid(a), '1'),
        await api.raw.messages(b, { conversation_id: friendCid(a), after_seq: '0' }),
        await api.raw.messages(b, { conversation_id: friendCid(a) }),
        await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'cc' }),
        await api.raw.recall(a, friendCid(b), mid),
        await api.raw.delete(a, friendCid(b), mid),
        await api.raw.sync(a),
        await api.raw.unread(a),
      ];
      expect(replies.map((r) => r.headers['cache-control'])).toEqual(replies.map(() => 'no-store'));
    });

    it('refuses a missing token with 1101 and a bad token with 1102 on every messaging endpoint', async () => {
      const calls = [
        () => t.http.post('/app/sdk/messages/send').send({}),
        () => t.http.post('/app/sdk/messages/recall').send({}),
        () => t.http.post('/app/sdk/messages/delete').send({}),
        () => t.http.post('/app/sdk/messages/read').send({}),
        () => t.http.get('/app/sdk/messages').query({ conversation_id: 'x' }),
        () => t.http.get('/app/sdk/messages/search').query({ conversation_id: 'x', keyword: 'y' }),
        () => t.http.post('/app/sdk/sync').send({}),
        () => t.http.get('/app/sdk/unread'),
        () => t.http.post('/app/sdk/conversations/pin').send({}),
      ];
      for (const call of calls) {
        expectFail(await call(), 1101);
        expectFail(await call().set('Authorization', 'Bearer not-a-jwt'), 1102);
      }
    });

    it('answers repeated query parameters and non-string body fields with 1004, never a fault', async () => {
      const { a, b } = await factories.pair();
      await api.send(a, friendCid(b), 'dup');
      const dup = (query: string) => t.http.get(`/app/sdk/messages?${query}`).set(...bearer(b.token));
      const cid = encodeURIComponent(friendCid(a));
      expectFail(await dup(`conversation_id=${cid}&before_seq=5&before_seq=6`), 1004);
      expectFail(await dup(`conversation_id=${cid}&conversation_id=${cid}&before_seq=5`), 1004);
      expectFail(
        await t.http.get(`/app/sdk/messages/search?conversation_id=${cid}&keyword=a&keyword=b`).set(...bearer(b.token)),
        1004,
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: [friendCid(b)],
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1004,
      );
      expectFail(await api.raw.recall(a, friendCid(b), 1 as unknown as string), 1004);
      expectFail(await api.raw.read(b, { id: 1 }, '1'), 1004);
    });
  });

  // =====================================================================================
  describe('capabilities closed', () => {
    let k: TestApp;
    let kApi: ApiClient;
    beforeAll(async () => {
      k = await startTestApp({ CAPABILITIES_CLOSED: 'search' });
      kApi = new ApiClient(k);
    });
    afterAll(() => k.close());

    it('search answers 1202 and sync reports search:false', async () => {
      const a = await kApi.user();
      const b = await kApi.user();
      await kApi.befriend(a, b);
      expectOk(
        await kApi.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'apple' },
        }),
      );
      expectFail(await kApi.raw.search(a, { conversation_id: friendCid(b), keyword: 'apple' }), 1202);
      const s = expectOk<{ capabilities: Record<string, boolean> }>(await kApi.raw.sync(a));
      expect(s.capabilities).toEqual({
        friends: true,
        groups: true,
        calls: expect.any(Boolean),
        search: false,
        media: expect.any(Boolean),
      });
    });
  });

  // =====================================================================================
  describe('sequences', () => {
    it('concurrent retries of one client_message_id create exactly one message', async () => {
      const { a, b } = await factories.pair();
      const key = cmid();
      const replies = await Promise.all(
        range(1, 5).map(() =>
          api.raw.send(a, {
            conversation_id: friendCid(b),
            client_message_id: key,
            type: 'text',
            content: { text: 'race' },
          }),
        ),
      );
      const ok0 = replies.filter((r) => r.body.code === 0).map((r) => r.body.data);
      expect(ok0.length).toBeGreaterThan(0);
      expect(new Set(ok0.map((d) => d.message.mid)).size).toBe(1);
      expect(new Set(ok0.map((d) => d.event_id)).size).toBe(1);
      expect((await api.latest(b, friendCid(a))).last_seq).toBe('1');
      await api.expectUnread(b, { [friendCid(a)]: 1 });
    });

    // Kept last in the file: if the service stalls under concurrency, later tests are not affected.
    it('30 concurrent sends from several users get 1..30 with no gap or duplicate, promptly', async () => {
      const owner = await api.user();
      const x = await api.user();
      const y = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [x, y], pub);
      const cid = groupCid(pub);
      const senders = [owner, x, y];
      // Every send answering 0 shows that none met a lock-wait timeout.
      const replies = await Promise.all(
        range(1, 30).map((i) =>
          api.raw.send(senders[i % 3], {
            conversation_id: cid,
            client_message_id: cmid(),
            type: 'text',
            content: { text: `c${i}` },
          }),
        ),
      );
      const got = replies.map((r) => expectOk<{ message: Msg }>(r).message);
      expect(seqs(got).sort((p, q) => p - q)).toEqual(range(1, 30));
      expect(new Set(got.map((m) => m.mid)).size).toBe(30);
      const w = await api.latest(owner, cid);
      expect(seqs(w.messages)).toEqual(range(1, 30));
      expect(w.last_seq).toBe('30');
      await api.expectUnread(x, { [cid]: 20 });
    }, 300_000);
  });
});

describe('Search, message windows, recall/delete, custom payloads and unread (black box)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp({ BLOCKED_KEYWORDS: 'forbiddenword,spam offer' });
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('custom payloads and the keyword list', () => {
    it('stores custom data exactly (nesting, Unicode, null, numbers) and returns it in windows and search', async () => {
      const { a, b } = await factories.pair();
      const data = {
        card: { title: '标题 🎉', items: [1, 2.5, -3, true, null, 'x'], nested: { deep: { deeper: [{}] } } },
        empty: '',
        n: 0,
      };
      const m = expectOk<{ message: Msg }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'custom',
          content: { data, description: 'Order card' },
        }),
      ).message;
      expect(m.content).toEqual({ data, description: 'Order card' });
      const w = await api.latest(b, friendCid(a));
      expect(w.messages[0]).toMatchObject({ type: 'custom', content: { data, description: 'Order card' } });
      expect((await api.searchAll(b, friendCid(a), 'order')).map((x) => x.mid)).toEqual([m.mid]);
    });

    it('refuses lone surrogates and wrong types in custom and text content with 1004, storing nothing', async () => {
      const { a, b } = await factories.pair();
      const cid = friendCid(b);
      const raw = (json: string) =>
        t.http
          .post('/app/sdk/messages/send')
          .set(...bearer(a.token))
          .set('Content-Type', 'application/json')
          .send(json);
      expectFail(
        await raw(
          `{"conversation_id":"${cid}","client_message_id":"${cmid()}","type":"text","content":{"text":"a\\udc00b"}}`,
        ),
        1004,
        'text',
      );
      expectFail(
        await raw(
          `{"conversation_id":"${cid}","client_message_id":"${cmid()}","type":"custom","content":{"data":{},"description":"a\\ud800"}}`,
        ),
        1004,
        'description',
      );
      expectFail(
        await raw(
          `{"conversation_id":"${cid}","client_message_id":"${cmid()}","type":"custom","content":{"data":{"k":"\\ud800"}}}`,
        ),
        1004,
        'data',
      );
      expectFail(
        await raw(
          `{"conversation_id":"${cid}","client_message_id":"${cmid()}","type":"custom","content":{"data":{"\\ud800":"v"}}}`,
        ),
        1004,
        'data',
      );
      expectFail(
        await api.raw.send(a, { conversation_id: cid, client_message_id: cmid(), type: 'text', content: { text: 5 } }),
        1004,
        'text',
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: ['hi'] },
        }),
        1004,
        'text',
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'custom',
          content: { data: null },
        }),
        1004,
        'data',
      );
      expectFail(
        await api.raw.send(a, { conversation_id: cid, client_message_id: 12345, type: 'text', content: { text: 'x' } }),
        1004,
        'client_message_id',
      );
      expectFail(
        await api.raw.send(a, { conversation_id: cid, client_message_id: cmid(), type: 'text', content: 'hello' }),
        1004,
        'content',
      );
      expect((await api.latest(b, friendCid(a))).last_seq).toBe('0');
    });

    it('a keyword in a custom description is refused with 1203, in custom data it is not; nothing is stored and no sequence is lost', async () => {
      const { a, b } = await factories.pair();
      const cid = friendCid(b);
      const key = cmid();
      expectFail(
        await api.raw.send(a, {
          conversation_id: cid,
          client_message_id: key,
          type: 'custom',
          content: { data: {}, description: 'buy the FORBIDDENWORD now' },
        }),
        1203,
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'a spam offer for you' },
        }),
        1203,
      );
      expectFail(
        await api.raw.send(a, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'forbiddenword' },
        }),
        1203,
      );
      expect((await api.latest(b, friendCid(a))).last_seq).toBe('0');
      await api.expectUnread(b, { [friendCid(a)]: 0 });
      // the refused key is free for clean content
      const clean = expectOk<{ message: Msg }>(
        await api.raw.send(a, {
          conversation_id: cid,
          client_message_id: key,
          type: 'custom',
          content: { data: { note: 'forbiddenword in data' }, description: 'fine' },
        }),
      ).message;
      expect(clean.conversation_seq).toBe('1');
      // "spam" alone and "offer" alone are not the phrase
      expect(
        expectOk<{ message: Msg }>(
          await api.raw.send(a, {
            conversation_id: cid,
            client_message_id: cmid(),
            type: 'text',
            content: { text: 'spam or an offer' },
          }),
        ).message.conversation_seq,
      ).toBe('2');
      await api.expectUnread(b, { [friendCid(a)]: 2 });
    });

    it('the keyword list also applies in groups', async () => {
      const owner = await api.user();
      const m = await api.user();
      const groupId = await api.createGroup(owner, [m]);
      expectFail(
        await api.raw.send(m, {
          conversation_id: groupCid(groupId),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'Spam Offer inside' },
        }),
        1203,
      );
      expect((await api.latest(owner, groupCid(groupId))).last_seq).toBe('0');
    });
  });
});
