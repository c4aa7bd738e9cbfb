import type { AuthUser } from '../common/auth-user';
import type { ConversationEntity } from './conversation.entity';
import type { ConversationMemberEntity } from './conversation-member.entity';
import type { MessageEntity, MessageStatus } from './message.entity';
import { GROUP_SQL, VERSIONS_SQL, effectiveMemberState } from './member-state';
import { seqVisibleSql } from './visibility';

/**
 * The home list's one statement (POST /app/sdk/sync) and its rows. Sync is the read every
 * client repeats on start and reconnect, so the statement selects only what an item shows and
 * the rows are mapped by fixed column names (no prefixes, no entities).
 */

/** Where a home-list page ended: pinned flag (0/1), last activity, conversation ID. */
export interface HomePosition {
  pinned: number;
  activity: number;
  conversationId: string;
}

/** The viewer: internal ID, and external ID (the sender ID of their own last messages). */
export type HomeViewer = Pick<AuthUser, 'internalId' | 'externalId'>;

export type HomeMember = Pick<
  ConversationMemberEntity,
  | 'conversationId'
  | 'isGroup'
  | 'readSeq'
  | 'visibleFromSeq'
  | 'visibleToSeq'
  | 'unreadCount'
  | 'lastActivityAt'
  | 'pinned'
  | 'muted'
  | 'hidden'
>;
export type HomeConversation = Pick<ConversationEntity, 'type' | 'lastSeq' | 'contentUpdatedAt' | 'deletionRevision'>;
export type HomeMessage = Pick<
  MessageEntity,
  'id' | 'seq' | 'senderId' | 'clientMessageId' | 'type' | 'content' | 'status' | 'createdAt' | 'updatedAt'
>;

/** A home-list row: the member's state, the conversation, what names it, and its last message for a current member. */
export interface HomeEntry {
  member: HomeMember;
  conversation: HomeConversation;
  peer: { externalId: string; nickname: string; avatar: string } | null;
  group: { publicId: string; name: string; avatar: string } | null;
  lastMessage: { message: HomeMessage; senderExternalId: string } | null;
}

/** The absolute unread aggregate: everything, and what is not muted (the badge). */
export interface UnreadTotals {
  total: number;
  unmuted: number;
}

type Value = string | number | null;
interface HomeRow {
  [column: string]: Value;
}

/**
 * One-to-one unread from the user's user_unread_totals row (kept with every change of a
 * one-to-one row's unread or mute), group unread derived from each group's conversation
 * (member-state.ts); one row of two sums.
 */
export const UNREAD_TOTALS_SQL =
  'SELECT SUM(t) AS total, SUM(um) AS unmuted FROM (' +
  'SELECT direct_unread AS t, direct_unread_unmuted AS um FROM user_unread_totals WHERE user_id = ? ' +
  `UNION ALL SELECT SUM(${GROUP_SQL.unreadClamped}), SUM(CASE WHEN m.muted = 0 THEN ${GROUP_SQL.unreadClamped} ELSE 0 END) ` +
  'FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id WHERE m.user_id = ? AND m.is_group = 1) x';

/**
 * The member-row IDs (`k`) of one page, with their order keys. One-to-one rows are an index
 * range of IDX_conversation_members_home read in list order and cut at `count`; group rows are
 * all of the viewer's shown groups (their activity is derived, so no index orders them: this
 * part costs what the number of a user's groups costs, not their traffic). The union of the two
 * is small and keys only, and is sorted and cut before anything else is joined.
 */
export function homeKeysSql(after: HomePosition | null): {
  sql: string;
  params: (userId: string, count: number) => Array<string | number>;
} {
  const keyset = (activity: string): { sql: string; params: Array<string | number> } =>
    after
      ? {
          sql: ` AND (m.pinned < ? OR (m.pinned = ? AND ${activity} < ?) OR (m.pinned = ? AND ${activity} = ? AND m.conversation_id < ?))`,
          // Flags are bound as 0/1: better-sqlite3 cannot bind booleans.
          params: [after.pinned, after.pinned, after.activity, after.pinned, after.activity, after.conversationId],
        }
      : { sql: '', params: [] };
  const direct = keyset('m.last_activity_at');
  const group = keyset(`(${GROUP_SQL.activity})`);
  const sql =
    'SELECT * FROM (' +
    'SELECT * FROM (SELECT m.id AS k, m.pinned AS kp, m.last_activity_at AS ka, m.conversation_id AS kc FROM conversation_members m ' +
    `WHERE m.user_id = ? AND m.is_group = 0 AND m.hidden = 0${direct.sql} ORDER BY m.pinned DESC, m.last_activity_at DESC, m.conversation_id DESC LIMIT ?) d ` +
    `UNION ALL SELECT m.id, m.pinned, ${GROUP_SQL.activity}, m.conversation_id FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id ` +
    `WHERE m.user_id = ? AND m.is_group = 1 AND ${GROUP_SQL.shown}${group.sql}` +
    ') u ORDER BY kp DESC, ka DESC, kc DESC LIMIT ?';
  return { sql, params: (userId, count) => [userId, ...direct.params, count, userId, ...group.params, count] };
}

/**
 * Joins chosen member rows (`page`, a derived table with column `k`) to their conversation,
 * what names it (the peer, stored on a one-to-one member row, or the group), the last message for a
 * current member, and that message's sender when it is neither the viewer nor the peer (whose
 * external IDs are already known). Reads the users, groups and messages tables, which their
 * modules own, for the one round trip.
 */
