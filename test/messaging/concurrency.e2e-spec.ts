// Concurrency of the messaging core (spec 4.6, 4.7; docs/messaging.md "Messages" and "Unread"):
// parallel senders get a gapless sequence 1..N in each sender's order, a client_message_id raced
// 20 times makes one message, reads racing sends never let unread drift, and a recall raced by
// sender and owner makes one tombstone. Meant for MariaDB, where requests really run
// concurrently; also on SQLite.
import type { DeliverableEventOf } from '../../src/outbox/deliverable-event';
import { listDelivered } from '../helpers/outbox';
import { TestApp, startTestApp } from '../helpers/test-app';
import {
  ApiClient,
  Body,
  IssuedUser,
  MessageChangeReply,
  Msg,
  ReadReply,
  cmid,
  friendCid,
  groupCid,
} from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';

describe('Messaging core: concurrency', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const sendOk = async (
    user: IssuedUser,
    conversationId: string,
    text: string,
  ): Promise<{ mid: string; seq: number }> => {
    const { message } = await api.send(user, conversationId, text);
    return { mid: message.mid, seq: Number(message.conversation_seq) };
  };

  /** Every message of the conversation from seq 1, paged forward with after_seq. */
  const readAll = async (user: IssuedUser, conversationId: string): Promise<Msg[]> => {
    const all: Msg[] = [];
    let after = 0;
    for (let guard = 0; guard < 100; guard++) {
      const data = await api.window(user, conversationId, { after_seq: String(after) });
      const page = data.messages;
      all.push(...page);
      if (!data.has_more_after || page.length === 0) break;
      after = Number(page[page.length - 1].conversation_seq);
    }
    return all;
  };

  /** The user's view of one conversation through the three read chains. */
  const views = async (user: IssuedUser, conversationId: string) => {
    const [syncData, unreadData, windowData] = await Promise.all([
      api.sync(user),
      api.unread(user),
      api.latest(user, conversationId),
    ]);
    const item = syncData.conversations.items.find((i) => i.conversation_id === conversationId);
    const entry = unreadData.conversations.find((i) => i.conversation_id === conversationId);
    return {
      sync: item ? { last_seq: item.last_seq, read_seq: item.read_seq, unread: item.unread } : null,
      syncTotal: syncData.unread.total,
      unreadTotal: unreadData.total,
      unreadEntry: entry ? entry.unread : null,
      window: {
        last_seq: windowData.last_seq,
        read_seq: windowData.read_seq,
        unread: windowData.unread,
        updated_at: windowData.updated_at,
        deletion_revision: windowData.deletion_revision,
      },
    };
  };

  /** Asserts every chain shows last_seq, read_seq and unread; the aggregate is `total` (default: this conversation's unread). */
  const expectView = async (
    user: IssuedUser,
    conversationId: string,
    expected: { last_seq: number; read_seq: number; unread: number },
    label: string,
    total = expected.unread,
  ) => {
    const v = await views(user, conversationId);
    const want = { last_seq: String(expected.last_seq), read_seq: String(expected.read_seq), unread: expected.unread };
    expect({
      label,
      sync: v.sync,
      window: { last_seq: v.window.last_seq, read_seq: v.window.read_seq, unread: v.window.unread },
      totals: [v.syncTotal, v.unreadTotal],
    }).toEqual({
      label,
      sync: want,
      window: want,
      totals: [total, total],
    });
    if (v.unreadEntry !== null)
      expect({ label, unreadEntry: v.unreadEntry }).toEqual({ label, unreadEntry: expected.unread });
    return v;
  };

  it('(a) 8 senders × 50 messages in parallel: sequences exactly 1..400, each sender in order, exact unread', async () => {
    const senders = await api.users(8);
    const [idle] = await api.users(1);
    const conversationId = groupCid(await api.createGroup(senders[0], [...senders.slice(1), idle]));

    const replies = await Promise.all(
      senders.map(async (sender, s) => {
        const mine: { mid: string; seq: number }[] = [];
        for (let i = 0; i < 50; i++) mine.push(await sendOk(sender, conversationId, `s${s}-${i}`));
        return mine;
      }),
    );

    // Each sender's replies grow in its own send order.
    for (const [s, mine] of replies.entries()) {
      const seqs = mine.map((m) => m.seq);
      expect({ sender: s, increasing: seqs.every((q, i) => i === 0 || q > seqs[i - 1]) }).toEqual({
        sender: s,
        increasing: true,
      });
    }
    const replySeqs = replies
      .flat()
      .map((m) => m.seq)
      .sort((x, y) => x - y);
    expect(replySeqs).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    expect(new Set(replies.flat().map((m) => m.mid)).size).toBe(400);

    // Read back: exactly 1..400, the stored order of each sender is its send order, mids match replies.
    const all = await readAll(idle, conversationId);
    expect(all.map((m) => Number(m.conversation_seq))).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    const bySeq = new Map(replies.flat().map((m) => [m.seq, m.mid]));
    expect(
      all.filter((m) => String(m.mid) !== bySeq.get(Number(m.conversation_seq))).map((m) => m.conversation_seq),
    ).toEqual([]);
    for (let s = 0; s < 8; s++) {
      const texts = all
        .filter((m) => m.sender_id === senders[s].userId)
        .map((m) => (m.content as { text: string }).text);
      expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `s${s}-${i}`));
    }

    // How much the senders really interleaved (7 switches = fully serialized, 399 = round robin).
    const switches = all.filter((m, i) => i > 0 && m.sender_id !== all[i - 1].sender_id).length;
    process.stdout.write(`[messaging-concurrency ${t.driver}] (a) sender switches along 1..400: ${switches}\n`);

    // last_seq 400 everywhere; unread: 350 for each sender (others' messages), 400 for the idle member.
    await expectView(idle, conversationId, { last_seq: 400, read_seq: 0, unread: 400 }, 'idle member');
    for (const [s, sender] of senders.entries())
      await expectView(sender, conversationId, { last_seq: 400, read_seq: 0, unread: 350 }, `sender ${s}`);
  });

  it('(b) 20 parallel sends with the same client_message_id make exactly one message', async () => {
    const [owner, sender, other] = await api.users(3);
    const conversationId = groupCid(await api.createGroup(owner, [sender, other]));
    await sendOk(owner, conversationId, 'before');
    await api.befriend(sender, other);
    const direct = friendCid(other);

    for (const [label, conv, lastBefore] of [
      ['group', conversationId, 1],
      ['one-to-one', direct, 0],
    ] as const) {
      const clientMessageId = cmid();
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          api.raw.send(sender, {
            conversation_id: conv,
            client_message_id: clientMessageId,
            type: 'text',
            content: { text: 'same text' },
          }),
        ),
      );
      const summary = results.map((r) => {
        const body = r.body as { code: number; data: { message: Body; event_id: unknown } | null };
        return body.code === 0
          ? {
              code: 0,
              mid: body.data!.message.mid,
              seq: body.data!.message.conversation_seq,
              event_id: body.data!.event_id,
            }
          : { code: body.code, msg: (r.body as Body).msg };
      });
      expect({ label, codes: summary.map((s) => s.code) }).toEqual({ label, codes: Array(20).fill(0) });
      expect({ label, distinct: new Set(summary.map((s) => JSON.stringify(s))).size, first: summary[0] }).toEqual({
        label,
        distinct: 1,
        first: { code: 0, mid: expect.any(String), seq: String(lastBefore + 1), event_id: expect.any(String) },
      });
      const all = await readAll(other, label === 'group' ? conv : friendCid(sender));
      expect({
        label,
        seqs: all.map((m) => Number(m.conversation_seq)),
        withKey: all.filter((m) => m.client_message_id === clientMessageId).length,
      }).toEqual({
        label,
        seqs: Array.from({ length: lastBefore + 1 }, (_, i) => i + 1),
        withKey: 1,
      });
    }
    // The recipient's unread counts the raced message once in each conversation.
    await expectView(other, friendCid(sender), { last_seq: 1, read_seq: 0, unread: 1 }, 'recipient, one-to-one', 3);
    await expectView(other, conversationId, { last_seq: 2, read_seq: 0, unread: 2 }, 'recipient, group', 3);
  });

  it('(c) reads racing sends never make unread drift', async () => {
    const [a, b, c] = await api.users(3);
    const group = groupCid(await api.createGroup(a, [b, c]));
    await api.befriend(a, b);
    const conversations = { group: { forA: group, forB: group }, direct: { forA: friendCid(b), forB: friendCid(a) } };

    const finals = await Promise.all(
      (['group', 'direct'] as const).map(async (kind) => {
        const { forA, forB } = conversations[kind];
        const aSeqs: number[] = [];
        let seen = 0; // the highest sequence B has seen (from the previous round)
        let readSeq = 0;
        for (let round = 0; round < 30; round++) {
          const [sent, read] = await Promise.all([
            sendOk(a, forA, `${kind}-${round}`),
            api.raw.read(b, forB, String(seen)),
          ]);
          aSeqs.push(sent.seq);
          const data = expectOk<ReadReply>(read);
          readSeq = Math.max(readSeq, seen);
          // The read answers B's unread either before or after the racing send: never anything else.
          const afterRead = aSeqs.filter((q) => q > readSeq).length;
          expect({
            kind,
            round,
            read_seq: data.read_seq,
            unreadInReply: [afterRead - 1, afterRead].includes(data.unread as number) ? 'ok' : data.unread,
          }).toEqual({
            kind,
            round,
            read_seq: String(readSeq),
            unreadInReply: 'ok',
          });
          // B sees the previous round's message before the next read (sometimes lagging one more).
          seen = round % 4 === 3 ? seen : aSeqs[aSeqs.length - 1];
        }
        expect({ kind, seqs: aSeqs }).toEqual({ kind, seqs: Array.from({ length: 30 }, (_, i) => i + 1) });
        return { kind, forB, readSeq, unread: aSeqs.filter((q) => q > readSeq).length };
      }),
    );

    // B's unread in each conversation is exactly A's messages after B's read_seq, on every chain.
    const total = finals.reduce((sum, f) => sum + f.unread, 0);
    for (const f of finals)
      await expectView(
        b,
        f.forB,
        { last_seq: 30, read_seq: f.readSeq, unread: f.unread },
        `${f.kind}: B after the races`,
        total,
      );
    // A sent everything and reads nothing: no unread for A.
    await expectView(a, conversations.direct.forA, { last_seq: 30, read_seq: 0, unread: 0 }, 'direct: A', 0);
  });

  it('(d) sender and owner recall (or delete) the same message at once: one tombstone, unread decremented once', async () => {
    const [owner, sender, reader, reader2] = await api.users(4);
    const conversationId = groupCid(await api.createGroup(owner, [sender, reader, reader2]));
    const ROUNDS = 8;
    const mids: string[] = [];
    for (let i = 0; i < ROUNDS * 2; i++) mids.push((await sendOk(sender, conversationId, `m${i}`)).mid);
    // reader2 reads half way, so only the unread half counts for it.
    await api.read(reader2, conversationId, String(ROUNDS));

    let before = await views(owner, conversationId);
    let unreadReader = ROUNDS * 2;
    let unreadReader2 = ROUNDS;
    let deletes = 0;
    for (let i = 0; i < ROUNDS * 2; i++) {
      const op = i % 2 === 0 ? 'recall' : 'delete';
      const mid = mids[i];
      const [bySender, byOwner] = await Promise.all([
        api.raw[op](sender, conversationId, mid),
        api.raw[op](owner, conversationId, mid),
      ]);
      const s = expectOk<MessageChangeReply>(bySender);
      const o = expectOk<MessageChangeReply>(byOwner);
      // One of the two made the change and announced it; the other was the no-op repeat.
      expect({ op, i, eventIds: [s.event_id, o.event_id].filter((e) => e !== null && e !== undefined).length }).toEqual(
        { op, i, eventIds: 1 },
      );
      unreadReader -= 1;
      if (i + 1 > ROUNDS) unreadReader2 -= 1;
      if (op === 'delete') deletes += 1;
      const after = await views(owner, conversationId);
      expect({
        op,
        i,
        deletion_revision: after.window.deletion_revision,
        updatedAtIncreased: (after.window.updated_at as number) > (before.window.updated_at as number),
      }).toEqual({
        op,
        i,
        deletion_revision: String(deletes),
        updatedAtIncreased: true,
      });
      before = after;
      await expectView(
        reader,
        conversationId,
        { last_seq: ROUNDS * 2, read_seq: 0, unread: unreadReader },
        `reader after ${op} of m${i}`,
      );
      await expectView(
        reader2,
        conversationId,
        { last_seq: ROUNDS * 2, read_seq: ROUNDS, unread: unreadReader2 },
        `reader2 after ${op} of m${i}`,
      );
    }
    const all = await readAll(reader, conversationId);
    expect(all.map((m) => [m.conversation_seq, m.status, m.content])).toEqual(
      mids.map((_, i) => [String(i + 1), i % 2 === 0 ? 'recalled' : 'deleted', null]),
    );
  });

  it('(e) recalls and deletes racing reads and sends keep unread exact', async () => {
    const [owner, a, b] = await api.users(3);
    const conversationId = groupCid(await api.createGroup(owner, [a, b]));
    const messages = new Map<number, { mid: string; status: 'normal' | 'recalled' | 'deleted' }>();
    let readSeq = 0;
    let deletes = 0;
    for (let i = 0; i < 4; i++) {
      const m = await sendOk(a, conversationId, `pre-${i}`);
      messages.set(m.seq, { mid: m.mid, status: 'normal' });
    }
    let rnd = 12345;
    const next = (n: number): number => {
      rnd = (rnd * 1103515245 + 12345) % 2147483648;
      return Math.floor(rnd / 65536) % n;
    };
    for (let round = 0; round < 20; round++) {
      const last = messages.size;
      const normal = [...messages].filter(([, m]) => m.status === 'normal').map(([q]) => q);
      const target = normal.length ? normal[next(normal.length)] : null;
      const op = round % 2 === 0 ? 'recall' : 'delete';
      const readTo = Math.max(0, last - next(3)); // B reads to what it has seen, at or around the tombstone
      const [sent, tomb, read] = await Promise.all([
        sendOk(a, conversationId, `r${round}`),
        target === null ? Promise.resolve(null) : api.raw[op](owner, conversationId, messages.get(target)!.mid),
        api.raw.read(b, conversationId, String(readTo)),
      ]);
      messages.set(sent.seq, { mid: sent.mid, status: 'normal' });
      expectOk<ReadReply>(read);
      readSeq = Math.max(readSeq, readTo);
      if (tomb && target !== null) {
        expectOk<MessageChangeReply>(tomb);
        messages.get(target)!.status = op === 'recall' ? 'recalled' : 'deleted';
        if (op === 'delete') deletes += 1;
      }
      const expected = [...messages].filter(([q, m]) => q > readSeq && m.status === 'normal').length;
      const label = `round ${round}: B after ${op} of seq ${String(target)} racing a read to ${readTo} and a send`;
      const v = await expectView(
        b,
        conversationId,
        { last_seq: messages.size, read_seq: readSeq, unread: expected },
        label,
      );
      expect({ label, deletion_revision: v.window.deletion_revision }).toEqual({
        label,
        deletion_revision: String(deletes),
      });
    }
  });

  it('(f) members leaving and joining while others send: each sees a contiguous range and unread counts exactly it', async () => {
    const [owner, s1, s2] = await api.users(3);
    const leavers = await api.users(4);
    const joiners = await api.users(4);
    const publicId = await api.createGroup(owner, [s1, s2, ...leavers]);
    const conversationId = groupCid(publicId);
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    // Membership changes fire while the two senders are in full flow.
    let sent = 0;
    const whenSent = async (n: number) => {
      while (sent < n) await pause(1);
    };
    await Promise.all([
      ...[s1, s2].map(async (sender, n) => {
        for (let i = 0; i < 25; i++) {
          await sendOk(sender, conversationId, `s${n}-${i}`);
          sent += 1;
        }
      }),
      ...leavers.map(async (u, i) => {
        await whenSent(5 + i * 10);
        await api.leaveGroup(u, publicId);
      }),
      ...joiners.map(async (u, i) => {
        await whenSent(8 + i * 10);
        await api.addMembers(owner, publicId, [u]);
      }),
    ]);

    const windowOf = async (user: IssuedUser) => {
      const data = await api.latest(user, conversationId);
      return {
        seqs: data.messages.map((m) => Number(m.conversation_seq)),
        last_seq: Number(data.last_seq),
        read_seq: Number(data.read_seq),
        unread: data.unread,
      };
    };
    // Leavers: everything from 1 to the leaving point, all of it unread (nothing was read), no more
    // sending. Joiners: from the joining point to 50, and unread counts exactly those. Every chain agrees.
    const actual: Body[] = [];
    const expected: Body[] = [];
    for (const [i, u] of [...leavers, ...joiners].entries()) {
      const leaver = i < leavers.length;
      const label = leaver ? `leaver ${i}` : `joiner ${i - leavers.length}`;
      const w = await windowOf(u);
      const v = await views(u, conversationId);
      const from = leaver ? 1 : w.seqs.length ? w.seqs[0] : 51;
      const to = leaver ? w.last_seq : 50;
      const range = Array.from({ length: Math.max(0, to - from + 1) }, (_, q) => from + q);
      const chains = { window: w.unread, sync: v.sync?.unread ?? null, unreadEndpoint: v.unreadTotal };
      // The outbox delivers exactly the message.new events of that range (what the gateway resumes from).
      const delivered = (await listDelivered(t, u.id, '0', 1000))
        .filter(
          (e): e is DeliverableEventOf<'message.new'> =>
            e.type === 'message.new' && e.payload.conversation_id === conversationId,
        )
        .map((e) => Number((e.payload.message as Body).conversation_seq));
      actual.push({ label, range: `${from}..${to}`, seqs: w.seqs, last_seq: w.last_seq, unread: chains, delivered });
      expected.push({
        label,
        range: `${from}..${to}`,
        seqs: range,
        last_seq: to,
        unread: { window: range.length, sync: range.length, unreadEndpoint: range.length },
        delivered: range,
      });
      if (leaver) {
        actual.push({
          label,
          sendAfterLeaving: (
            await api.raw.send(u, {
              conversation_id: conversationId,
              client_message_id: cmid(),
              type: 'text',
              content: { text: 'after leaving' },
            })
          ).body.code as number,
        });
        expected.push({ label, sendAfterLeaving: 1203 });
      }
    }
    process.stdout.write(
      `[messaging-concurrency ${t.driver}] (f) ${actual
        .filter((a) => a.range)
        .map((a) => `${String(a.label)} ${String(a.range)} unread ${JSON.stringify(a.unread)}`)
        .join('; ')}\n`,
    );
    expect(actual).toEqual(expected);
    await expectView(owner, conversationId, { last_seq: 50, read_seq: 0, unread: 50 }, 'owner');
  });
});
