// Write transactions racing each other (issue 10, defect 4): recalls, deletes, sends, reads and
// membership changes of one group at once must never answer 500 (a deadlock that escaped the
// retries), and must leave exactly what the acknowledged operations say: every acknowledged send
// stored once, sequences 1..last_seq without gap, tombstones keeping mid and sequence, unread equal
// to what the rows say, membership as the last operation left it. Meant for MariaDB, where the
// requests really run concurrently (see ConversationMembersRepository.lockMembers for the lock
// order); also run on SQLite.
//
// The rows are read with SQL on purpose: what was stored is what these tests judge, beside what
// the API answers.
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, GroupMember, IssuedUser, Page, cmid, friendCid, groupCid } from '../helpers/api-client';
import { directTotals, expectOk } from '../helpers/assertions';

type Row = Record<string, string | number | null>;

/** Every reply of a round, by operation, to assert on at the end (and to print when one is wrong). */
interface Outcome {
  op: string;
  status: number;
  code: unknown;
  msg: unknown;
}

describe('Write concurrency: recalls, deletes, sends, reads and membership changes at once', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  /** Records the reply and returns it; nothing here throws, so one round always finishes and is judged whole. */
  const track =
    (outcomes: Outcome[], op: string) =>
    (response: Response): Response => {
      const body = response.body as { code?: unknown; msg?: unknown };
      outcomes.push({ op, status: response.status, code: body?.code, msg: body?.msg });
      return response;
    };
  const data = (response: Response): Body => (response.body as { data: Body }).data;

  const sendText = (user: IssuedUser, conversationId: string, text: string, clientMessageId: string) =>
    api.raw.send(user, {
      conversation_id: conversationId,
      client_message_id: clientMessageId,
      type: 'text',
      content: { text },
    });

  /** Acknowledged sends: client_message_id → the mid and sequence the reply gave. */
  type Acked = Map<string, { mid: string; seq: number; senderId: string }>;

  /** A group through the API, with the internal ID of its conversation for the row checks. */
  async function createGroup(
    owner: IssuedUser,
    members: IssuedUser[],
  ): Promise<{ publicId: string; conversationId: string; internalId: string }> {
    const publicId = await api.createGroup(owner, members, { name: 'race' });
    const [row] = (await db.query(
      'SELECT c.id AS id FROM conversations c JOIN `groups` g ON g.id = c.group_id WHERE g.public_id = ?',
      [publicId],
    )) as Row[];
    return { publicId, conversationId: groupCid(publicId), internalId: String(row.id) };
  }

  async function messageRows(
    conversationId: string,
  ): Promise<Array<{ mid: string; seq: number; senderId: string; clientId: string; status: string }>> {
    const rows = (await db.query(
      'SELECT id, seq, sender_id, client_message_id, status FROM messages WHERE conversation_id = ? ORDER BY seq',
      [conversationId],
    )) as Row[];
    return rows.map((r) => ({
      mid: String(r.id),
      seq: Number(r.seq),
      senderId: String(r.sender_id),
      clientId: String(r.client_message_id),
      status: String(r.status),
    }));
  }

  /** `count` messages from each user, all sent at once; returns each user's mids in the order of their texts. */
  async function sendEach(
    senders: IssuedUser[],
    conversationId: string,
    count: number,
    acked: Acked,
  ): Promise<string[][]> {
    return Promise.all(
      senders.map((m, s) =>
        Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const clientId = cmid();
            const { message } = await api.send(m, conversationId, `pre-${s}-${i}`, clientId);
            acked.set(clientId, { mid: message.mid, seq: Number(message.conversation_seq), senderId: m.id });
            return message.mid;
          }),
        ),
      ),
    );
  }

  /**
   * Before the lock order was fixed, one round of the reported case retried about 140 deadlocked
   * transactions (and 5-10 % of the deletes still failed); with it, none. A few are tolerated for
   * other test files' writes on a shared database, whose locks can meet these at the edge of a
   * conversation's key range.
   */
  const MAX_RETRIES = 2;
  function expectFewRetries(before: number, label: string): void {
    const retried = t.app.get(TransactionRunner).retries - before;
    process.stdout.write(
      `[write-concurrency ${t.driver}] ${label}: transactions retried after a deadlock or lock timeout: ${retried}\n`,
    );
    expect({ label, retriedAtMost: Math.min(retried, MAX_RETRIES + 1) }).toEqual({
      label,
      retriedAtMost: Math.min(retried, MAX_RETRIES),
    });
  }

  /** Asserts the stored messages are exactly the acknowledged sends, at sequences 1..last_seq. */
  async function expectExactlyAcked(conversationId: string, acked: Acked, label: string): Promise<void> {
    const rows = await messageRows(conversationId);
    const [conversation] = (await db.query('SELECT last_seq FROM conversations WHERE id = ?', [
      conversationId,
    ])) as Row[];
    expect({ label, seqs: rows.map((r) => r.seq), lastSeq: Number(conversation.last_seq) }).toEqual({
      label,
      seqs: Array.from({ length: acked.size }, (_, i) => i + 1),
      lastSeq: acked.size,
    });
    const stored = Object.fromEntries(rows.map((r) => [r.clientId, { mid: r.mid, seq: r.seq, senderId: r.senderId }]));
    expect({ label, stored }).toEqual({ label, stored: Object.fromEntries(acked) });
  }

  /**
   * The user's unread in the conversation as the rows say it (messages of others after the read
   * position within the visible range, not tombstones) and as the API answers it.
   */
  async function unreadOf(
    user: IssuedUser,
    conversationInternalId: string,
    conversationId: string,
  ): Promise<{ rows: number; window: unknown; sync: unknown; readSeq: string }> {
    const [member] = (await db.query(
      'SELECT read_seq, visible_from_seq, visible_to_seq FROM conversation_members WHERE conversation_id = ? AND user_id = ?',
      [conversationInternalId, user.id],
    )) as Row[];
    const [conversation] = (await db.query('SELECT last_seq FROM conversations WHERE id = ?', [
      conversationInternalId,
    ])) as Row[];
    const upper = member.visible_to_seq ?? conversation.last_seq;
    const [count] = (await db.query(
      "SELECT COUNT(*) AS n FROM messages WHERE conversation_id = ? AND seq > ? AND seq > ? AND seq <= ? AND sender_id <> ? AND status = 'normal'",
      [conversationInternalId, member.read_seq, member.visible_from_seq, upper, user.id],
    )) as Row[];
    const window = await api.latest(user, conversationId);
    const sync = await api.sync(user);
    const item = sync.conversations.items.find((i) => i.conversation_id === conversationId);
    return { rows: Number(count.n), window: window.unread, sync: item?.unread, readSeq: String(member.read_seq) };
  }

  /** Everything that answered, by operation and reply code; a 500 shows up as `<op> 500/1500`. */
  function tally(outcomes: Outcome[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const o of outcomes) {
      const key = `${o.op} ${o.status}/${String(o.code)}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  it('6 members × 25 messages recall then delete, all at once (the reported case)', async () => {
    const retriesBefore = t.app.get(TransactionRunner).retries;
    const members = await api.users(6);
    const group = await createGroup(members[0], members.slice(1));
    const acked: Acked = new Map();
    const mids = await sendEach(members, group.conversationId, 25, acked);
    const outcomes: Outcome[] = [];
    await Promise.all(
      members.flatMap((m, s) =>
        mids[s].map(async (mid) => {
          track(outcomes, 'recall')(await api.raw.recall(m, group.conversationId, mid));
          track(outcomes, 'delete')(await api.raw.delete(m, group.conversationId, mid));
        }),
      ),
    );
    expect(tally(outcomes)).toEqual({ 'recall 200/0': 150, 'delete 200/0': 150 });
    // Every message is a tombstone at its own mid and sequence, counted once in the deletion revision.
    await expectExactlyAcked(group.internalId, acked, 'recall then delete');
    expect([...new Set((await messageRows(group.internalId)).map((r) => r.status))]).toEqual(['deleted']);
    const [revision] = (await db.query('SELECT deletion_revision FROM conversations WHERE id = ?', [
      group.internalId,
    ])) as Row[];
    expect(Number(revision.deletion_revision)).toBe(150);
    for (const m of members) {
      const unread = await unreadOf(m, group.internalId, group.conversationId);
      expect({ user: m.userId, unread: [unread.rows, unread.window, unread.sync] }).toEqual({
        user: m.userId,
        unread: [0, 0, 0],
      });
    }
    expectFewRetries(retriesBefore, 'recall then delete');
  });

  it('recall, delete, send, read, add, remove, leave and rejoin on one group (and a one-to-one conversation) at once, 3 rounds', async () => {
    const retriesBefore = t.app.get(TransactionRunner).retries;
    for (let round = 0; round < 3; round++) {
      const core = await api.users(6);
      const [owner, ...others] = core;
      const churners = await api.users(4);
      const group = await createGroup(owner, others);
      const acked: Acked = new Map();
      const refused = new Set<string>();
      const outcomes: Outcome[] = [];
      let knownSeq = 0;

      // One-to-one between two core members, befriended through the API.
      const [a, b] = [others[0], others[1]];
      await api.befriend(a, b);
      const direct = { forA: friendCid(b), forB: friendCid(a) };
      const directAcked: Acked = new Map();

      // Before the race: 25 messages from each core member.
      const preSent = await sendEach(core, group.conversationId, 25, acked);
      knownSeq = acked.size;
      // What each pre-sent message becomes: i % 3 == 0 recalled then deleted by its sender, 1 recalled
      // by its sender, 2 deleted by the owner (for others' messages; the owner's own stay).
      const expectedStatus = new Map<string, string>();
      core.forEach((_, s) =>
        preSent[s].forEach((mid, i) =>
          expectedStatus.set(mid, i % 3 === 0 ? 'deleted' : i % 3 === 1 ? 'recalled' : s === 0 ? 'normal' : 'deleted'),
        ),
      );

      const tracked = (op: string) => track(outcomes, op);
      const send = async (
        user: IssuedUser,
        conversationId: string,
        text: string,
        op: string,
        into: Acked = acked,
      ): Promise<Response> => {
        const clientId = cmid();
        const response = tracked(op)(await sendText(user, conversationId, text, clientId));
        if (response.body.code === 0) {
          const message = data(response).message as Body;
          into.set(clientId, { mid: String(message.mid), seq: Number(message.conversation_seq), senderId: user.id });
          if (into === acked) knownSeq = Math.max(knownSeq, Number(message.conversation_seq));
        } else refused.add(clientId);
        return response;
      };
      const readSeqs = new Map<string, number>();
      const read = async (user: IssuedUser): Promise<void> => {
        const to = knownSeq;
        const response = tracked('read')(await api.raw.read(user, group.conversationId, String(to)));
        if (response.body.code === 0) readSeqs.set(user.id, Math.max(readSeqs.get(user.id) ?? 0, to));
      };
      const groupsCall = (user: IssuedUser, path: string, body: Body, op: string) =>
        api.raw.groupPost(user, path, { group_id: group.publicId, ...body }).then(tracked(op));

      // Each churner's operations run in order; the last one decides where it ends.
      type Step = 'add' | 'leave' | 'remove' | 'send' | 'send-refused';
      const plans: Step[][] = [
        ['add', 'send', 'leave', 'send-refused', 'add', 'send'],
        ['add', 'send', 'leave', 'add', 'send', 'remove', 'send-refused'],
        ['add', 'send', 'remove', 'send-refused', 'add', 'send', 'leave'],
        ['add', 'send', 'leave', 'add', 'send', 'remove', 'add', 'send'],
      ];
      const churn = churners.map(async (u, c) => {
        for (const step of plans[c]) {
          if (step === 'add') await groupsCall(owner, '/members/add', { user_ids: [u.userId] }, 'add');
          else if (step === 'remove') await groupsCall(owner, '/members/remove', { user_ids: [u.userId] }, 'remove');
          else if (step === 'leave') await groupsCall(u, '/leave', {}, 'leave');
          else
            await send(
              u,
              group.conversationId,
              `churn-${c}`,
              step === 'send' ? 'churner send' : 'churner send after leaving',
            );
        }
      });
      const tombstones = core.flatMap((m, s) =>
        preSent[s].map(async (mid, i) => {
          const ref = { conversation_id: group.conversationId, mid };
          if (i % 3 === 2) {
            if (s !== 0) tracked('owner delete')(await api.raw.delete(owner, ref.conversation_id, ref.mid));
            return;
          }
          tracked('recall')(await api.raw.recall(m, ref.conversation_id, ref.mid));
          if (i % 3 === 0) tracked('delete')(await api.raw.delete(m, ref.conversation_id, ref.mid));
        }),
      );
      const senders = core.map(async (m, s) => {
        for (let i = 0; i < 8; i++) {
          await send(m, group.conversationId, `race-${s}-${i}`, 'send');
          if (i % 2 === 1) await read(m);
        }
      });
      const oneToOne = [
        [a, direct.forA],
        [b, direct.forB],
      ].map(async ([user, conversationId], side) => {
        const me = user as IssuedUser;
        const mine: string[] = [];
        for (let i = 0; i < 8; i++) {
          const reply = await send(me, conversationId as string, `direct-${side}-${i}`, 'direct send', directAcked);
          if (reply.body.code === 0) mine.push(String((data(reply).message as Body).mid));
          if (i % 3 === 2) tracked('direct recall')(await api.raw.recall(me, conversationId, mine[mine.length - 2]));
          if (i % 4 === 3) {
            const last = Math.max(0, ...[...directAcked.values()].map((v) => v.seq));
            tracked('direct read')(await api.raw.read(me, conversationId, String(last)));
          }
        }
      });
      await Promise.all([...churn, ...tombstones, ...senders, ...oneToOne]);

      // Every reply as planned: no 500 anywhere, churners refused exactly when out of the group.
      const refusedChurnerSends = plans.flat().filter((s) => s === 'send-refused').length;
      expect({ round, replies: tally(outcomes) }).toEqual({
        round,
        replies: {
          'recall 200/0': 6 * 17,
          'delete 200/0': 6 * 9,
          'owner delete 200/0': 5 * 8,
          'send 200/0': 6 * 8,
          'read 200/0': 6 * 4,
          'add 200/0': plans.flat().filter((s) => s === 'add').length,
          'remove 200/0': plans.flat().filter((s) => s === 'remove').length,
          'leave 200/0': plans.flat().filter((s) => s === 'leave').length,
          'churner send 200/0': plans.flat().filter((s) => s === 'send').length,
          'churner send after leaving 200/1203': refusedChurnerSends,
          'direct send 200/0': 16,
          'direct recall 200/0': 4,
          'direct read 200/0': 4,
        },
      });

      // Acknowledged sends are stored exactly once, at 1..last_seq; refused ones not at all.
      await expectExactlyAcked(group.internalId, acked, `round ${round}, group`);
      const [directRow] = (await db.query(
        'SELECT conversation_id FROM conversation_members WHERE user_id = ? AND peer_id = ?',
        [a.id, b.id],
      )) as Row[];
      await expectExactlyAcked(String(directRow.conversation_id), directAcked, `round ${round}, one-to-one`);
      const [stray] = (await db.query(
        `SELECT COUNT(*) AS n FROM messages WHERE client_message_id IN (${[...refused].map(() => '?').join(', ') || "''"})`,
        [...refused],
      )) as Row[];
      expect({ round, refusedButStored: Number(stray.n) }).toEqual({ round, refusedButStored: 0 });

      // Tombstones keep their mid and sequence (the rows above matched the send replies) and have the planned status.
      const statuses = new Map((await messageRows(group.internalId)).map((r) => [r.mid, r.status]));
      const wrongStatus = [...expectedStatus].filter(([mid, status]) => statuses.get(mid) !== status);
      expect({ round, wrongStatus }).toEqual({ round, wrongStatus: [] });

      // Unread equals what the rows say, for everyone who is or was in the group, on every chain.
      for (const [i, u] of [...core, ...churners].entries()) {
        const unread = await unreadOf(u, group.internalId, group.conversationId);
        expect({ round, user: i, unread: [unread.window, unread.sync] }).toEqual({
          round,
          user: i,
          unread: [unread.rows, unread.rows],
        });
        // A core member's read position is the furthest of their acknowledged reads.
        if (i < core.length)
          expect({ round, user: i, readSeq: unread.readSeq }).toEqual({
            round,
            user: i,
            readSeq: String(readSeqs.get(u.id) ?? 0),
          });
      }
      for (const [side, u] of [a, b].entries()) {
        const unread = await unreadOf(u, String(directRow.conversation_id), side === 0 ? direct.forA : direct.forB);
        expect({ round, side, unread: [unread.window, unread.sync] }).toEqual({
          round,
          side,
          unread: [unread.rows, unread.rows],
        });
        const totals = await directTotals(db, u.id);
        expect({ round, side, stored: totals.stored }).toEqual({ round, side, stored: totals.sums });
        expect({ round, side, directUnread: totals.sums.total }).toEqual({ round, side, directUnread: unread.rows });
      }

      // Membership as each churner's last operation left it, in the group and its conversation.
      const finalStatus = plans.map((plan) => {
        const last = [...plan].reverse().find((s) => s === 'add' || s === 'leave' || s === 'remove');
        return last === 'add' ? 'active' : last === 'leave' ? 'left' : 'removed';
      });
      const listed = expectOk<Page<GroupMember>>(
        await api.raw.groupGet(owner, '/members', { group_id: group.publicId }),
      ).items;
      expect({ round, members: listed.map((m) => m.user.user_id).sort() }).toEqual({
        round,
        members: [...core, ...churners.filter((_, c) => finalStatus[c] === 'active')].map((u) => u.userId).sort(),
      });
      for (const [c, u] of churners.entries()) {
        const [membership] = (await db.query(
          'SELECT gm.status AS status, cm.visible_to_seq AS visible_to FROM group_members gm JOIN `groups` g ON g.id = gm.group_id ' +
            'JOIN conversation_members cm ON cm.conversation_id = ? AND cm.user_id = gm.user_id WHERE g.public_id = ? AND gm.user_id = ?',
          [group.internalId, group.publicId, u.id],
        )) as Row[];
        expect({ round, churner: c, status: membership.status, open: membership.visible_to === null }).toEqual({
          round,
          churner: c,
          status: finalStatus[c],
          open: finalStatus[c] === 'active',
        });
      }
    }
    expectFewRetries(retriesBefore, 'mixed');
  });
});
