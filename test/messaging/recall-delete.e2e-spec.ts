// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
// Black-box tests of search within one conversation, the modes of GET /app/sdk/messages,
// recall/delete edge cases, custom payloads, the keyword list and GET /app/sdk/unread against
// sync, written from the spec (2.2, 4.6, 4.7, 7), issue 3 and docs/messaging.md. Everything goes through
// HTTP; friendships and groups are made through their own endpoints.
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, Msg, SyncItem, cmid, friendCid, groupCid, trioOf } from '../helpers/api-client';
import { expectFail, expectOk, range, seqs } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

describe('Messaging core (black box)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('configured recall window', () => {
    let k: TestApp;
    let kApi: ApiClient;
    beforeAll(async () => {
      k = await startTestApp({ RECALL_WINDOW_SECONDS: '10' });
      kApi = new ApiClient(k);
    });
    afterAll(() => k.close());

    it('RECALL_WINDOW_SECONDS=10 allows a recall at 9 s and refuses one at 11 s', async () => {
      const a = await kApi.user();
      const b = await kApi.user();
      await kApi.befriend(a, b);
      const post = async (text: string) =>
        expectOk<{ message: Msg }>(
          await kApi.raw.send(a, {
            conversation_id: friendCid(b),
            client_message_id: cmid(),
            type: 'text',
            content: { text },
          }),
        ).message;
      // Held still, so that the time the requests themselves take on a loaded machine counts for nothing.
      k.clock.set(k.clock.now());
      try {
        const m1 = await post('one');
        const m2 = await post('two');
        k.clock.advance(9_000);
        expectOk(await kApi.raw.recall(a, friendCid(b), m1.mid));
        k.clock.advance(2_000);
        expectFail(await kApi.raw.recall(a, friendCid(b), m2.mid), 1208);
      } finally {
        k.clock.release();
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
});
