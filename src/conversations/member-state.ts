/**
 * Derived state of a group member row (conversation-member.entity.ts explains why groups
 * derive it). The TypeScript function and the SQL fragments below state the same rules and
 * must change together; member-state.spec.ts checks the function and member-state-sql.spec.ts
 * that the SQL gives the same answers.
 */

export interface StoredMemberState {
  isGroup: boolean;
  readSeq: string;
  visibleToSeq: string | null;
  uncounted: number;
  unreadCount: number;
  lastActivityAt: number;
  hidden: boolean;
  hiddenSeq: string | null;
}

export interface ConversationProgress {
  lastSeq: string;
  lastMessageAt: number;
}

export interface EffectiveMemberState {
  unreadCount: number;
  lastActivityAt: number;
  hidden: boolean;
}

/** What the member sees: a one-to-one row as stored, a group row derived from the conversation. */
export function effectiveMemberState(
  member: StoredMemberState,
  conversation: ConversationProgress,
): EffectiveMemberState {
  if (!member.isGroup)
    return { unreadCount: member.unreadCount, lastActivityAt: member.lastActivityAt, hidden: member.hidden };
  const upper = BigInt(member.visibleToSeq ?? conversation.lastSeq);
  const unread = upper - BigInt(member.readSeq) - BigInt(member.uncounted);
  const current = member.visibleToSeq === null;
  return {
    unreadCount: unread > 0n ? Number(unread) : 0,
    lastActivityAt:
      current && conversation.lastMessageAt > member.lastActivityAt
        ? conversation.lastMessageAt
        : member.lastActivityAt,
    hidden: member.hidden && member.hiddenSeq !== null && upper <= BigInt(member.hiddenSeq),
  };
}

/**
 * The calibration versions (spec 4.7) a member sees: the conversation's, or for a former member
 * those of their window, which only a recall or delete inside it moves.
 */
export function versionsSeenBy(
  member: { visibleUpdatedAt: number | null; visibleDeletionRevision: string | null },
  conversation: { contentUpdatedAt: number; deletionRevision: string },
): { updatedAt: number; deletionRevision: string } {
  return {
    updatedAt: member.visibleUpdatedAt ?? conversation.contentUpdatedAt,
    deletionRevision: String(member.visibleDeletionRevision ?? conversation.deletionRevision),
  };
}

/** versionsSeenBy in SQL, for a member row `m` joined to its conversation `c`. */
export const VERSIONS_SQL = {
  updatedAt: 'COALESCE(m.visible_updated_at, c.content_updated_at)',
  deletionRevision: 'COALESCE(m.visible_deletion_revision, c.deletion_revision)',
} as const;

/** The same rules in SQL, for a member row `m` joined to its conversation `c`. */
export const GROUP_SQL = {
  upper: 'COALESCE(m.visible_to_seq, c.last_seq)',
  unread: '(COALESCE(m.visible_to_seq, c.last_seq) - m.read_seq - m.uncounted)',
  /** Never below 0, like the TypeScript rule (portable: GREATEST is MySQL's, two-argument MAX SQLite's). */
  unreadClamped:
    'CASE WHEN COALESCE(m.visible_to_seq, c.last_seq) - m.read_seq - m.uncounted > 0 THEN COALESCE(m.visible_to_seq, c.last_seq) - m.read_seq - m.uncounted ELSE 0 END',
  activity:
    'CASE WHEN m.visible_to_seq IS NULL AND c.last_message_at > m.last_activity_at THEN c.last_message_at ELSE m.last_activity_at END',
  shown: '(m.hidden = 0 OR m.hidden_seq IS NULL OR COALESCE(m.visible_to_seq, c.last_seq) > m.hidden_seq)',
} as const;
