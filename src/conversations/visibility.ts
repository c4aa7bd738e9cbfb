import type { Conversation, ConversationMember } from './conversation';

/**
 * What a member can see of a conversation, defined once: the messages with a sequence after
 * `visible_from_seq` (where they joined) and, once they left or were removed, up to
 * `visible_to_seq`; their message events likewise, and after leaving only those written before
 * they left (`visible_to_position`, an event row ID: a later recall of a message they saw would
 * tell them of the group's later state). Every check, in code or SQL, comes from here.
 */

/** A range of sequences: from (exclusive) .. to (inclusive). */
export interface SeqRange {
  from: string;
  to: string;
}

type Visible = Pick<ConversationMember, 'visibleFromSeq' | 'visibleToSeq'>;

export function isSeqVisible(member: Visible, seq: string): boolean {
  const value = BigInt(seq);
  return (
    value > BigInt(member.visibleFromSeq) && (member.visibleToSeq === null || value <= BigInt(member.visibleToSeq))
  );
}

/** The member's visible range today: a current member sees up to the conversation's last message. */
export function visibleRange(member: Visible, conversation: Pick<Conversation, 'lastSeq'>): SeqRange {
  return { from: member.visibleFromSeq, to: member.visibleToSeq ?? conversation.lastSeq };
}

/** SQL: member row `m` (an alias, or '' for the bare table) sees the message at sequence `seq` (an expression). */
export function seqVisibleSql(m: string, seq: string): string {
  const c = (column: string) => (m ? `${m}.${column}` : column);
  return `${seq} > ${c('visible_from_seq')} AND (${c('visible_to_seq')} IS NULL OR ${seq} <= ${c('visible_to_seq')})`;
}

/**
 * Whether a member hears the message event at `seq` written as row `rowId`: the event's message
 * is in their visible range and, once they left, the event was written before they did.
 */
export function canHearEvent(
  member: Pick<ConversationMember, 'visibleFromSeq' | 'visibleToSeq' | 'visibleToPosition'>,
  seq: bigint,
  rowId: bigint,
): boolean {
  if (seq <= BigInt(member.visibleFromSeq)) return false;
  if (member.visibleToSeq === null) return true;
  return seq <= BigInt(member.visibleToSeq) && rowId <= BigInt(member.visibleToPosition ?? 0);
}

/** SQL: member row `m` receives message event `e` of its conversation (outbox_events row). */
export function eventVisibleSql(m: string, e: string): string {
  return (
    `${e}.seq > ${m}.visible_from_seq AND (${m}.visible_to_seq IS NULL OR ` +
    `(${e}.seq <= ${m}.visible_to_seq AND ${e}.id <= ${m}.visible_to_position))`
  );
}
