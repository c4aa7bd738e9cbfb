import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { eventVisibleSql, isSeqVisible, seqVisibleSql } from '../../src/conversations/visibility';
import { StoreKit, startStoreKit } from './store-kit';

/**
 * visibility.ts states who sees what once, in TypeScript and in SQL. Here the three forms are
 * evaluated on one table of cases: the SQL fragments against real conversation_members and
 * outbox_events rows (written in a transaction that is rolled back), the function in memory.
 */

/** Message sequences of the conversation's events; 9 → 10 is where a text comparison would go wrong. */
const SEQS = [1, 2, 3, 4, 5, 9, 10, 11];
/** After the message events: a recall of message 2, written later (a higher row ID). */
const LATE = 'late recall of 2';

interface Case {
  name: string;
  from: number;
  to: number | null;
  /** The last event the member receives, by the sequence of its message event, or the late recall. */
  position: number | typeof LATE | null;
  /** The message sequences the member sees. */
  seqs: number[];
  /** Whether the late recall reaches them. */
  late: boolean;
}

const CASES: Case[] = [
  { name: 'member from the start', from: 0, to: null, position: null, seqs: SEQS, late: true },
  { name: 'joined after 3', from: 3, to: null, position: null, seqs: [4, 5, 9, 10, 11], late: false },
  { name: 'joined after 9', from: 9, to: null, position: null, seqs: [10, 11], late: false },
  { name: 'left at 4, before the recall', from: 0, to: 4, position: 4, seqs: [1, 2, 3, 4], late: false },
  { name: 'left at 2, after the recall', from: 0, to: 2, position: LATE, seqs: [1, 2], late: true },
  { name: 'joined after 2, left at 5', from: 2, to: 5, position: 5, seqs: [3, 4, 5], late: false },
  { name: 'joined after 9, left at 10', from: 9, to: 10, position: 10, seqs: [10], late: false },
  { name: 'joined and left at 3', from: 3, to: 3, position: 3, seqs: [], late: false },
];

const rangeOf = (c: Case) => ({ visibleFromSeq: String(c.from), visibleToSeq: c.to === null ? null : String(c.to) });