export const HOME_COLUMNS =
  'm.conversation_id, m.is_group, m.read_seq, m.visible_from_seq, m.visible_to_seq, m.uncounted, m.unread_count, m.last_activity_at, m.pinned, m.muted, m.hidden, m.hidden_seq, ' +
  `c.type, c.last_seq, ${VERSIONS_SQL.updatedAt} AS content_updated_at, c.last_message_at, ${VERSIONS_SQL.deletionRevision} AS deletion_revision, ` +
  'p.external_id AS p_external_id, p.nickname AS p_nickname, p.avatar AS p_avatar, m.peer_id, ' +
  'gr.public_id AS g_public_id, gr.name AS g_name, gr.avatar AS g_avatar, ' +
  'lm.id AS lm_id, lm.seq AS lm_seq, lm.sender_id AS lm_sender_id, lm.client_message_id AS lm_client_message_id, lm.type AS lm_type, lm.content AS lm_content, ' +
  'lm.status AS lm_status, lm.created_at AS lm_created_at, lm.updated_at AS lm_updated_at, s.external_id AS s_external_id';
export const HOME_JOINS =
  'LEFT JOIN conversation_members m ON m.id = page.k LEFT JOIN conversations c ON c.id = m.conversation_id ' +
  'LEFT JOIN users p ON p.id = m.peer_id ' +
  'LEFT JOIN `groups` gr ON gr.id = c.group_id ' +
  `LEFT JOIN messages lm ON m.visible_to_seq IS NULL AND lm.conversation_id = m.conversation_id AND lm.seq = c.last_seq AND ${seqVisibleSql('m', 'lm.seq')} ` +
  'LEFT JOIN users s ON s.id = lm.sender_id AND lm.sender_id <> m.user_id AND (m.peer_id IS NULL OR lm.sender_id <> m.peer_id)';

const str = (value: Value): string => String(value);
const flag = (value: Value): boolean => Number(value) === 1;

/** A row of HOME_COLUMNS as the viewer sees it (group state derived); null for the totals-only row of an empty page. */
export function homeEntryFromRow(row: HomeRow, viewer: HomeViewer): HomeEntry | null {
  if (row.conversation_id === null) return null;
  const isGroup = flag(row.is_group);
  const stored = {
    isGroup,
    readSeq: str(row.read_seq),
    visibleToSeq: row.visible_to_seq === null ? null : str(row.visible_to_seq),
    uncounted: Number(row.uncounted),
    unreadCount: Number(row.unread_count),
    lastActivityAt: Number(row.last_activity_at),
    hidden: flag(row.hidden),
    hiddenSeq: row.hidden_seq === null ? null : str(row.hidden_seq),
  };
  const lastSeq = str(row.last_seq);
  const effective = effectiveMemberState(stored, { lastSeq, lastMessageAt: Number(row.last_message_at) });
  const peerId = row.peer_id === null ? null : str(row.peer_id);
  let lastMessage: HomeEntry['lastMessage'] = null;
  if (row.lm_id !== null) {
    const senderId = str(row.lm_sender_id);
    const senderExternalId =
      row.s_external_id !== null
        ? str(row.s_external_id)
        : senderId === viewer.internalId
          ? viewer.externalId
          : senderId === peerId
            ? str(row.p_external_id)
            : '';
    lastMessage = {
      message: {
        id: str(row.lm_id),
        seq: str(row.lm_seq),
        senderId,
        clientMessageId: str(row.lm_client_message_id),
        type: str(row.lm_type),
        content: str(row.lm_content),
        status: row.lm_status as MessageStatus,
        createdAt: Number(row.lm_created_at),
        updatedAt: Number(row.lm_updated_at),
      },
      senderExternalId,
    };
  }
  return {
    member: {
      conversationId: str(row.conversation_id),
      isGroup,
      readSeq: stored.readSeq,
      visibleFromSeq: str(row.visible_from_seq),
      visibleToSeq: stored.visibleToSeq,
      unreadCount: effective.unreadCount,
      lastActivityAt: effective.lastActivityAt,
      pinned: flag(row.pinned),
      muted: flag(row.muted),
      hidden: effective.hidden,
    },
    conversation: {
      type: row.type as HomeConversation['type'],
      lastSeq,
      contentUpdatedAt: Number(row.content_updated_at),
      deletionRevision: str(row.deletion_revision),
    },
    peer:
      row.p_external_id === null
        ? null
        : { externalId: str(row.p_external_id), nickname: str(row.p_nickname), avatar: str(row.p_avatar) },
    group:
      row.g_public_id === null
        ? null
        : { publicId: str(row.g_public_id), name: str(row.g_name), avatar: str(row.g_avatar) },
    lastMessage,
  };
}

/** Home-list order: pinned first, then last activity, then conversation ID, all descending. */
export function homeOrder(
  a: Pick<HomeMember, 'pinned' | 'lastActivityAt' | 'conversationId'>,
  b: Pick<HomeMember, 'pinned' | 'lastActivityAt' | 'conversationId'>,
): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  if (a.lastActivityAt !== b.lastActivityAt) return b.lastActivityAt - a.lastActivityAt;
  const [x, y] = [BigInt(a.conversationId), BigInt(b.conversationId)];
  return x === y ? 0 : x > y ? -1 : 1;
}
