// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
// Black-box tests of search within one conversation, the modes of GET /app/sdk/messages,
// recall/delete edge cases, custom payloads, the keyword list and GET /app/sdk/unread against
// sync, written from the spec (2.2, 4.6, 4.7, 7), issue 3 and docs/messaging.md. Everything goes through
// HTTP; friendships and groups are made through their own endpoints.
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, Msg, cmid, friendCid, groupCid, trioOf } from '../helpers/api-client';
import { expectFail, expectOk, range, seqs } from '../helpers/assertions';
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
  describe('GET /app/sdk/messages: modes, windows and has_more flags', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let all: Msg[];
    let cid: string;
    beforeAll(async () => {
      ({ a, b } = await factories.pair());
      cid = friendCid(b);
      all = await api.sendMany(a, cid, 120, 'line');
    });

    it('a calibration with stale values resets to the latest 50 (71..120)', async () => {
      const w = await api.latest(b, friendCid(a));
      expect(w.outcome).toBe('reset');
      expect(seqs(w.messages)).toEqual(range(71, 120));
      expect(w).toMatchObject({
        conversation_id: friendCid(a),
        has_more_before: true,
        has_more_after: false,
        last_seq: '120',
        read_seq: '0',
        unread: 120,
      });
      expect(w.messages[0]).toMatchObject({
        mid: all[70].mid,
        conversation_id: friendCid(a),
        content: { text: 'line 71' },
      });
    });

    it('a calibration with the current trio is unchanged and carries no messages', async () => {
      const w = await api.latest(b, friendCid(a));
      const same = await api.window(b, friendCid(a), trioOf(w));
      expect(same).toMatchObject({
        outcome: 'unchanged',
        messages: [],
        last_seq: '120',
        conversation_id: friendCid(a),
      });
      expect(same.updated_at).toBe(w.updated_at);
      expect(String(same.deletion_revision)).toBe(String(w.deletion_revision));
    });

    it('any one stale value of the trio gives a reset', async () => {
      const w = await api.latest(b, friendCid(a));
      const trio = trioOf(w);
      for (const stale of [
        { ...trio, known_last_seq: '119' },
        { ...trio, known_updated_at: String(w.updated_at - 1) },
        { ...trio, known_deletion_revision: String(Number(w.deletion_revision) + 1) },
        { ...trio, known_last_seq: '121' },
      ]) {
        const r = await api.window(b, friendCid(a), stale);
        expect({ stale, outcome: r.outcome, seqs: seqs(r.messages) }).toEqual({
          stale,
          outcome: 'reset',
          seqs: range(71, 120),
        });
      }
    });

    it('before_seq pages older: 71 gives 21..70, 21 gives 1..20 with has_more_before false, 1 gives nothing', async () => {
      const p1 = await api.window(b, friendCid(a), { before_seq: '71' });
      expect(p1.outcome).toBe('page');
      expect(seqs(p1.messages)).toEqual(range(21, 70));
      expect(p1).toMatchObject({ has_more_before: true, has_more_after: true, last_seq: '120' });
      const p2 = await api.window(b, friendCid(a), { before_seq: '21' });
      expect(p2.outcome).toBe('page');
      expect(seqs(p2.messages)).toEqual(range(1, 20));
      expect(p2).toMatchObject({ has_more_before: false, has_more_after: true });
      const p3 = await api.window(b, friendCid(a), { before_seq: '1' });
      expect(p3.messages).toEqual([]);
      expect(p3.has_more_before).toBe(false);
      const p4 = await api.window(b, friendCid(a), { before_seq: '51' });
      expect(seqs(p4.messages)).toEqual(range(1, 50));
      expect(p4.has_more_before).toBe(false);
      const p5 = await api.window(b, friendCid(a), { before_seq: '52' });
      expect(seqs(p5.messages)).toEqual(range(2, 51));
      expect(p5.has_more_before).toBe(true);
    });

    it('after_seq pages newer with correct edges', async () => {
      const p0 = await api.window(b, friendCid(a), { after_seq: '0' });
      expect(seqs(p0.messages)).toEqual(range(1, 50));
      expect(p0).toMatchObject({ has_more_before: false, has_more_after: true });
      const p1 = await api.window(b, friendCid(a), { after_seq: '20' });
      expect(seqs(p1.messages)).toEqual(range(21, 70));
      expect(p1).toMatchObject({ has_more_before: true, has_more_after: true });
      const p2 = await api.window(b, friendCid(a), { after_seq: '70' });
      expect(seqs(p2.messages)).toEqual(range(71, 120));
      expect(p2).toMatchObject({ has_more_before: true, has_more_after: false });
      const p3 = await api.window(b, friendCid(a), { after_seq: '69' });
      expect(seqs(p3.messages)).toEqual(range(70, 119));
      expect(p3.has_more_after).toBe(true);
      const p4 = await api.window(b, friendCid(a), { after_seq: '120' });
      expect(p4.messages).toEqual([]);
      expect(p4.has_more_after).toBe(false);
      expect(p4.has_more_before).toBe(true);
    });

    it('around_mid returns a continuous window containing the message with consistent flags', async () => {
      for (const index of [0, 59, 119]) {
        const target = all[index];
        const w = await api.window(b, friendCid(a), { around_mid: target.mid });
        const s = seqs(w.messages);
        expect(s).toContain(index + 1);
        expect(s).toEqual(range(s[0], s[s.length - 1]));
        expect(s.length).toBeLessThanOrEqual(50);
        expect({ index, has_more_before: w.has_more_before, has_more_after: w.has_more_after }).toEqual({
          index,
          has_more_before: s[0] > 1,
          has_more_after: s[s.length - 1] < 120,
        });
        expect(w.last_seq).toBe('120');
      }
    });

    it('around_mid of an unknown message or of another conversation is refused with 1207', async () => {
      const c = await api.user();
      await api.befriend(a, c);
      const elsewhere = await api.send(a, friendCid(c), 'elsewhere');
      expectFail(await api.raw.messages(b, { conversation_id: friendCid(a), around_mid: elsewhere.message.mid }), 1207);
      expectFail(await api.raw.messages(b, { conversation_id: friendCid(a), around_mid: '999999999999' }), 1207);
    });

    it('windows include tombstones and keep their seq', async () => {
      const { a: x, b: y } = await factories.pair();
      const ms = await api.sendMany(x, friendCid(y), 5, 't');
      await api.recall(x, friendCid(y), ms[1].mid);
      await api.deleteMessage(x, friendCid(y), ms[3].mid);
      for (const w of [
        await api.latest(y, friendCid(x)),
        await api.window(y, friendCid(x), { after_seq: '0' }),
        await api.window(y, friendCid(x), { before_seq: '6' }),
        await api.window(y, friendCid(x), { around_mid: ms[1].mid }),
      ]) {
        expect(seqs(w.messages)).toEqual([1, 2, 3, 4, 5]);
        expect(w.messages.map((m) => m.status)).toEqual(['normal', 'recalled', 'normal', 'deleted', 'normal']);
        expect(w.messages[1].content).toBeNull();
        expect(w.messages[3].content).toBeNull();
      }
      expect((await api.latest(y, friendCid(x))).unread).toBe(3);
    });

    it('a conversation of exactly 50 messages resets with has_more_before false, 51 with true', async () => {
      const { a: x, b: y } = await factories.pair();
      await api.sendMany(x, friendCid(y), 50, 'f');
      const w50 = await api.latest(y, friendCid(x));
      expect(seqs(w50.messages)).toEqual(range(1, 50));
      expect(w50.has_more_before).toBe(false);
      await api.send(x, friendCid(y), 'f 51');
      const w51 = await api.latest(y, friendCid(x));
      expect(seqs(w51.messages)).toEqual(range(2, 51));
      expect(w51.has_more_before).toBe(true);
    });

    it('an empty conversation resets to an empty window', async () => {
      const { a: x, b: y } = await factories.pair();
      const w = await api.latest(x, friendCid(y));
      expect(w).toMatchObject({
        messages: [],
        has_more_before: false,
        has_more_after: false,
        last_seq: '0',
        read_seq: '0',
        unread: 0,
      });
      const same = await api.window(x, friendCid(y), trioOf(w));
      expect(same.outcome).toBe('unchanged');
    });

    it('before_seq beyond last_seq gives the latest 50; after_seq beyond it gives nothing', async () => {
      const p = await api.window(b, friendCid(a), { before_seq: '1000' });
      expect(seqs(p.messages)).toEqual(range(71, 120));
      expect(p).toMatchObject({ has_more_before: true, has_more_after: false });
      const q = await api.window(b, friendCid(a), { after_seq: '1000' });
      expect(q.messages).toEqual([]);
      expect(q.has_more_after).toBe(false);
    });

    it('answers a 64-bit-overflowing around_mid as a parameter error or an absent message, never a fault', async () => {
      const response = await api.raw.messages(b, { conversation_id: friendCid(a), around_mid: '99999999999999999999' });
      expect({
        status: response.status,
        code: [1004, 1207].includes(response.body.code) ? 'ok' : response.body.code,
      }).toEqual({ status: 200, code: 'ok' });
    });

    const trio = { known_last_seq: '120', known_updated_at: '1', known_deletion_revision: '0' };
    it.each<[string, Record<string, string>]>([
      ['no mode', {}],
      ['only known_last_seq', { known_last_seq: '120' }],
      ['only known_updated_at', { known_updated_at: '1' }],
      ['only known_deletion_revision', { known_deletion_revision: '0' }],
      ['known_last_seq + known_updated_at', { known_last_seq: '120', known_updated_at: '1' }],
      ['known_last_seq + known_deletion_revision', { known_last_seq: '120', known_deletion_revision: '0' }],
      ['known_updated_at + known_deletion_revision', { known_updated_at: '1', known_deletion_revision: '0' }],
      ['trio + before_seq', { ...trio, before_seq: '50' }],
      ['trio + after_seq', { ...trio, after_seq: '50' }],
      ['trio + around_mid', { ...trio, around_mid: '1' }],
      ['before_seq + after_seq', { before_seq: '50', after_seq: '10' }],
      ['before_seq + around_mid', { before_seq: '50', around_mid: '1' }],
      ['after_seq + around_mid', { after_seq: '50', around_mid: '1' }],
      ['all modes', { ...trio, before_seq: '50', after_seq: '10', around_mid: '1' }],
      ['partial trio + before_seq', { known_last_seq: '120', before_seq: '50' }],
      ['partial trio + after_seq', { known_updated_at: '1', after_seq: '50' }],
      ['partial trio + around_mid', { known_deletion_revision: '0', around_mid: '1' }],
      ['before_seq not decimal', { before_seq: 'abc' }],
      ['before_seq negative', { before_seq: '-1' }],
      ['after_seq not decimal', { after_seq: '1e3' }],
      ['around_mid not decimal', { around_mid: 'x' }],
      ['known_last_seq not decimal', { ...trio, known_last_seq: 'abc' }],
      ['known_updated_at not an integer', { ...trio, known_updated_at: '1.5' }],
      ['empty before_seq', { before_seq: '' }],
      ['before_seq beyond 64 bits', { before_seq: '99999999999999999999' }],
      ['after_seq beyond 64 bits', { after_seq: '99999999999999999999' }],
      ['known_last_seq beyond 64 bits', { ...trio, known_last_seq: '99999999999999999999' }],
    ])('refuses %s with 1004', async (_label, query) => {
      expectFail(await api.raw.messages(b, { conversation_id: friendCid(a), ...query }), 1004);
    });

    it('refuses a missing conversation_id with 1004', async () => {
      expectFail(await api.raw.messages(b, { before_seq: '10' }), 1004);
    });

    it('reports read_seq and unread in windows and moves them with reads', async () => {
      const r = await api.read(b, friendCid(a), '100');
      expect(r).toMatchObject({ read_seq: '100', unread: 20 });
      const w = await api.window(b, friendCid(a), { before_seq: '10' });
      expect(w).toMatchObject({ read_seq: '100', unread: 20 });
      await api.expectUnread(b, { [friendCid(a)]: 20 });
      const back = await api.read(b, friendCid(a), '50');
      expect(back).toMatchObject({ read_seq: '100', unread: 20 });
      await api.expectUnread(b, { [friendCid(a)]: 20 });
    });

    it('refuses malformed read_seq values with 1004', async () => {
      for (const value of ['abc', '-1', '1.5', '', 5, null, undefined, '121', '99999999999999999999']) {
        expectFail(await api.raw.read(b, friendCid(a), value), 1004);
      }
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
});
