// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
// Black-box tests of search within one conversation, the modes of GET /app/sdk/messages,
// recall/delete edge cases, custom payloads, the keyword list and GET /app/sdk/unread against
// sync, written from the spec (2.2, 4.6, 4.7, 7), issue 3 and docs/messaging.md. Everything goes through
// HTTP; friendships and groups are made through their own endpoints.
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, Msg, cmid, friendCid, groupCid, SearchPage } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

describe('Messaging core (black box)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('GET /app/sdk/messages/search', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let c: IssuedUser;
    let matches: Msg[];
    beforeAll(async () => {
      ({ a, b } = await factories.pair());
      c = await api.user();
      await api.befriend(a, c);
      matches = [];
      for (let i = 1; i <= 45; i += 1) {
        const variant = ['Apple pie', 'green APPLE', 'applesauce', 'an aPpLe a day'][i % 4];
        matches.push((await api.send(i % 2 ? a : b, friendCid(i % 2 ? b : a), `${variant} #${i}`)).message);
        if (i % 5 === 0) await api.send(a, friendCid(b), 'nothing to see');
      }
      // tombstones are excluded
      await api.recall(a, friendCid(b), matches[0].mid);
      await api.deleteMessage(b, friendCid(a), matches[1].mid);
      await api.send(a, friendCid(c), 'apple in another conversation');
    });
    const live = (): Msg[] => matches.slice(2);

    async function collect(
      u: IssuedUser,
      cid: string,
      keyword: string,
      mode: 'cursor' | 'before_mid',
    ): Promise<{ pages: Msg[][] }> {
      const pages: Msg[][] = [];
      let query: Record<string, string> = { conversation_id: cid, keyword };
      for (let guard = 0; guard < 30; guard += 1) {
        const page = expectOk<{
          items: Msg[];
          next_cursor: string | null;
          has_more: boolean;
          next_before_mid: string | null;
        }>(await api.raw.search(u, query));
        pages.push(page.items);
        if (!page.has_more) {
          expect(page.next_cursor).toBeNull();
          break;
        }
        expect(page.items.length).toBeGreaterThan(0);
        if (mode === 'cursor') {
          expect(typeof page.next_cursor).toBe('string');
          query = { conversation_id: cid, keyword, cursor: page.next_cursor as string };
        } else {
          expect(page.next_before_mid).toBe(page.items[page.items.length - 1].mid);
          query = { conversation_id: cid, keyword, before_mid: page.next_before_mid as string };
        }
      }
      return { pages };
    }

    it('pages through every live match newest first, case-insensitively, with no tombstones (cursor)', async () => {
      const { pages } = await collect(b, friendCid(a), 'apple', 'cursor');
      const items = pages.flat();
      expect(pages.length).toBeGreaterThan(1);
      expect(items.map((m) => m.mid)).toEqual(
        live()
          .map((m) => m.mid)
          .reverse(),
      );
      expect(
        items.every((m) => m.conversation_id === friendCid(a) && m.status === 'normal' && m.content !== null),
      ).toBe(true);
    });

    it('pages the same way by before_mid', async () => {
      const { pages } = await collect(a, friendCid(b), 'APPLE', 'before_mid');
      const items = pages.flat();
      expect(items.map((m) => m.mid)).toEqual(
        live()
          .map((m) => m.mid)
          .reverse(),
      );
      expect(items.every((m) => m.conversation_id === friendCid(b))).toBe(true);
    });

    it('finds nothing for a keyword that only matches a tombstone or another conversation', async () => {
      const r = expectOk<{ items: Msg[]; has_more: boolean; next_cursor: string | null }>(
        await api.raw.search(a, { conversation_id: friendCid(b), keyword: 'another conversation' }),
      );
      expect(r).toMatchObject({ items: [], has_more: false, next_cursor: null });
      const r2 = expectOk<{ items: Msg[] }>(await api.raw.search(a, { conversation_id: friendCid(b), keyword: '#1 ' }));
      expect(r2.items).toEqual([]);
    });

    it('treats LIKE wildcards in the keyword literally', async () => {
      const r = expectOk<{ items: Msg[] }>(await api.raw.search(a, { conversation_id: friendCid(b), keyword: '%' }));
      expect(r.items).toEqual([]);
      const r2 = expectOk<{ items: Msg[] }>(
        await api.raw.search(a, { conversation_id: friendCid(b), keyword: 'a_ple' }),
      );
      expect(r2.items).toEqual([]);
    });

    it('refuses reusing a cursor with another keyword, conversation, account or endpoint (1004)', async () => {
      const first = expectOk<{ next_cursor: string; has_more: boolean }>(
        await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'apple' }),
      );
      expect(first.has_more).toBe(true);
      const cursor = first.next_cursor;
      expectFail(await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'pie', cursor }), 1004);
      expectFail(await api.raw.search(a, { conversation_id: friendCid(b), keyword: 'apple', cursor }), 1004);
      expectFail(await api.raw.search(a, { conversation_id: friendCid(c), keyword: 'apple', cursor }), 1004);
      expectFail(await api.raw.sync(b, { cursor }), 1004);
      const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
      expectFail(await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'apple', cursor: tampered }), 1004);
      expectFail(await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'apple', cursor: 'garbage' }), 1004);
      // the same request with the cursor unchanged still works
      expectOk(await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'apple', cursor }));
    });

    it('refuses page/offset/limit and a missing or blank keyword with 1004', async () => {
      for (const extra of [{ page: '2' }, { offset: '10' }, { limit: '5' }] as Array<Record<string, string>>) {
        expectFail(await api.raw.search(a, { conversation_id: friendCid(b), keyword: 'apple', ...extra }), 1004);
      }
      expectFail(await api.raw.search(a, { conversation_id: friendCid(b) }), 1004);
      expectFail(await api.raw.search(a, { conversation_id: friendCid(b), keyword: '' }), 1004);
      expectFail(await api.raw.search(a, { keyword: 'apple' }), 1004);
    });

    it('is case-insensitive beyond ASCII', async () => {
      const { a: x, b: y } = await factories.pair();
      const m = await api.send(x, friendCid(y), 'Grüße aus MÜNCHEN, ΣΟΦΙΑ');
      for (const keyword of ['münchen', 'MÜNCHEN', 'grÜße', 'σοφια']) {
        const r = expectOk<{ items: Msg[] }>(await api.raw.search(y, { conversation_id: friendCid(x), keyword }));
        expect({ keyword, mids: r.items.map((i) => i.mid) }).toEqual({ keyword, mids: [m.message.mid] });
      }
    });

    it('does not let the last page of one keyword leak into search results as tombstones after a recall', async () => {
      const { a: x, b: y } = await factories.pair();
      const m1 = await api.send(x, friendCid(y), 'banana one');
      const m2 = await api.send(x, friendCid(y), 'banana two');
      await api.recall(x, friendCid(y), m2.message.mid);
      const r = expectOk<{
        items: Msg[];
        has_more: boolean;
        next_cursor: string | null;
        next_before_mid: string | null;
      }>(await api.raw.search(y, { conversation_id: friendCid(x), keyword: 'banana' }));
      expect(r.items.map((i) => i.mid)).toEqual([m1.message.mid]);
      expect(r).toMatchObject({ has_more: false, next_cursor: null });
    });

    it('a search cursor does not repeat results when new matches arrive between pages', async () => {
      const page1 = expectOk<{ items: Msg[]; next_cursor: string; has_more: boolean }>(
        await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'apple' }),
      );
      expect(page1.has_more).toBe(true);
      for (let i = 0; i < 3; i += 1) await api.send(a, friendCid(b), `fresh apple ${i}`);
      const page2 = expectOk<{ items: Msg[] }>(
        await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'apple', cursor: page1.next_cursor }),
      );
      const first = page1.items.map((m) => m.mid);
      expect(page2.items.map((m) => m.mid).filter((mid) => first.includes(mid))).toEqual([]);
      expect(page2.items[0].mid).toBe(live()[live().length - 1 - page1.items.length].mid);
    });

    it('refuses search by an outsider with 1201', async () => {
      const outsider = await api.user();
      const pub = randomGroupId();
      const owner = await api.user();
      await factories.group(owner, [], pub);
      await api.send(owner, groupCid(pub), 'apple in group');
      expectFail(await api.raw.search(outsider, { conversation_id: groupCid(pub), keyword: 'apple' }), 1201);
    });
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
  describe('search within one conversation', () => {
    it('a group search shows each member only what he may see (late joiner, removed member), paged by before_mid and by cursor', async () => {
      const owner = await api.user();
      const stayer = await api.user();
      const leaver = await api.user();
      const late = await api.user();
      const groupId = await api.createGroup(owner, [stayer, leaver]);
      const cid = groupCid(groupId);
      const before = await api.sendMany(owner, cid, 12, 'kiwi early');
      await api.addMembers(owner, groupId, [late]);
      const middle = await api.sendMany(stayer, cid, 12, 'kiwi middle');
      await api.removeMembers(owner, groupId, [leaver]);
      const after = await api.sendMany(late, cid, 12, 'kiwi after');
      const mids = (ms: Msg[]) => ms.map((m) => m.mid).reverse();
      for (const by of ['before_mid', 'cursor'] as const) {
        expect({ by, who: 'owner', mids: (await api.searchAll(owner, cid, 'KIWI', by)).map((m) => m.mid) }).toEqual({
          by,
          who: 'owner',
          mids: mids([...before, ...middle, ...after]),
        });
        expect({ by, who: 'late', mids: (await api.searchAll(late, cid, 'kiwi', by)).map((m) => m.mid) }).toEqual({
          by,
          who: 'late',
          mids: mids([...middle, ...after]),
        });
        expect({ by, who: 'leaver', mids: (await api.searchAll(leaver, cid, 'kiwi', by)).map((m) => m.mid) }).toEqual({
          by,
          who: 'leaver',
          mids: mids([...before, ...middle]),
        });
      }
      // a before_mid the late joiner got from elsewhere does not open older messages
      const page = expectOk<SearchPage>(
        await api.raw.search(late, { conversation_id: cid, keyword: 'kiwi', before_mid: middle[0].mid }),
      );
      expect(page.items).toEqual([]);
      expect(page.has_more).toBe(false);
      // results carry the caller's conversation id
      expect((await api.searchAll(late, cid, 'kiwi')).every((m) => m.conversation_id === cid)).toBe(true);
    });

    it('finds custom descriptions, never tombstones of any kind (recall, delete by sender, delete by an admin)', async () => {
      const owner = await api.user();
      const member = await api.user();
      const groupId = await api.createGroup(owner, [member]);
      const cid = groupCid(groupId);
      const custom = expectOk<{ message: Msg }>(
        await api.raw.send(member, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'custom',
          content: { data: { k: 'v' }, description: 'Mango card' },
        }),
      ).message;
      const recalled = (await api.send(member, cid, 'mango recalled')).message;
      const deleted = (await api.send(member, cid, 'mango deleted')).message;
      const adminDeleted = (await api.send(member, cid, 'mango removed by owner')).message;
      const kept = (await api.send(member, cid, 'mango kept')).message;
      const customGone = expectOk<{ message: Msg }>(
        await api.raw.send(member, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'custom',
          content: { data: {}, description: 'mango custom gone' },
        }),
      ).message;
      expectOk(await api.raw.recall(member, cid, recalled.mid));
      expectOk(await api.raw.delete(member, cid, deleted.mid));
      expectOk(await api.raw.delete(owner, cid, adminDeleted.mid));
      expectOk(await api.raw.recall(member, cid, customGone.mid));
      for (const u of [owner, member]) {
        const found = await api.searchAll(u, cid, 'mango');
        expect(found.map((m) => m.mid)).toEqual([kept.mid, custom.mid]);
        expect(found.every((m) => m.status === 'normal' && m.content !== null)).toBe(true);
      }
      // custom data is not a description: not searched
      expect((await api.searchAll(owner, cid, '"k"')).map((m) => m.mid)).toEqual([]);
    });

    it('a before_mid inside the results pages strictly older; a before_mid of a newer message than all gives everything', async () => {
      const { a, b } = await factories.pair();
      const cid = friendCid(b);
      const ms = await api.sendMany(a, cid, 5, 'plum');
      const p = expectOk<SearchPage>(
        await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'plum', before_mid: ms[3].mid }),
      );
      expect(p.items.map((m) => m.mid)).toEqual([ms[2].mid, ms[1].mid, ms[0].mid]);
      expect(p).toMatchObject({ has_more: false, next_cursor: null });
      const after = (await api.send(a, cid, 'unrelated')).message;
      const all = expectOk<SearchPage>(
        await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'plum', before_mid: after.mid }),
      );
      expect(all.items).toHaveLength(5);
    });

    it('has_more is exact at page edges (pages of 20): 40 live matches, 20 live + older tombstones, tombstones between pages', async () => {
      const { a, b } = await factories.pair();
      const cid = friendCid(b);
      // 20 live matches with 3 older tombstones: one page, no more
      const old = await api.sendMany(a, cid, 3, 'cherry old');
      for (const m of old) expectOk(await api.raw.recall(a, cid, m.mid));
      const live20 = await api.sendMany(a, cid, 20, 'cherry live');
      const p1 = expectOk<SearchPage>(await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'cherry' }));
      expect(p1.items.map((m) => m.mid)).toEqual(live20.map((m) => m.mid).reverse());
      expect(p1).toMatchObject({ has_more: false, next_cursor: null, next_before_mid: null });
      // 20 more live matches, the last 5 recalled, then 5 more live: 40 live in all, 2 full pages, then no more
      const mid20 = await api.sendMany(a, cid, 20, 'cherry mid');
      for (const m of mid20.slice(15)) expectOk(await api.raw.recall(a, cid, m.mid));
      const top5 = await api.sendMany(a, cid, 5, 'cherry top');
      const liveAll = [...live20, ...mid20.slice(0, 15), ...top5].map((m) => m.mid).reverse();
      for (const by of ['before_mid', 'cursor'] as const) {
        const q1 = expectOk<SearchPage>(await api.raw.search(b, { conversation_id: friendCid(a), keyword: 'cherry' }));
        expect(q1.items.map((m) => m.mid)).toEqual(liveAll.slice(0, 20));
        expect(q1.has_more).toBe(true);
        const q2 = expectOk<SearchPage>(
          await api.raw.search(
            b,
            by === 'cursor'
              ? { conversation_id: friendCid(a), keyword: 'cherry', cursor: q1.next_cursor as string }
              : { conversation_id: friendCid(a), keyword: 'cherry', before_mid: q1.next_before_mid as string },
          ),
        );
        expect({ by, mids: q2.items.map((m) => m.mid) }).toEqual({ by, mids: liveAll.slice(20, 40) });
        expect({ by, has_more: q2.has_more, next_cursor: q2.next_cursor, next_before_mid: q2.next_before_mid }).toEqual(
          { by, has_more: false, next_cursor: null, next_before_mid: null },
        );
      }
    });

    it('refuses bad search parameters with 1004 naming the field', async () => {
      const { a, b } = await factories.pair();
      const cid = friendCid(b);
      await api.send(a, cid, 'pear');
      const cases: Array<[Record<string, string>, string]> = [
        [{ conversation_id: cid, keyword: 'k'.repeat(101) }, 'keyword'],
        [{ conversation_id: cid, keyword: 'a\u0001b' }, 'keyword'],
        [{ conversation_id: cid, keyword: 'pear', before_mid: '0' }, 'before_mid'],
        [{ conversation_id: cid, keyword: 'pear', before_mid: '01' }, 'before_mid'],
        [{ conversation_id: cid, keyword: 'pear', before_mid: '-3' }, 'before_mid'],
        [{ conversation_id: cid, keyword: 'pear', before_mid: 'abc' }, 'before_mid'],
        [{ conversation_id: cid, keyword: 'pear', before_mid: '' }, 'before_mid'],
        [{ conversation_id: cid, keyword: 'pear', before_mid: '99999999999999999999' }, 'before_mid'],
        [{ conversation_id: '', keyword: 'pear' }, 'conversation_id'],
        [{ conversation_id: 'nonsense_x', keyword: 'pear' }, 'conversation_id'],
        [{ conversation_id: `${cid}=`, keyword: 'pear' }, 'conversation_id'],
        [{ conversation_id: cid, keyword: 'pear', limit: '5' }, 'limit'],
      ];
      for (const [query, field] of cases) expectFail(await api.raw.search(a, query), 1004, field);
      expect(
        expectOk<SearchPage>(await api.raw.search(a, { conversation_id: cid, keyword: 'p'.repeat(100) })).items,
      ).toEqual([]);
    });

    it('refuses search in a conversation the caller cannot access with 1201 (stranger, absent group, non-friend)', async () => {
      const owner = await api.user();
      const stranger = await api.user();
      const groupId = await api.createGroup(owner, []);
      await api.send(owner, groupCid(groupId), 'secret lime');
      expectFail(await api.raw.search(stranger, { conversation_id: groupCid(groupId), keyword: 'lime' }), 1201);
      expectFail(await api.raw.search(stranger, { conversation_id: groupCid(randomGroupId()), keyword: 'lime' }), 1201);
      expectFail(await api.raw.search(stranger, { conversation_id: friendCid(owner), keyword: 'lime' }), 1201);
      expectFail(
        await api.raw.search(stranger, {
          conversation_id: `friend_${Buffer.from(randomUserId()).toString('base64url')}`,
          keyword: 'lime',
        }),
        1201,
      );
    });
  });
});
