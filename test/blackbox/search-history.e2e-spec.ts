// Black-box tests of search within one conversation, the modes of GET /app/sdk/messages,
// recall/delete edge cases, custom payloads, the keyword list and GET /app/sdk/unread against
// sync, written from the spec (2.2, 4.6, 4.7, 7), issue 3 and docs/messaging.md. Everything goes through
// HTTP; friendships and groups are made through their own endpoints.
import { TestApp, bearer, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import {
  ApiClient,
  Body,
  IssuedUser,
  Msg,
  SearchPage,
  SyncItem,
  cmid,
  friendCid,
  groupCid,
  trioOf,
} from '../helpers/api-client';
import { expectFail, expectOk, range, seqs } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

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

  // =====================================================================================
  describe('GET /app/sdk/messages modes', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let all: Msg[];
    beforeAll(async () => {
      ({ a, b } = await factories.pair());
      all = await api.sendMany(a, friendCid(b), 120, 'w');
    });

    it('around_mid gives 25 before, the message and 24 after, with both flags, in the middle', async () => {
      const w = await api.window(b, friendCid(a), { around_mid: all[59].mid });
      expect(w.outcome).toBeDefined();
      expect(seqs(w.messages)).toEqual(range(35, 84));
      expect(w).toMatchObject({ has_more_before: true, has_more_after: true, last_seq: '120' });
    });

    it('around_mid at the edges: no more before at the first message, no more after at the last', async () => {
      const first = await api.window(b, friendCid(a), { around_mid: all[0].mid });
      expect(seqs(first.messages)[0]).toBe(1);
      expect(first.has_more_before).toBe(false);
      expect(first.has_more_after).toBe(seqs(first.messages).slice(-1)[0] < 120);
      const last = await api.window(b, friendCid(a), { around_mid: all[119].mid });
      expect(seqs(last.messages)).toEqual(range(95, 120));
      expect(last).toMatchObject({ has_more_before: true, has_more_after: false });
    });

    it('around_mid of a tombstone still locates it', async () => {
      const { a: x, b: y } = await factories.pair();
      const ms = await api.sendMany(x, friendCid(y), 3, 'tomb');
      expectOk(await api.raw.recall(x, friendCid(y), ms[1].mid));
      const w = await api.window(y, friendCid(x), { around_mid: ms[1].mid });
      expect(seqs(w.messages)).toEqual([1, 2, 3]);
      expect(w.messages[1]).toMatchObject({ status: 'recalled', content: null });
      expect(w).toMatchObject({ has_more_before: false, has_more_after: false });
    });

    it('tail calibration: unchanged after nothing happened, reset after a send, a recall, a delete, each once', async () => {
      const { a: x, b: y } = await factories.pair();
      const ms = await api.sendMany(x, friendCid(y), 3, 'cal');
      let w = await api.latest(y, friendCid(x));
      const same = await api.window(y, friendCid(x), trioOf(w));
      expect(same).toMatchObject({ outcome: 'unchanged', messages: [], last_seq: '3' });
      const steps: Array<[string, () => Promise<unknown>]> = [
        ['send', () => api.send(x, friendCid(y), 'cal 4')],
        ['recall', async () => expectOk(await api.raw.recall(x, friendCid(y), ms[0].mid))],
        ['delete', async () => expectOk(await api.raw.delete(x, friendCid(y), ms[1].mid))],
        ['read by the reader', async () => expectOk(await api.raw.read(y, friendCid(x), '2'))],
      ];
      for (const [label, step] of steps) {
        await step();
        const r = await api.window(y, friendCid(x), trioOf(w));
        if (label === 'read by the reader') {
          // a read changes no message content: the window is unchanged
          expect({ label, outcome: r.outcome }).toEqual({ label, outcome: 'unchanged' });
        } else {
          expect({ label, outcome: r.outcome, seqs: seqs(r.messages) }).toEqual({
            label,
            outcome: 'reset',
            seqs: range(1, Number(r.last_seq)),
          });
          const again = await api.window(y, friendCid(x), trioOf(r));
          expect({ label, outcome: again.outcome }).toEqual({ label, outcome: 'unchanged' });
        }
        w = r.outcome === 'reset' ? r : w;
      }
    });

    it.each<[string, Record<string, string>, string[]]>([
      [
        'known_last_seq with a plus sign',
        { known_last_seq: '+1', known_updated_at: '1', known_deletion_revision: '0' },
        ['known_last_seq'],
      ],
      [
        'known_updated_at with a leading zero',
        { known_last_seq: '1', known_updated_at: '01', known_deletion_revision: '0' },
        ['known_updated_at'],
      ],
      [
        'known_deletion_revision as a word',
        { known_last_seq: '1', known_updated_at: '1', known_deletion_revision: 'zero' },
        ['known_deletion_revision'],
      ],
      [
        'known_deletion_revision empty',
        { known_last_seq: '1', known_updated_at: '1', known_deletion_revision: '' },
        ['known_deletion_revision'],
      ],
      ['after_seq with spaces', { after_seq: ' 5' }, ['after_seq']],
      ['after_seq "true"', { after_seq: 'true' }, ['after_seq']],
      ['before_seq in exponent form', { before_seq: '1e2' }, ['before_seq']],
      ['around_mid with a leading zero', { around_mid: '07' }, ['around_mid']],
      [
        'partial trio (two of three)',
        { known_last_seq: '1', known_updated_at: '1' },
        ['known_deletion_revision', 'known_'],
      ],
      [
        'trio plus after_seq',
        { known_last_seq: '1', known_updated_at: '1', known_deletion_revision: '0', after_seq: '1' },
        ['after_seq', 'known_', 'mode'],
      ],
      ['before_seq plus around_mid', { before_seq: '5', around_mid: '5' }, ['before_seq', 'around_mid', 'mode']],
      ['no mode', {}, ['known_', 'before_seq', 'after_seq', 'around_mid', 'mode']],
    ])('refuses %s with 1004 whose msg names the parameter', async (_label, query, fields) => {
      expectFail(await api.raw.messages(b, { conversation_id: friendCid(a), ...query }), 1004, fields);
    });

    it('a mode parameter sent empty next to another mode is still a mix (1004)', async () => {
      expectFail(await api.raw.messages(b, { conversation_id: friendCid(a), before_seq: '10', after_seq: '' }), 1004);
      expectFail(
        await api.raw.messages(b, { conversation_id: friendCid(a), around_mid: all[3].mid, known_last_seq: '' }),
        1004,
      );
    });

    it('refuses page, offset and limit on message windows with 1004', async () => {
      for (const extra of [{ limit: '10' }, { offset: '5' }, { page: '2' }] as Array<Record<string, string>>) {
        expectFail(await api.raw.messages(b, { conversation_id: friendCid(a), before_seq: '50', ...extra }), 1004);
      }
    });

    it('answers 1201 in every mode for an absent or inaccessible conversation, the same way', async () => {
      const stranger = await api.user();
      const owner = await api.user();
      const groupId = await api.createGroup(owner, []);
      await api.send(owner, groupCid(groupId), 'private');
      const targets = [
        groupCid(groupId),
        groupCid(randomGroupId()),
        friendCid(owner),
        `friend_${Buffer.from(randomUserId()).toString('base64url')}`,
        friendCid(a),
      ];
      const modes: Array<Record<string, string>> = [
        { known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' },
        { before_seq: '10' },
        { after_seq: '0' },
        { around_mid: all[0].mid },
      ];
      const msgs = new Set<string>();
      for (const cid of targets) {
        for (const mode of modes) {
          const r = await api.raw.messages(stranger, { conversation_id: cid, ...mode });
          expectFail(r, 1201);
          msgs.add(`${mode.around_mid ? 'around' : 'other'}:${r.body.msg as string}`);
        }
      }
      // existence does not leak: one message per mode family
      expect([...msgs].filter((m) => m.startsWith('other')).length).toBe(1);
    });

    it('after deleting a friend, the history stays readable in every mode while sending is 1203', async () => {
      const { a: x, b: y } = await factories.pair();
      const ms = await api.sendMany(x, friendCid(y), 4, 'old');
      await api.unfriend(y, x);
      expect(seqs((await api.latest(y, friendCid(x))).messages)).toEqual([1, 2, 3, 4]);
      expect(seqs((await api.window(y, friendCid(x), { before_seq: '3' })).messages)).toEqual([1, 2]);
      expect(seqs((await api.window(y, friendCid(x), { around_mid: ms[2].mid })).messages)).toEqual([1, 2, 3, 4]);
      expectFail(
        await api.raw.send(x, {
          conversation_id: friendCid(y),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'still there?' },
        }),
        1203,
      );
      expect((await api.latest(y, friendCid(x))).last_seq).toBe('4');
    });
  });

  // =====================================================================================
  describe('removed members and late joiners (docs/messaging.md: keeps read access to what was sent before)', () => {
    it('a removed member reads up to the leave point in every mode, with has_more_after false there, and never beyond', async () => {
      const owner = await api.user();
      const gone = await api.user();
      const groupId = await api.createGroup(owner, [gone]);
      const cid = groupCid(groupId);
      const before = await api.sendMany(owner, cid, 60, 'pre');
      await api.removeMembers(owner, groupId, [gone]);
      const after = await api.sendMany(owner, cid, 5, 'post');
      const tail = await api.latest(gone, cid);
      expect(tail).toMatchObject({ outcome: 'reset', last_seq: '60', has_more_before: true, has_more_after: false });
      expect(seqs(tail.messages)).toEqual(range(11, 60));
      const page = await api.window(gone, cid, { after_seq: '55' });
      expect(seqs(page.messages)).toEqual(range(56, 60));
      expect(page.has_more_after).toBe(false);
      const beyond = await api.window(gone, cid, { after_seq: '60' });
      expect(beyond.messages).toEqual([]);
      expect(beyond.has_more_after).toBe(false);
      const older = await api.window(gone, cid, { before_seq: '11' });
      expect(seqs(older.messages)).toEqual(range(1, 10));
      expect(older).toMatchObject({ has_more_before: false, has_more_after: true });
      const around = await api.window(gone, cid, { around_mid: before[59].mid });
      expect(Math.max(...seqs(around.messages))).toBe(60);
      expect(around.has_more_after).toBe(false);
      expectFail(await api.raw.messages(gone, { conversation_id: cid, around_mid: after[0].mid }), 1207);
      // more activity after he left does not change his window
      const same = await api.window(gone, cid, trioOf(tail));
      expect(same.outcome).toBe('unchanged');
      // and a recall by the owner of a message after he left is not his business either
      expectOk(await api.raw.recall(owner, cid, after[1].mid));
      expect((await api.window(gone, cid, trioOf(tail))).outcome).toBe('unchanged');
    });

    it("a recall of a message he saw, done after he left, reaches a removed member's window (tombstone, reset)", async () => {
      const owner = await api.user();
      const gone = await api.user();
      const groupId = await api.createGroup(owner, [gone]);
      const cid = groupCid(groupId);
      const ms = await api.sendMany(owner, cid, 3, 'seen');
      await api.removeMembers(owner, groupId, [gone]);
      const tail = await api.latest(gone, cid);
      expect(seqs(tail.messages)).toEqual([1, 2, 3]);
      expectOk(await api.raw.delete(owner, cid, ms[1].mid));
      const again = await api.window(gone, cid, trioOf(tail));
      expect(again.outcome).toBe('reset');
      expect(again.messages[1]).toMatchObject({ mid: ms[1].mid, status: 'deleted', content: null });
      expect(JSON.stringify(again)).not.toContain('seen 2');
    });

    it('a removed member can read up to his leave point but not past it (1004), and his unread stops there', async () => {
      const owner = await api.user();
      const gone = await api.user();
      const groupId = await api.createGroup(owner, [gone]);
      const cid = groupCid(groupId);
      await api.sendMany(owner, cid, 4, 'u');
      await api.removeMembers(owner, groupId, [gone]);
      await api.sendMany(owner, cid, 3, 'v');
      await api.expectUnread(gone, { [cid]: 4 });
      expectFail(await api.raw.read(gone, cid, '7'), 1004, 'read_seq');
      await api.expectUnread(gone, { [cid]: 4 });
      expect(expectOk<{ read_seq: string; unread: number }>(await api.raw.read(gone, cid, '4'))).toMatchObject({
        read_seq: '4',
        unread: 0,
      });
      await api.expectUnread(gone, { [cid]: 0 });
      expectFail(
        await api.raw.send(gone, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'let me in' },
        }),
        1203,
      );
    });

    it('a late joiner: windows start at his join point with has_more_before false', async () => {
      const owner = await api.user();
      const late = await api.user();
      const groupId = await api.createGroup(owner, []);
      const cid = groupCid(groupId);
      await api.sendMany(owner, cid, 30, 'before');
      await api.addMembers(owner, groupId, [late]);
      await api.sendMany(owner, cid, 3, 'after');
      const tail = await api.latest(late, cid);
      expect(seqs(tail.messages)).toEqual([31, 32, 33]);
      expect(tail).toMatchObject({ has_more_before: false, has_more_after: false, unread: 3 });
      const fromStart = await api.window(late, cid, { after_seq: '0' });
      expect(seqs(fromStart.messages)).toEqual([31, 32, 33]);
      expect(fromStart.has_more_before).toBe(false);
      const older = await api.window(late, cid, { before_seq: '31' });
      expect(older.messages).toEqual([]);
      expect(older.has_more_before).toBe(false);
      await api.expectUnread(late, { [cid]: 3 });
    });
  });

  // =====================================================================================
  describe('recall and delete edge cases', () => {
    it('recalling a deleted message keeps it deleted and changes no counter', async () => {
      const { a, b } = await factories.pair();
      const m1 = (await api.send(a, friendCid(b), 'one')).message;
      await api.send(a, friendCid(b), 'two');
      expectOk(await api.raw.delete(a, friendCid(b), m1.mid));
      const w = await api.latest(b, friendCid(a));
      await api.expectUnread(b, { [friendCid(a)]: 1 });
      const r = await api.raw.recall(a, friendCid(b), m1.mid);
      expect(r.status).toBe(200);
      if (r.body.code === 0) expect(r.body.data.event_id).toBeNull();
      const w2 = await api.latest(b, friendCid(a));
      expect(w2.messages[0]).toMatchObject({ mid: m1.mid, status: 'deleted', content: null });
      expect({ updated_at: w2.updated_at, deletion_revision: String(w2.deletion_revision) }).toEqual({
        updated_at: w.updated_at,
        deletion_revision: String(w.deletion_revision),
      });
      await api.expectUnread(b, { [friendCid(a)]: 1 });
    });

    it('a retry of a recall after the window has passed is still the idempotent success, not 1208', async () => {
      const { a, b } = await factories.pair();
      const m = (await api.send(a, friendCid(b), 'oops')).message;
      const first = expectOk<{ message: Msg; event_id: string | null }>(await api.raw.recall(a, friendCid(b), m.mid));
      expect(typeof first.event_id).toBe('string');
      t.clock.advance(600_000);
      const again = expectOk<{ message: Msg; event_id: string | null }>(await api.raw.recall(a, friendCid(b), m.mid));
      expect(again).toMatchObject({ event_id: null, message: { mid: m.mid, status: 'recalled', content: null } });
    });

    it('concurrent recall + delete + recall of one unread message lower unread exactly once (one-to-one and group, 6 rounds)', async () => {
      const { a, b } = await factories.pair();
      const owner = await api.user();
      const member = await api.user();
      const groupId = await api.createGroup(owner, [member]);
      for (let round = 0; round < 6; round += 1) {
        const direct = (await api.send(a, friendCid(b), `race ${round}`)).message;
        const grouped = (await api.send(owner, groupCid(groupId), `race ${round}`)).message;
        const replies = await Promise.all([
          api.raw.recall(a, friendCid(b), direct.mid),
          api.raw.delete(a, friendCid(b), direct.mid),
          api.raw.recall(a, friendCid(b), direct.mid),
          api.raw.recall(owner, groupCid(groupId), grouped.mid),
          api.raw.delete(owner, groupCid(groupId), grouped.mid),
          api.raw.recall(owner, groupCid(groupId), grouped.mid),
        ]);
        // deletes succeed; a recall that lands after the delete may answer 1207 (message absent), as it does sequentially
        const codes = replies.map((r, i) =>
          i % 3 === 1 ? r.body.code : [0, 1207].includes(r.body.code) ? 'ok' : r.body.code,
        );
        expect({ round, statuses: replies.map((r) => r.status), codes }).toEqual({
          round,
          statuses: replies.map(() => 200),
          codes: ['ok', 0, 'ok', 'ok', 0, 'ok'],
        });
        for (const pairOfRecalls of [
          [replies[0], replies[2]],
          [replies[3], replies[5]],
        ]) {
          expect({ round, recallEvents: pairOfRecalls.filter((r) => r.body.data?.event_id).length <= 1 }).toEqual({
            round,
            recallEvents: true,
          });
        }
      }
      await api.expectUnread(b, { [friendCid(a)]: 0 });
      await api.expectUnread(member, { [groupCid(groupId)]: 0 });
      const w = await api.latest(b, friendCid(a));
      expect(w.messages.every((m) => m.status === 'deleted' && m.content === null)).toBe(true);
      await api.send(a, friendCid(b), 'after the races');
      await api.send(owner, groupCid(groupId), 'after the races');
      await api.expectUnread(b, { [friendCid(a)]: 1 });
      await api.expectUnread(member, { [groupCid(groupId)]: 1 });
    });

    it('1208 for recall by the peer and by a plain group member, nothing changes', async () => {
      const owner = await api.user();
      const m1 = await api.user();
      const m2 = await api.user();
      const groupId = await api.createGroup(owner, [m1, m2]);
      const cid = groupCid(groupId);
      const msg = (await api.send(m1, cid, 'mine')).message;
      expectFail(await api.raw.recall(m2, cid, msg.mid), 1208);
      expectFail(await api.raw.delete(m2, cid, msg.mid), 1208);
      const w = await api.latest(owner, cid);
      expect(w.messages[0]).toMatchObject({ status: 'normal', content: { text: 'mine' } });
      await api.expectUnread(m2, { [cid]: 1 });
    });

    it("a recalled last message shows as a tombstone in the group's sync summary; unread agrees everywhere", async () => {
      const owner = await api.user();
      const m1 = await api.user();
      const groupId = await api.createGroup(owner, [m1]);
      const cid = groupCid(groupId);
      await api.send(owner, cid, 'first');
      const last = (await api.send(owner, cid, 'secret last')).message;
      await api.expectUnread(m1, { [cid]: 2 });
      expectOk(await api.raw.recall(owner, cid, last.mid));
      const item = (await api.syncAll(m1)).items.find((i) => i.conversation_id === cid) as SyncItem;
      expect(item).toMatchObject({ last_seq: '2', unread: 1 });
      expect(JSON.stringify(item)).not.toContain('secret last');
      if (item.last_message?.mid === last.mid)
        expect(item.last_message).toMatchObject({ status: 'recalled', content: null });
      await api.expectUnread(m1, { [cid]: 1 });
    });

    it('refuses bad recall/delete bodies with 1004 naming the field (no implicit conversion)', async () => {
      const { a, b } = await factories.pair();
      const m = (await api.send(a, friendCid(b), 'x')).message;
      for (const path of ['recall', 'delete']) {
        const post = (body: unknown) =>
          t.http
            .post(`/app/sdk/messages/${path}`)
            .set(...bearer(a.token))
            .send(body as Body);
        expectFail(await post({ conversation_id: friendCid(b), mid: Number(m.mid) }), 1004, 'mid');
        expectFail(await post({ conversation_id: friendCid(b), mid: `0${m.mid}` }), 1004, 'mid');
        expectFail(await post({ conversation_id: friendCid(b), mid: [m.mid] }), 1004, 'mid');
        expectFail(await post({ conversation_id: friendCid(b) }), 1004, 'mid');
        expectFail(await post({ mid: m.mid }), 1004, 'conversation_id');
        expectFail(await post({ conversation_id: 7, mid: m.mid }), 1004, 'conversation_id');
      }
      expect((await api.latest(b, friendCid(a))).messages[0]).toMatchObject({ status: 'normal' });
    });
  });

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

  // =====================================================================================
  describe('GET /app/sdk/unread against sync', () => {
    it('agrees with sync and windows across one-to-one, groups, a muted group, a removed-from group and a hidden conversation', async () => {
      const me = await api.user();
      const f1 = await api.user();
      const f2 = await api.user();
      const owner = await api.user();
      await api.befriend(me, f1);
      await api.befriend(me, f2);
      const g1 = await api.createGroup(owner, [me]);
      const g2 = await api.createGroup(owner, [me]);
      const g3 = await api.createGroup(owner, [me]);
      await api.sendMany(f1, friendCid(me), 3, 'f1');
      await api.sendMany(f2, friendCid(me), 2, 'f2');
      await api.sendMany(owner, groupCid(g1), 4, 'g1');
      await api.sendMany(owner, groupCid(g2), 5, 'g2');
      await api.sendMany(owner, groupCid(g3), 2, 'g3');
      await api.send(me, groupCid(g1), 'my own');
      const expected: Record<string, number> = {
        [friendCid(f1)]: 3,
        [friendCid(f2)]: 2,
        [groupCid(g1)]: 4,
        [groupCid(g2)]: 5,
        [groupCid(g3)]: 2,
      };
      await api.expectUnread(me, expected);
      await api.setting(me, 'mute', groupCid(g2), true);
      await api.expectUnread(me, expected, [groupCid(g2)]);
      await api.removeMembers(owner, g3, [me]);
      await api.sendMany(owner, groupCid(g3), 3, 'g3 later');
      await api.expectUnread(me, expected, [groupCid(g2)]);
      // reads, recalls and deletes move every view together
      expectOk(await api.raw.read(me, friendCid(f1), '2'));
      expected[friendCid(f1)] = 1;
      const g2w = await api.latest(me, groupCid(g2));
      expectOk(await api.raw.delete(owner, groupCid(g2), g2w.messages[4].mid));
      expected[groupCid(g2)] = 4;
      await api.expectUnread(me, expected, [groupCid(g2)]);
      await api.setting(me, 'mute', groupCid(g2), false);
      await api.expectUnread(me, expected);
    });

    it('a hidden conversation with unread messages: /unread and the sync aggregate still agree', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      await api.sendMany(f, friendCid(me), 2, 'h');
      await api.setting(me, 'hide', friendCid(f), true);
      const s = expectOk<{ unread: { total: number; total_unmuted: number } }>(await api.raw.sync(me));
      const badge = expectOk<{ total: number; total_unmuted: number; conversations: Array<{ unread: number }> }>(
        await api.raw.unread(me),
      );
      expect({ total: badge.total, total_unmuted: badge.total_unmuted }).toEqual(s.unread);
      expect(badge.conversations.reduce((n, c) => n + c.unread, 0)).toBe(badge.total);
    });

    it('refuses page/offset/limit on /unread with 1004', async () => {
      const me = await api.user();
      for (const extra of ['limit=5', 'offset=1', 'page=2'])
        expectFail(await t.http.get(`/app/sdk/unread?${extra}`).set(...bearer(me.token)), 1004);
    });

    it('refuses malformed sync/settings/read bodies with 1004 naming the field (no implicit conversion), changing nothing', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      expectFail(await api.raw.sync(me, { cursor: 123 }), 1004, 'cursor');
      for (const [path, field] of [
        ['pin', 'pinned'],
        ['mute', 'muted'],
        ['hide', 'hidden'],
      ]) {
        for (const value of ['true', 1, 0, 'false', null]) {
          expectFail(
            await t.http
              .post(`/app/sdk/conversations/${path}`)
              .set(...bearer(me.token))
              .send({ conversation_id: friendCid(f), [field]: value }),
            1004,
            field,
          );
        }
      }
      expectFail(await api.raw.read(me, friendCid(f), 0), 1004, 'read_seq');
      expectFail(await api.raw.read(me, friendCid(f), true), 1004, 'read_seq');
      const item = (await api.syncAll(me)).items.find((i) => i.conversation_id === friendCid(f)) as SyncItem & {
        pinned: boolean;
        hidden: boolean;
      };
      expect(item).toMatchObject({ muted: false, pinned: false, hidden: false });
    });
  });
});
