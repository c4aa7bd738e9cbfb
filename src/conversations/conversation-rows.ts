import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { UnreadTotals } from './home-list';
import { ConversationProgress, effectiveMemberState } from './member-state';

/**
 * Column lists and hand mappers of the conversations and conversation_members rows, shared by
 * the conversation repositories.
 */

export const CONVERSATION_COLUMNS =
  'id, type, direct_key, group_id, last_seq, content_updated_at, last_message_at, deletion_revision, created_at';
export const MEMBER_COLUMNS =
  'id, conversation_id, user_id, peer_id, is_group, read_seq, visible_from_seq, visible_to_seq, visible_to_position, visible_updated_at, visible_deletion_revision, uncounted, unread_count, last_activity_at, pinned, muted, hidden, hidden_seq, created_at, updated_at';
export type Row = Record<string, string | number | null>;
export const str = (value: string | number | null): string => String(value);
const strOrNull = (value: string | number | null): string | null => (value === null ? null : String(value));

/** Rows of the read paths are mapped by hand: entity hydration was a large share of their CPU. */
export function toConversation(row: Row, p = ''): ConversationEntity {
  return Object.assign(new ConversationEntity(), {
    id: str(row[`${p}id`]),
    type: row[`${p}type`] as ConversationEntity['type'],
    directKey: strOrNull(row[`${p}direct_key`]),
    groupId: strOrNull(row[`${p}group_id`]),
    lastSeq: str(row[`${p}last_seq`]),
    contentUpdatedAt: Number(row[`${p}content_updated_at`]),
    lastMessageAt: Number(row[`${p}last_message_at`]),
    deletionRevision: str(row[`${p}deletion_revision`]),
    createdAt: Number(row[`${p}created_at`]),
  });
}

/**
 * A member row. With the conversation's progress, a group row gets its derived unread, last
 * activity and hidden (member-state.ts); without it (`null`), the stored values stay, which
 * only the read path, recomputing under the row lock, may use.
 */
export function toMember(row: Row, progress: ConversationProgress | null, p = ''): ConversationMemberEntity {
  const member = Object.assign(new ConversationMemberEntity(), {
    id: str(row[`${p}id`]),
    conversationId: str(row[`${p}conversation_id`]),
    userId: str(row[`${p}user_id`]),
    peerId: strOrNull(row[`${p}peer_id`]),
    isGroup: Boolean(Number(row[`${p}is_group`])),
    readSeq: str(row[`${p}read_seq`]),
    visibleFromSeq: str(row[`${p}visible_from_seq`]),
    visibleToSeq: strOrNull(row[`${p}visible_to_seq`]),
    visibleToPosition: strOrNull(row[`${p}visible_to_position`]),
    visibleUpdatedAt: row[`${p}visible_updated_at`] === null ? null : Number(row[`${p}visible_updated_at`]),
    visibleDeletionRevision: strOrNull(row[`${p}visible_deletion_revision`]),
    uncounted: Number(row[`${p}uncounted`]),
    unreadCount: Number(row[`${p}unread_count`]),
    lastActivityAt: Number(row[`${p}last_activity_at`]),
    pinned: Boolean(Number(row[`${p}pinned`])),
    muted: Boolean(Number(row[`${p}muted`])),
    hidden: Boolean(Number(row[`${p}hidden`])),
    hiddenSeq: strOrNull(row[`${p}hidden_seq`]),
    createdAt: Number(row[`${p}created_at`]),
    updatedAt: Number(row[`${p}updated_at`]),
  });
  return progress ? Object.assign(member, effectiveMemberState(member, progress)) : member;
}

export const aliased = (alias: string, columns: string): string =>
  columns
    .split(', ')
    .map((column) => `${alias}.${column} AS ${alias}_${column}`)
    .join(', ');

/**
 * The (conversation, user) key that statements on one conversation's member rows are held to
 * (SqlDialect.forceIndex). On a small table MySQL's optimizer prefers a full scan, and a scanning
 * UPDATE locks every row of every conversation it passes until commit, which other
 * conversations' writers then queue on.
 */
export const BY_CONVERSATION = 'UQ_conversation_members_conv_user';

export const totalsOf = (row: Row | undefined): UnreadTotals => ({
  total: Number(row?.total ?? 0),
  unmuted: Number(row?.unmuted ?? 0),
});

/** MEMBER_COLUMNS of a member row aliased `m`, unprefixed in the result. */
export const MEMBER_COLUMNS_OF_M = MEMBER_COLUMNS.split(', ')
  .map((column) => `m.${column}`)
  .join(', ');
/** A member row (unprefixed) with its conversation (c_ prefixed), read from MEMBER_FROM. */
export const MEMBER_WITH_CONVERSATION = `${MEMBER_COLUMNS_OF_M}, ${aliased('c', CONVERSATION_COLUMNS)}`;
export const MEMBER_FROM = 'FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id';

/** A MEMBER_WITH_CONVERSATION row as the member sees it (group state derived). */
export function toMemberWithProgress(row: Row): ConversationMemberEntity {
  return toMember(row, toConversation(row, 'c_'));
}