describe('visibility: isSeqVisible, seqVisibleSql and eventVisibleSql agree', () => {
  let kit: StoreKit;
  beforeAll(async () => {
    kit = await startStoreKit();
  });
  afterAll(() => kit.close());

  class RolledBack extends Error {}

  /** Runs `work` on the case table's rows, then rolls them back. */
  async function withRows(
    work: (
      manager: EntityManager,
      rows: { conversationId: string; eventIds: Map<string, string>; userOf: Map<string, Case> },
    ) => Promise<void>,
  ): Promise<void> {
    const now = kit.t.clock.now();
    const outcome: unknown = await kit.tx
      .run(async (m) => {
        const conversation = await kit.store.createGroupConversation(
          m,
          String(9_000_000_000 + Math.floor(Math.random() * 1e9)),
          now,
        );
        const conversationId = conversation.id;
        const eventIds = new Map<string, string>();
        for (const seq of [...SEQS.map(String), LATE]) {
          const eventId = randomUUID();
          await m.query(
            'INSERT INTO outbox_events (event_id, type, payload, conversation_id, seq, created_at) VALUES (?, ?, ?, ?, ?, ?)',
            [
              eventId,
              seq === LATE ? 'message.recalled' : 'message.new',
              '{}',
              conversationId,
              seq === LATE ? 2 : Number(seq),
              now,
            ],
          );
          const [row] = (await m.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId])) as Array<{
            id: number | string;
          }>;
          eventIds.set(seq, String(row.id));
        }
        const userOf = new Map<string, Case>();
        for (const [i, c] of CASES.entries()) {
          const userId = String(8_000_000_000 + i);
          userOf.set(userId, c);
          const position = c.position === null ? null : eventIds.get(String(c.position))!;
          await m.query(
            'INSERT INTO conversation_members (conversation_id, user_id, peer_id, is_group, read_seq, visible_from_seq, visible_to_seq, visible_to_position, ' +
              'uncounted, unread_count, last_activity_at, pinned, muted, hidden, hidden_seq, created_at, updated_at) ' +
              'VALUES (?, ?, NULL, 1, ?, ?, ?, ?, 0, 0, ?, 0, 0, 0, NULL, ?, ?)',
            [conversationId, userId, c.from, c.from, c.to, position, now, now, now],
          );
        }
        await work(m, { conversationId, eventIds, userOf });
        throw new RolledBack();
      })
      .catch((error: unknown) => error);
    // An assertion that failed inside fails the test with its own message.
    if (!(outcome instanceof RolledBack)) throw outcome;
  }

  /** Every (user, event) pair a query returns, as "case name: event". */
  const pairsOf = (
    rows: Array<{ user_id: unknown; event: unknown }>,
    userOf: Map<string, Case>,
    nameOf: Map<string, string>,
  ) => rows.map((row) => `${userOf.get(String(row.user_id))!.name}: ${nameOf.get(String(row.event))!}`).sort();

  it('agree on every member and event of the table', async () => {
    await withRows(async (m, { conversationId, eventIds, userOf }) => {
      const nameOf = new Map([...eventIds].map(([seq, id]) => [id, seq]));
      const expectedSeq: string[] = [];
      const expectedEvent: string[] = [];
      for (const c of CASES) {
        for (const seq of SEQS) {
          const seen = c.seqs.includes(seq);
          expect({
            case: c.name,
            seq,
            visible: isSeqVisible(rangeOf(c), String(seq)),
          }).toEqual({
            case: c.name,
            seq,
            visible: seen,
          });
          if (seen) {
            expectedSeq.push(`${c.name}: ${seq}`);
            expectedEvent.push(`${c.name}: ${seq}`);
          }
        }
        // The late recall is about message 2: in the seq range of whoever sees 2, delivered only to some.
        if (c.seqs.includes(2)) expectedSeq.push(`${c.name}: ${LATE}`);
        if (c.late) expectedEvent.push(`${c.name}: ${LATE}`);
      }

      const join =
        'FROM conversation_members m JOIN outbox_events e ON e.conversation_id = m.conversation_id WHERE m.conversation_id = ?';
      const bySeq = (await m.query(
        `SELECT m.user_id AS user_id, e.id AS event ${join} AND ${seqVisibleSql('m', 'e.seq')}`,
        [conversationId],
      )) as Array<{ user_id: unknown; event: unknown }>;
      expect(pairsOf(bySeq, userOf, nameOf)).toEqual(expectedSeq.sort());
      const byEvent = (await m.query(
        `SELECT m.user_id AS user_id, e.id AS event ${join} AND ${eventVisibleSql('m', 'e')}`,
        [conversationId],
      )) as Array<{ user_id: unknown; event: unknown }>;
      expect(pairsOf(byEvent, userOf, nameOf)).toEqual(expectedEvent.sort());

      // The bare-table form with a bound sequence, as the counters use it (a decimal string, as the service passes it).
      for (const seq of [0, ...SEQS, 12]) {
        const rows = (await m.query(
          `SELECT user_id FROM conversation_members WHERE conversation_id = ? AND ${seqVisibleSql('', '?')}`,
          [conversationId, String(seq), String(seq)],
        )) as Array<{ user_id: unknown }>;
        expect({ seq, members: rows.map((row) => userOf.get(String(row.user_id))!.name).sort() }).toEqual({
          seq,
          // Beyond the table (0, 12): what the function says, itself checked against the table above.
          members: CASES.filter((c) => isSeqVisible(rangeOf(c), String(seq)))
            .map((c) => c.name)
            .sort(),
        });
      }
    });
  });

  it('leaves nothing behind (the rows were rolled back)', async () => {
    let conversationId = '';
    await withRows(async (_m, rows) => {
      conversationId = rows.conversationId;
    });
    expect(await kit.store.findById(conversationId)).toBeNull();
    expect(await kit.store.findCurrentMembers(conversationId)).toEqual([]);
  });
});
