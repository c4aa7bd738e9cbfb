// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, cmid, friendCid, groupCid } from '../helpers/api-client';
import { expectDelivered, expectFail, outboxDeliveryCount, seqs } from '../helpers/assertions';
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
      // Held still, so that the time the requests themselves take on a loaded machine counts for nothing.
      t.clock.set(t.clock.now());
      try {
        const m1 = await api.send(a, friendCid(b), 'one');
        const m2 = await api.send(a, friendCid(b), 'two');
        t.clock.advance(119_000);
        expect((await api.recall(a, friendCid(b), m1.message.mid)).message.status).toBe('recalled');
        t.clock.advance(2_000);
        expectFail(await api.raw.recall(a, friendCid(b), m2.message.mid), 1208);
      } finally {
        t.clock.release();
      }
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
});
