// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
import { DataSource } from 'typeorm';
import { TestApp, bearer, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import {
  ApiClient,
  Body,
  IssuedUser,
  MessageWindow,
  Msg,
  SyncItem,
  cmid,
  friendCid,
  groupCid,
  trioOf,
} from '../helpers/api-client';
import { expectDelivered, expectFail, expectOk, outboxDeliveryCount, range, seqs } from '../helpers/assertions';
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
  describe('one-to-one flow with three users (send, read, recall, delete; unread after every step)', () => {
    it('keeps sequences, tombstones, unread (sync and /unread) and the outbox consistent', async () => {
      const a = await api.user();
      const b = await api.user();
      const c = await api.user();
      await api.befriend(a, b);
      await api.befriend(a, c);
      const aToB = friendCid(b);
      const bToA = friendCid(a);
      const aToC = friendCid(c);
      const cToA = friendCid(a);
      await api.expectUnread(a, {});
      await api.expectUnread(b, {});
      await api.expectUnread(c, {});

      // 1. A -> B
      const key1 = cmid();
      const before = t.clock.now();
      const s1 = await api.send(a, aToB, 'hello B', key1);
      expect(s1.message).toEqual({
        mid: expect.stringMatching(/^[1-9][0-9]*$/),
        conversation_id: aToB,
        conversation_seq: '1',
        sender_id: a.userId,
        client_message_id: key1,
        type: 'text',
        content: { text: 'hello B' },
        status: 'normal',
        created_at: expect.any(Number),
        updated_at: expect.any(Number),
      });
      expect(Number.isInteger(s1.message.created_at)).toBe(true);
      expect(s1.message.created_at).toBeGreaterThanOrEqual(before);
      expect(s1.message.created_at).toBeLessThanOrEqual(t.clock.now());
      await expectDelivered(t, s1.event_id, [a, b], [c]);
      await api.expectUnread(a, {});
      await api.expectUnread(b, { [bToA]: 1 });
      await api.expectUnread(c, {});

      // B sees the message under its own id of the conversation.
      const bWin = await api.latest(b, bToA);
      expect(bWin.conversation_id).toBe(bToA);
      expect(bWin.messages).toHaveLength(1);
      expect(bWin.messages[0]).toMatchObject({
        mid: s1.message.mid,
        conversation_id: bToA,
        conversation_seq: '1',
        sender_id: a.userId,
        content: { text: 'hello B' },
      });
      expect(bWin).toMatchObject({ last_seq: '1', unread: 1 });

      // 2. A -> C
      const s2 = await api.send(a, aToC, 'hello C');
      expect(s2.message.conversation_seq).toBe('1');
      await expectDelivered(t, s2.event_id, [a, c], [b]);
      await api.expectUnread(a, {});
      await api.expectUnread(b, { [bToA]: 1 });
      await api.expectUnread(c, { [cToA]: 1 });

      // 3. B -> A (seq 2 of A-B)
      const s3 = await api.send(b, bToA, 'hi A');
      expect(s3.message).toMatchObject({ conversation_id: bToA, conversation_seq: '2', sender_id: b.userId });
      await api.expectUnread(a, { [aToB]: 1 });
      await api.expectUnread(b, { [bToA]: 1 });
      await api.expectUnread(c, { [cToA]: 1 });

      // 4. A -> B (seq 3)
      const s4 = await api.send(a, aToB, 'again');
      expect(s4.message.conversation_seq).toBe('3');
      await api.expectUnread(a, { [aToB]: 1 });
      await api.expectUnread(b, { [bToA]: 2 });
      await api.expectUnread(c, { [cToA]: 1 });

      // 5. B reads everything
      const r5 = await api.read(b, bToA, '3');
      expect(r5).toMatchObject({ conversation_id: bToA, read_seq: '3', unread: 0 });
      await expectDelivered(t, r5.event_id, [b]);
      await api.expectUnread(a, { [aToB]: 1 });
      await api.expectUnread(b, {});
      await api.expectUnread(c, { [cToA]: 1 });

      // 6. A lower read_seq is a no-op answering the current one
      const r6 = await api.read(b, bToA, '1');
      expect(r6).toMatchObject({ conversation_id: bToA, read_seq: '3', unread: 0 });
      await api.expectUnread(b, {});

      // 7. never past last_seq
      expectFail(await api.raw.read(b, bToA, '4'), 1004);
      await api.expectUnread(b, {});

      // 8. A -> B twice (seq 4, 5)
      const s8a = await api.send(a, aToB, 'four');
      const s8b = await api.send(a, aToB, 'five');
      expect([s8a.message.conversation_seq, s8b.message.conversation_seq]).toEqual(['4', '5']);
      await api.expectUnread(a, { [aToB]: 1 });
      await api.expectUnread(b, { [bToA]: 2 });
      await api.expectUnread(c, { [cToA]: 1 });

      // 9. A recalls seq 4 (within the window)
      const w9 = await api.latest(b, bToA);
      const rc = await api.recall(a, aToB, s8a.message.mid);
      expect(rc.message).toMatchObject({
        mid: s8a.message.mid,
        conversation_id: aToB,
        conversation_seq: '4',
        status: 'recalled',
        content: null,
      });
      await expectDelivered(t, rc.event_id, [a, b], [c]);
      const w9b = await api.latest(b, bToA);
      expect(w9b.updated_at).toBeGreaterThan(w9.updated_at);
      expect(String(w9b.deletion_revision)).toBe(String(w9.deletion_revision));
      expect(w9b.last_seq).toBe('5');
      expect(w9b.messages.find((m) => m.mid === s8a.message.mid)).toMatchObject({
        conversation_seq: '4',
        status: 'recalled',
        content: null,
        conversation_id: bToA,
      });
      await api.expectUnread(a, { [aToB]: 1 });
      await api.expectUnread(b, { [bToA]: 1 });
      await api.expectUnread(c, { [cToA]: 1 });

      // 10. repeating the recall succeeds with event_id null
      const rc2 = await api.recall(a, aToB, s8a.message.mid);
      expect(rc2.event_id).toBeNull();
      expect(rc2.message).toMatchObject({ mid: s8a.message.mid, status: 'recalled', content: null });
      await api.expectUnread(b, { [bToA]: 1 });

      // 11. B may neither recall nor delete A's message in a one-to-one conversation
      expectFail(await api.raw.recall(b, bToA, s8b.message.mid), 1208);
      expectFail(await api.raw.delete(b, bToA, s8b.message.mid), 1208);
      await api.expectUnread(b, { [bToA]: 1 });

      // 12. A deletes seq 5: a tombstone, deletion_revision and updated_at rise, B's unread drops
      const w12 = await api.latest(a, aToB);
      const del = await api.deleteMessage(a, aToB, s8b.message.mid);
      expect(del.message).toMatchObject({
        mid: s8b.message.mid,
        conversation_seq: '5',
        status: 'deleted',
        content: null,
      });
      await expectDelivered(t, del.event_id, [a, b], [c]);
      const w12b = await api.latest(a, aToB);
      expect(w12b.updated_at).toBeGreaterThan(w12.updated_at);
      expect(Number(w12b.deletion_revision)).toBeGreaterThan(Number(w12.deletion_revision));
      expect(seqs(w12b.messages)).toEqual([1, 2, 3, 4, 5]);
      expect(w12b.messages[4]).toMatchObject({ mid: s8b.message.mid, status: 'deleted', content: null });
      await api.expectUnread(a, { [aToB]: 1 });
      await api.expectUnread(b, {});
      await api.expectUnread(c, { [cToA]: 1 });

      // 13. A reads B's message; C reads A's
      await api.read(a, aToB, '5');
      await api.read(c, cToA, '1');
      await api.expectUnread(a, {});
      await api.expectUnread(b, {});
      await api.expectUnread(c, {});

      // 14. After the recall window A can no longer recall, but may still delete.
      const late = await api.send(a, aToC, 'old soon');
      await api.expectUnread(c, { [cToA]: 1 });
      t.clock.advance(121_000);
      expectFail(await api.raw.recall(a, aToC, late.message.mid), 1208);
      await api.expectUnread(c, { [cToA]: 1 });
      const lateDel = await api.deleteMessage(a, aToC, late.message.mid);
      expect(lateDel.message).toMatchObject({ status: 'deleted', content: null, conversation_seq: '2' });
      await api.expectUnread(a, {});
      await api.expectUnread(b, {});
      await api.expectUnread(c, {});

      // 15. B reads up to seq 5 (its tombstone end) — still allowed, no change
      const r15 = await api.read(b, bToA, '5');
      expect(r15).toMatchObject({ read_seq: '5', unread: 0 });
      await api.expectUnread(b, {});
    });

    it('lets the sender recall just inside the window (119 s) but not just after it (121 s)', async () => {
      const { a, b } = await factories.pair();
      const m1 = await api.send(a, friendCid(b), 'one');
      const m2 = await api.send(a, friendCid(b), 'two');
      t.clock.advance(119_000);
      expect((await api.recall(a, friendCid(b), m1.message.mid)).message.status).toBe('recalled');
      t.clock.advance(2_000);
      expectFail(await api.raw.recall(a, friendCid(b), m2.message.mid), 1208);
      await api.expectUnread(b, { [friendCid(a)]: 1 });
    });

    it('refuses recall/delete of an unknown mid or a mid of another conversation with 1207', async () => {
      const { a, b } = await factories.pair();
      const c = await api.user();
      await api.befriend(a, c);
      const inAb = await api.send(a, friendCid(b), 'in ab');
      const inAc = await api.send(a, friendCid(c), 'in ac');
      expectFail(await api.raw.recall(a, friendCid(b), inAc.message.mid), 1207);
      expectFail(await api.raw.delete(a, friendCid(b), inAc.message.mid), 1207);
      expectFail(await api.raw.recall(a, friendCid(b), '999999999999'), 1207);
      expectFail(await api.raw.delete(a, friendCid(b), '999999999999'), 1207);
      // Neither message changed.
      expect((await api.latest(a, friendCid(b))).messages[0]).toMatchObject({
        mid: inAb.message.mid,
        status: 'normal',
      });
      expect((await api.latest(a, friendCid(c))).messages[0]).toMatchObject({
        mid: inAc.message.mid,
        status: 'normal',
      });
      await api.expectUnread(b, { [friendCid(a)]: 1 });
      await api.expectUnread(c, { [friendCid(a)]: 1 });
    });

    it('refuses a malformed mid with 1004', async () => {
      const { a, b } = await factories.pair();
      for (const mid of ['abc', '-1', '1.5', '']) {
        expectFail(await api.raw.recall(a, friendCid(b), mid), 1004);
        expectFail(await api.raw.delete(a, friendCid(b), mid), 1004);
      }
    });

    it('deleting an already recalled message keeps the tombstone and raises deletion_revision', async () => {
      const { a, b } = await factories.pair();
      const m = await api.send(a, friendCid(b), 'x');
      await api.recall(a, friendCid(b), m.message.mid);
      const w0 = await api.latest(b, friendCid(a));
      const d = await api.deleteMessage(a, friendCid(b), m.message.mid);
      expect(d.message).toMatchObject({ mid: m.message.mid, conversation_seq: '1', content: null });
      const w1 = await api.latest(b, friendCid(a));
      expect(Number(w1.deletion_revision)).toBeGreaterThan(Number(w0.deletion_revision));
      expect(w1.updated_at).toBeGreaterThan(w0.updated_at);
      expect(w1.messages).toHaveLength(1);
      expect(w1.messages[0]).toMatchObject({ mid: m.message.mid, status: 'deleted', content: null });
      await api.expectUnread(b, {});
    });

    it('refuses sending between strangers (no friendship, no conversation) with 1201 or 1203', async () => {
      const a = await api.user();
      const b = await api.user();
      const response = await api.raw.send(a, {
        conversation_id: friendCid(b),
        client_message_id: cmid(),
        type: 'text',
        content: { text: 'hi' },
      });
      expect({ code: response.body.code, data: response.body.data }).toEqual({
        code: [1201, 1203].includes(response.body.code) ? response.body.code : '1201 or 1203',
        data: null,
      });
      await api.expectUnread(b, {});
    });

    it('refuses sending to a former friend (conversation exists, friendship removed) with 1203', async () => {
      const { a, b } = await factories.pair();
      await api.send(a, friendCid(b), 'while friends');
      await api.unfriend(a, b);
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'after unfriend' },
        }),
        1203,
      );
      expectFail(
        await api.raw.send(b, {
          conversation_id: friendCid(a),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'after unfriend' },
        }),
        1203,
      );
      await api.expectUnread(b, { [friendCid(a)]: 1 });
    });

    it('refuses sending from a blocked user to the blocker with 1203 and writes no event', async () => {
      const { a: c, b: d } = await factories.pair();
      await api.send(d, friendCid(c), 'before the block');
      await api.block(c, d);
      const eventsBefore = await outboxDeliveryCount(t, [c, d]);
      expectFail(
        await api.raw.send(d, {
          conversation_id: friendCid(c),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'after the block' },
        }),
        1203,
      );
      expect(await outboxDeliveryCount(t, [c, d])).toBe(eventsBefore);
      expect((await api.latest(c, friendCid(d))).last_seq).toBe('1');
      await api.expectUnread(c, { [friendCid(d)]: 1 });
      await api.expectUnread(d, {});
    });

    it('refuses sending from the blocker to the blocked user with 1203', async () => {
      const { a: c, b: d } = await factories.pair();
      await api.block(c, d);
      expectFail(
        await api.raw.send(c, {
          conversation_id: friendCid(d),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'I blocked you' },
        }),
        1203,
      );
      await api.expectUnread(d, {});
    });

    it('answers 1201 for a one-to-one conversation with an unknown user and 1004 for malformed ids', async () => {
      const a = await api.user();
      const ghost = friendCid({ userId: randomUserId('ghost') });
      expectFail(
        await api.raw.send(a, {
          conversation_id: ghost,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'hi' },
        }),
        1201,
      );
      expectFail(await api.raw.messages(a, { conversation_id: ghost, before_seq: '10' }), 1201);
      expectFail(await api.raw.read(a, ghost, '0'), 1201);
      for (const bad of [
        'nonsense',
        'friend_',
        'group_',
        'friend_!!!',
        'group_has space',
        `group_${'x'.repeat(33)}`,
        'chat_abc',
      ]) {
        expectFail(
          await api.raw.send(a, {
            conversation_id: bad,
            client_message_id: cmid(),
            type: 'text',
            content: { text: 'hi' },
          }),
          1004,
        );
        expectFail(await api.raw.messages(a, { conversation_id: bad, before_seq: '10' }), 1004);
      }
      expectFail(
        await api.raw.send(a, {
          conversation_id: groupCid(randomGroupId()),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'hi' },
        }),
        1201,
      );
    });

    it('a user cannot address a conversation with himself', async () => {
      const a = await api.user();
      const response = await api.raw.send(a, {
        conversation_id: friendCid(a),
        client_message_id: cmid(),
        type: 'text',
        content: { text: 'me' },
      });
      expect(response.body.code).not.toBe(0);
      expect(response.body.data).toBeNull();
    });
    it('keeps the content version strictly increasing even when the clock stands still or goes back', async () => {
      const { a, b } = await factories.pair();
      const ms = await api.sendMany(a, friendCid(b), 4, 'v');
      const base = t.clock.now();
      t.clock.set(base);
      try {
        const versions: number[] = [(await api.latest(b, friendCid(a))).updated_at];
        const revisions: number[] = [Number((await api.latest(b, friendCid(a))).deletion_revision)];
        await api.recall(a, friendCid(b), ms[0].mid);
        versions.push((await api.latest(b, friendCid(a))).updated_at);
        await api.recall(a, friendCid(b), ms[1].mid);
        versions.push((await api.latest(b, friendCid(a))).updated_at);
        await api.deleteMessage(a, friendCid(b), ms[2].mid);
        versions.push((await api.latest(b, friendCid(a))).updated_at);
        revisions.push(Number((await api.latest(b, friendCid(a))).deletion_revision));
        t.clock.set(base - 60_000);
        await api.deleteMessage(a, friendCid(b), ms[3].mid);
        versions.push((await api.latest(b, friendCid(a))).updated_at);
        revisions.push(Number((await api.latest(b, friendCid(a))).deletion_revision));
        expect({ versions, increasing: versions.every((v, i) => i === 0 || v > versions[i - 1]) }).toEqual({
          versions,
          increasing: true,
        });
        expect({ revisions, increasing: revisions.every((v, i) => i === 0 || v > revisions[i - 1]) }).toEqual({
          revisions,
          increasing: true,
        });
        // each step is visible to a client holding the previous trio
        const items = (await api.syncAll(b)).items.filter((i) => i.conversation_id === friendCid(a));
        expect(items[0].updated_at).toBe(versions[versions.length - 1]);
      } finally {
        t.clock.set(base + 1);
      }
    });

    it('a recalled or deleted message reports a raised updated_at', async () => {
      const { a, b } = await factories.pair();
      const m = await api.send(a, friendCid(b), 'x');
      const m2 = await api.send(a, friendCid(b), 'y');
      t.clock.advance(5_000);
      const r = await api.recall(a, friendCid(b), m.message.mid);
      expect(r.message.updated_at).toBeGreaterThan(m.message.updated_at);
      expect(r.message.created_at).toBe(m.message.created_at);
      const d = await api.deleteMessage(a, friendCid(b), m2.message.mid);
      expect(d.message.updated_at).toBeGreaterThan(m2.message.updated_at);
      expect(d.message.created_at).toBe(m2.message.created_at);
    });

    it('a repeated recall writes no new event, and no-op reads point at no phantom event', async () => {
      const { a, b } = await factories.pair();
      const m = await api.send(a, friendCid(b), 'x');
      await api.send(a, friendCid(b), 'y');
      await api.recall(a, friendCid(b), m.message.mid);
      const count = (): Promise<number> => outboxDeliveryCount(t, [a, b]);
      const before = await count();
      const again = await api.recall(a, friendCid(b), m.message.mid);
      expect(again.event_id).toBeNull();
      expect(await count()).toBe(before);
      const r = await api.read(b, friendCid(a), '2');
      await expectDelivered(t, r.event_id, [b]);
      const noop = await api.read(b, friendCid(a), '1');
      expect(noop.read_seq).toBe('2');
      if (noop.event_id !== null) await expectDelivered(t, noop.event_id, [b]);
      // Refused operations write nothing.
      const before2 = await count();
      expectFail(await api.raw.read(b, friendCid(a), '3'), 1004);
      expectFail(await api.raw.recall(b, friendCid(a), '999999999'), 1207);
      expect(await count()).toBe(before2);
    });

    it('only someone allowed to recall gets the idempotent "already recalled" success; the peer gets 1208', async () => {
      const { a, b } = await factories.pair();
      const m = await api.send(a, friendCid(b), 'x');
      await api.recall(a, friendCid(b), m.message.mid);
      expectFail(await api.raw.recall(b, friendCid(a), m.message.mid), 1208);
    });

    it('a repeated delete by someone who may not delete is refused with 1208, not answered as success', async () => {
      const { a, b } = await factories.pair();
      const m = await api.send(a, friendCid(b), 'x');
      await api.deleteMessage(a, friendCid(b), m.message.mid);
      expectFail(await api.raw.delete(b, friendCid(a), m.message.mid), 1208);
    });

    it('in a group, a plain member repeating a recall done by an admin is refused with 1208', async () => {
      const owner = await api.user();
      const m1 = await api.user();
      const m2 = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [m1, m2], pub);
      const m = await api.send(m1, groupCid(pub), 'x');
      await api.recall(owner, groupCid(pub), m.message.mid);
      expectFail(await api.raw.recall(m2, groupCid(pub), m.message.mid), 1208);
    });

    it('concurrent reads leave read_seq at the highest value', async () => {
      const { a, b } = await factories.pair();
      await api.sendMany(a, friendCid(b), 12, 'r');
      const values = ['3', '12', '9', '10', '2', '11', '1', '7'];
      await Promise.all(values.map((v) => api.raw.read(b, friendCid(a), v)));
      const w = await api.window(b, friendCid(a), { after_seq: '0' });
      expect(w).toMatchObject({ read_seq: '12', unread: 0 });
      const after9 = await api.read(b, friendCid(a), '9');
      expect(after9.read_seq).toBe('12');
      await api.expectUnread(b, {});
    });

    it('compares read_seq numerically (9 after 10 is a no-op, 10 after 9 moves)', async () => {
      const { a, b } = await factories.pair();
      await api.sendMany(a, friendCid(b), 11, 'n');
      expect((await api.read(b, friendCid(a), '9')).read_seq).toBe('9');
      expect(await api.read(b, friendCid(a), '10')).toMatchObject({ read_seq: '10', unread: 1 });
      expect(await api.read(b, friendCid(a), '9')).toMatchObject({ read_seq: '10', unread: 1 });
      await api.expectUnread(b, { [friendCid(a)]: 1 });
    });
  });

  // =====================================================================================
  describe('group flow (owner, admin, members; unread after every step)', () => {
    it('send, read, recall and delete with owner/admin rights, unread and outbox', async () => {
      const owner = await api.user();
      const admin = await api.user();
      const m1 = await api.user();
      const m2 = await api.user();
      const outsider = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [admin, m1, m2], pub);
      await api.setAdmin(owner, pub, admin, true);
      const cid = groupCid(pub);
      const everyone = [owner, admin, m1, m2];
      const check = async (expected: [IssuedUser, number][]) => {
        for (const [u, n] of expected) await api.expectUnread(u, { [cid]: n });
        await api.expectUnread(outsider, {});
      };
      await check([
        [owner, 0],
        [admin, 0],
        [m1, 0],
        [m2, 0],
      ]);

      // 1. m1 sends
      const s1 = await api.send(m1, cid, 'from m1');
      expect(s1.message).toMatchObject({
        conversation_id: cid,
        conversation_seq: '1',
        sender_id: m1.userId,
        status: 'normal',
      });
      await expectDelivered(t, s1.event_id, everyone, [outsider]);
      await check([
        [owner, 1],
        [admin, 1],
        [m1, 0],
        [m2, 1],
      ]);

      // 2. m2 sends
      const s2 = await api.send(m2, cid, 'from m2');
      expect(s2.message.conversation_seq).toBe('2');
      await check([
        [owner, 2],
        [admin, 2],
        [m1, 1],
        [m2, 1],
      ]);

      // 3. owner sends
      const s3 = await api.send(owner, cid, 'from owner');
      expect(s3.message.conversation_seq).toBe('3');
      await check([
        [owner, 2],
        [admin, 3],
        [m1, 2],
        [m2, 2],
      ]);

      // 4. m2 reads to 2
      const r4 = await api.read(m2, cid, '2');
      expect(r4).toMatchObject({ conversation_id: cid, read_seq: '2', unread: 1 });
      await check([
        [owner, 2],
        [admin, 3],
        [m1, 2],
        [m2, 1],
      ]);

      // 5. a plain member cannot recall or delete another member's message
      expectFail(await api.raw.recall(m2, cid, s1.message.mid), 1208);
      expectFail(await api.raw.delete(m2, cid, s1.message.mid), 1208);
      expectFail(await api.raw.recall(m1, cid, s3.message.mid), 1208);
      await check([
        [owner, 2],
        [admin, 3],
        [m1, 2],
        [m2, 1],
      ]);

      // 6. the admin recalls m1's message (seq 1)
      const rc = await api.recall(admin, cid, s1.message.mid);
      expect(rc.message).toMatchObject({
        mid: s1.message.mid,
        conversation_seq: '1',
        status: 'recalled',
        content: null,
        conversation_id: cid,
      });
      await expectDelivered(t, rc.event_id, everyone, [outsider]);
      await check([
        [owner, 1],
        [admin, 2],
        [m1, 2],
        [m2, 1],
      ]);

      // 7. the owner deletes m2's message (seq 2)
      const del = await api.deleteMessage(owner, cid, s2.message.mid);
      expect(del.message).toMatchObject({
        mid: s2.message.mid,
        conversation_seq: '2',
        status: 'deleted',
        content: null,
      });
      await expectDelivered(t, del.event_id, everyone, [outsider]);
      await check([
        [owner, 0],
        [admin, 1],
        [m1, 1],
        [m2, 1],
      ]);

      // 8. the admin deletes the owner's message (seq 3)
      await api.deleteMessage(admin, cid, s3.message.mid);
      await check([
        [owner, 0],
        [admin, 0],
        [m1, 0],
        [m2, 0],
      ]);

      // 9. m1 sends two more; the admin reads all
      const s9a = await api.send(m1, cid, 'm1 again');
      const s9b = await api.send(m1, cid, 'm1 once more');
      expect([s9a.message.conversation_seq, s9b.message.conversation_seq]).toEqual(['4', '5']);
      await check([
        [owner, 2],
        [admin, 2],
        [m1, 0],
        [m2, 2],
      ]);
      const r9 = await api.read(admin, cid, '5');
      expect(r9).toMatchObject({ read_seq: '5', unread: 0 });
      await check([
        [owner, 2],
        [admin, 0],
        [m1, 0],
        [m2, 2],
      ]);

      // 10. the sender recalls after the window: refused; the owner still may
      t.clock.advance(121_000);
      expectFail(await api.raw.recall(m1, cid, s9a.message.mid), 1208);
      await check([
        [owner, 2],
        [admin, 0],
        [m1, 0],
        [m2, 2],
      ]);
      const rcOwner = await api.recall(owner, cid, s9a.message.mid);
      expect(rcOwner.message).toMatchObject({ status: 'recalled', content: null });
      await check([
        [owner, 1],
        [admin, 0],
        [m1, 0],
        [m2, 1],
      ]);

      // 11. the sender deletes his own message any time
      await api.deleteMessage(m1, cid, s9b.message.mid);
      await check([
        [owner, 0],
        [admin, 0],
        [m1, 0],
        [m2, 0],
      ]);

      // 12. window of everybody: 5 messages, all tombstones, continuous
      const w = await api.latest(m2, cid);
      expect(seqs(w.messages)).toEqual([1, 2, 3, 4, 5]);
      expect(w.messages.map((m) => m.status)).toEqual(['recalled', 'deleted', 'deleted', 'recalled', 'deleted']);
      expect(w.messages.every((m) => m.content === null)).toBe(true);
      expect(w.unread).toBe(0);

      // 13. an outsider can neither read, send, recall nor mark read
      expectFail(await api.raw.messages(outsider, { conversation_id: cid, before_seq: '5' }), 1201);
      expectFail(
        await api.raw.send(outsider, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1201,
      );
      expectFail(await api.raw.read(outsider, cid, '1'), 1201);
      expectFail(await api.raw.recall(outsider, cid, s9a.message.mid), 1201);
      expectFail(await api.raw.delete(outsider, cid, s9a.message.mid), 1201);
    });

    it('a muted member cannot send (1203) until muted_until has passed', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      await api.muteMember(owner, pub, member, 3600);
      expectFail(
        await api.raw.send(member, {
          conversation_id: groupCid(pub),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'muted' },
        }),
        1203,
      );
      await api.expectUnread(owner, {});
      await api.muteMember(owner, pub, member, 0);
      const s = await api.send(member, groupCid(pub), 'free again');
      expect(s.message.conversation_seq).toBe('1');
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a removed member cannot send (1203), sees only messages up to the leave point and is not an event recipient', async () => {
      const owner = await api.user();
      const stay = await api.user();
      const gone = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [stay, gone], pub);
      const before = await api.sendMany(owner, cid, 3, 'before');
      await api.expectUnread(gone, { [cid]: 3 });
      await api.read(gone, cid, '1');
      await api.expectUnread(gone, { [cid]: 2 });
      await api.removeMembers(owner, pub, [gone]);
      const after = await api.send(owner, cid, 'after leaving secret');
      await expectDelivered(t, after.event_id, [owner, stay], [gone]);
      await api.send(stay, cid, 'after leaving 2');
      expectFail(
        await api.raw.send(gone, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'let me in' },
        }),
        1203,
      );

      // The window is capped at the leave point.
      const w = await api.latest(gone, cid);
      expect(w.last_seq).toBe('3');
      expect(seqs(w.messages)).toEqual([1, 2, 3]);
      expect(w.has_more_after).toBe(false);
      const afterWin = await api.window(gone, cid, { after_seq: '3' });
      expect(afterWin.messages).toEqual([]);
      expect(afterWin.has_more_after).toBe(false);
      expect(afterWin.last_seq).toBe('3');
      const page = await api.window(gone, cid, { before_seq: '5' });
      expect(seqs(page.messages)).toEqual([1, 2, 3]);
      const around = api.raw.messages(gone, { conversation_id: cid, around_mid: after.message.mid });
      const aroundReply = await around;
      expect(aroundReply.body.code).not.toBe(0);
      // A calibration with the member's own values stays unchanged even though the group moved on.
      const same = await api.window(gone, cid, trioOf(w));
      expect(same.outcome).toBe('unchanged');
      expect(same.messages).toEqual([]);

      // Unread counts only what was visible; reading past the cap is refused.
      await api.expectUnread(gone, { [cid]: 2 });
      expectFail(await api.raw.read(gone, cid, '4'), 1004);
      const r = await api.read(gone, cid, '3');
      expect(r).toMatchObject({ read_seq: '3', unread: 0 });
      await api.expectUnread(gone, {});
      await api.expectUnread(stay, { [cid]: 4 });

      // Sync marks the conversation as no longer a member, capped at the leave point.
      const item = (await api.syncAll(gone)).items.find((i) => i.conversation_id === cid);
      if (item) {
        expect(item.is_member).toBe(false);
        expect(item.last_seq).toBe('3');
        expect(item.last_message?.mid).toBe(before[2].mid);
      }
      // Search never shows what was said after the leave point.
      const found = expectOk<{ items: Msg[] }>(
        await api.raw.search(gone, { conversation_id: cid, keyword: 'after leaving' }),
      );
      expect(found.items).toEqual([]);
      const foundBefore = expectOk<{ items: Msg[] }>(
        await api.raw.search(gone, { conversation_id: cid, keyword: 'before' }),
      );
      expect(foundBefore.items.map((m) => m.mid)).toEqual(before.map((m) => m.mid).reverse());
    });

    it('a member who joined later sees only later messages and counts only them as unread', async () => {
      const owner = await api.user();
      const late = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [], pub);
      await api.sendMany(owner, cid, 4, 'early secret');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [late]);
      await api.expectUnread(late, {});
      const later = await api.sendMany(owner, cid, 2, 'later');
      await api.expectUnread(late, { [cid]: 2 });
      const w = await api.latest(late, cid);
      expect(seqs(w.messages)).toEqual([5, 6]);
      expect(w.has_more_before).toBe(false);
      expect(w.last_seq).toBe('6');
      const older = await api.window(late, cid, { before_seq: '5' });
      expect(older.messages).toEqual([]);
      expect(older.has_more_before).toBe(false);
      const fromZero = await api.window(late, cid, { after_seq: '0' });
      expect(seqs(fromZero.messages)).toEqual([5, 6]);
      const search = expectOk<{ items: Msg[] }>(
        await api.raw.search(late, { conversation_id: cid, keyword: 'early secret' }),
      );
      expect(search.items).toEqual([]);
      const laterSearch = expectOk<{ items: Msg[] }>(
        await api.raw.search(late, { conversation_id: cid, keyword: 'later' }),
      );
      expect(laterSearch.items.map((m) => m.mid)).toEqual(later.map((m) => m.mid).reverse());
      const r = await api.read(late, cid, '6');
      expect(r).toMatchObject({ read_seq: '6', unread: 0 });
      await api.expectUnread(late, {});
    });

    it('a disabled group refuses sending with 1218', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      await api.send(member, groupCid(pub), 'before disable');
      await factories.disableGroup(pub);
      expectFail(
        await api.raw.send(member, {
          conversation_id: groupCid(pub),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1218,
      );
      expectFail(
        await api.raw.send(owner, {
          conversation_id: groupCid(pub),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1218,
      );
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('the owner and an admin may recall any member message without a time limit; a member may not recall an admin one', async () => {
      const owner = await api.user();
      const admin = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [admin, member], pub);
      await api.setAdmin(owner, pub, admin, true);
      const a1 = await api.send(member, cid, 'one');
      const a2 = await api.send(member, cid, 'two');
      const byAdmin = await api.send(admin, cid, 'admin says');
      t.clock.advance(3_600_000);
      expect((await api.recall(admin, cid, a1.message.mid)).message.status).toBe('recalled');
      expect((await api.recall(owner, cid, a2.message.mid)).message.status).toBe('recalled');
      expectFail(await api.raw.recall(member, cid, byAdmin.message.mid), 1208);
      expectFail(await api.raw.delete(member, cid, byAdmin.message.mid), 1208);
      await api.expectUnread(owner, { [cid]: 1 });
      await api.expectUnread(member, { [cid]: 1 });
    });

    it('an admin of one group has no rights in another group where he is a plain member', async () => {
      const ownerX = await api.user();
      const ownerY = await api.user();
      const boss = await api.user();
      const member = await api.user();
      const pubX = randomGroupId();
      const pubY = randomGroupId();
      await factories.group(ownerX, [boss, member], pubX);
      await factories.group(ownerY, [boss, member], pubY);
      await api.setAdmin(ownerX, pubX, boss, true);
      const inY = await api.send(member, groupCid(pubY), 'in Y');
      expectFail(await api.raw.recall(boss, groupCid(pubY), inY.message.mid), 1208);
      expectFail(await api.raw.delete(boss, groupCid(pubY), inY.message.mid), 1208);
      // The owner of group Y is only a member in nothing else: he may not act in group X either.
      const inX = await api.send(member, groupCid(pubX), 'in X');
      expectFail(await api.raw.recall(ownerY, groupCid(pubX), inX.message.mid), 1201);
      expect((await api.latest(member, groupCid(pubY))).messages[0]).toMatchObject({ status: 'normal' });
      await api.expectUnread(boss, { [groupCid(pubX)]: 1, [groupCid(pubY)]: 1 });
    });

    it("a removed admin can no longer recall or delete other members' messages", async () => {
      const owner = await api.user();
      const admin = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [admin, member], pub);
      await api.setAdmin(owner, pub, admin, true);
      const m = await api.send(member, groupCid(pub), 'keep me');
      await api.removeMembers(owner, pub, [admin]);
      const r1 = await api.raw.recall(admin, groupCid(pub), m.message.mid);
      const r2 = await api.raw.delete(admin, groupCid(pub), m.message.mid);
      expect([r1.body.code, r2.body.code].every((code: number) => code === 1201 || code === 1208)).toBe(true);
      expect((await api.latest(owner, groupCid(pub))).messages[0]).toMatchObject({
        mid: m.message.mid,
        status: 'normal',
      });
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it("a former member's versions move only with changes inside his window, the same in sync and messages; rejoining gives the group's", async () => {
      const owner = await api.user();
      const gone = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [gone], pub);
      const seen = await api.sendMany(owner, cid, 3, 'seen');
      await api.leaveGroup(gone, pub);
      const later = await api.sendMany(owner, cid, 3, 'later');
      const versions = async (): Promise<{ window: MessageWindow; item: SyncItem | undefined }> => ({
        window: await api.latest(gone, cid),
        item: (await api.syncAll(gone)).items.find((i) => i.conversation_id === cid),
      });
      const agree = ({ window, item }: { window: MessageWindow; item: SyncItem | undefined }) => {
        expect(item).toMatchObject({
          last_seq: window.last_seq,
          updated_at: window.updated_at,
          deletion_revision: window.deletion_revision,
          is_member: false,
        });
      };

      const atLeave = await versions();
      agree(atLeave);
      expect(atLeave.window.last_seq).toBe('3');
      // The group's later recall and delete: nothing changes for him.
      await api.recall(owner, cid, later[0].mid);
      await api.deleteMessage(owner, cid, later[1].mid);
      const untouched = await versions();
      expect(untouched.window).toMatchObject({
        updated_at: atLeave.window.updated_at,
        deletion_revision: atLeave.window.deletion_revision,
      });
      agree(untouched);
      expect((await api.window(gone, cid, trioOf(atLeave.window))).outcome).toBe('unchanged');
      const groupNow = await api.latest(owner, cid);
      expect(groupNow.deletion_revision).not.toBe(atLeave.window.deletion_revision);

      // A recall inside his window moves his content version; a delete also his deletion revision.
      t.clock.advance(1000);
      await api.recall(owner, cid, seen[2].mid);
      const recalled = await versions();
      expect(Number(recalled.window.updated_at)).toBeGreaterThan(Number(atLeave.window.updated_at));
      expect(recalled.window.deletion_revision).toBe(atLeave.window.deletion_revision);
      agree(recalled);
      const reset = await api.window(gone, cid, trioOf(atLeave.window));
      expect(reset.outcome).toBe('reset');
      expect(reset.messages.find((m) => m.mid === seen[2].mid)).toMatchObject({ status: 'recalled', content: null });
      await api.deleteMessage(owner, cid, seen[0].mid);
      const deleted = await versions();
      expect(Number(deleted.window.updated_at)).toBeGreaterThan(Number(recalled.window.updated_at));
      expect(BigInt(deleted.window.deletion_revision)).toBeGreaterThan(BigInt(recalled.window.deletion_revision));
      agree(deleted);

      // Back in the group, he follows the group's versions again.
      await api.addMembers(owner, pub, [gone]);
      const rejoined = await versions();
      const group = await api.latest(owner, cid);
      expect(rejoined.window).toMatchObject({
        updated_at: group.updated_at,
        deletion_revision: group.deletion_revision,
        last_seq: group.last_seq,
      });
      expect(rejoined.item).toMatchObject({
        updated_at: group.updated_at,
        deletion_revision: group.deletion_revision,
        is_member: true,
      });
    });

    it('a removed member cannot recall or delete even his own message (1208), and nothing changes', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      const mine = await api.send(member, groupCid(pub), 'said before leaving');
      await api.removeMembers(owner, pub, [member]);
      const before = (await api.latest(owner, groupCid(pub))).messages[0];
      for (const response of [
        await api.raw.recall(member, groupCid(pub), mine.message.mid),
        await api.raw.delete(member, groupCid(pub), mine.message.mid),
      ]) {
        expect(response.body).toMatchObject({ code: 1208, data: null });
        expect(response.body.msg).toMatch(/^mid: .*no longer a member/);
      }
      expect((await api.latest(owner, groupCid(pub))).messages[0]).toEqual(before);
      expect((await api.latest(member, groupCid(pub))).messages[0]).toMatchObject({
        mid: mine.message.mid,
        status: 'normal',
      });
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a late member cannot open a window around an earlier message', async () => {
      const owner = await api.user();
      const late = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [], pub);
      const early = await api.send(owner, groupCid(pub), 'early');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [late]);
      await api.send(owner, groupCid(pub), 'late');
      const response = await api.raw.messages(late, { conversation_id: groupCid(pub), around_mid: early.message.mid });
      expect(response.body.code).not.toBe(0);
      expect(response.body.data).toBeNull();
      // nor recall/delete it as if it were visible
      const search = expectOk<{ items: Msg[] }>(
        await api.raw.search(late, { conversation_id: groupCid(pub), keyword: 'early' }),
      );
      expect(search.items).toEqual([]);
    });

    it('a member removed and then re-added does not see what was said while away', async () => {
      const owner = await api.user();
      const back = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [back], pub);
      await api.send(owner, cid, 'first');
      t.clock.advance(1000);
      await api.removeMembers(owner, pub, [back]);
      t.clock.advance(1000);
      await api.send(owner, cid, 'while away secret');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [back]);
      await api.send(owner, cid, 'after return');
      const w = await api.latest(back, cid);
      const texts = w.messages.map((m) => (m.content as { text: string } | null)?.text);
      expect(texts).toContain('after return');
      expect(texts).not.toContain('while away secret');
      const found = expectOk<{ items: Msg[] }>(await api.raw.search(back, { conversation_id: cid, keyword: 'secret' }));
      expect(found.items).toEqual([]);
    });

    it('tombstones after a member left do not change his unread; tombstones before it do', async () => {
      const owner = await api.user();
      const gone = await api.user();
      const stay = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [gone, stay], pub);
      const pre = await api.sendMany(owner, cid, 3, 'pre');
      await api.read(gone, cid, '1');
      await api.expectUnread(gone, { [cid]: 2 });
      await api.leaveGroup(gone, pub);
      const post = await api.sendMany(owner, cid, 2, 'post');
      await api.expectUnread(gone, { [cid]: 2 });
      await api.recall(owner, cid, post[0].mid);
      await api.expectUnread(gone, { [cid]: 2 });
      await api.deleteMessage(owner, cid, post[1].mid);
      await api.expectUnread(gone, { [cid]: 2 });
      await api.expectUnread(stay, { [cid]: 3 });
      await api.deleteMessage(owner, cid, pre[2].mid);
      await api.expectUnread(gone, { [cid]: 1 });
      await api.expectUnread(stay, { [cid]: 2 });
      const w = await api.latest(gone, cid);
      expect(w).toMatchObject({ last_seq: '3', unread: 1 });
    });

    it('tombstones of messages before a member joined do not change his unread', async () => {
      const owner = await api.user();
      const late = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [], pub);
      const early = await api.sendMany(owner, cid, 3, 'early');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [late]);
      await api.sendMany(owner, cid, 2, 'later');
      await api.expectUnread(late, { [cid]: 2 });
      await api.recall(owner, cid, early[2].mid);
      await api.deleteMessage(owner, cid, early[1].mid);
      await api.expectUnread(late, { [cid]: 2 });
      expect((await api.latest(late, cid)).unread).toBe(2);
    });

    it('a client_message_id refused for a muted member is free again once he may send', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      const key = cmid();
      await api.muteMember(owner, pub, member, 3600);
      expectFail(
        await api.raw.send(member, {
          conversation_id: groupCid(pub),
          client_message_id: key,
          type: 'text',
          content: { text: 'k' },
        }),
        1203,
      );
      await api.muteMember(owner, pub, member, 0);
      const s = await api.send(member, groupCid(pub), 'k', key);
      expect(s.message).toMatchObject({ client_message_id: key, conversation_seq: '1' });
    });
  });

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
      const m1 = await post('one');
      const m2 = await post('two');
      k.clock.advance(9_000);
      expectOk(await kApi.raw.recall(a, friendCid(b), m1.mid));
      k.clock.advance(2_000);
      expectFail(await kApi.raw.recall(a, friendCid(b), m2.mid), 1208);
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
