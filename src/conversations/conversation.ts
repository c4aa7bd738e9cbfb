/**
 * Conversations, their members and messages as other modules see them: plain records, never
 * the TypeORM entities (which stay inside the conversations module). Reads hand out these
 * shapes; every write goes through ConversationStore.
 */

export type ConversationType = 'direct' | 'group';

export interface Conversation {
  id: string;
  type: ConversationType;
  /** One-to-one: "<lower internal user id>:<higher internal user id>", so a pair has one row. */
  directKey: string | null;
  /** Group conversations: the group's internal ID. */
  groupId: string | null;
  /** Highest allocated message sequence; sequences run 1..last_seq with no gap. */
  lastSeq: string;
  /** Content version (spec `updated_at`): raised by every send, recall and delete. */
  contentUpdatedAt: number;
  /** Time of the latest message (0 before the first): group members' last activity. */
  lastMessageAt: number;
  deletionRevision: string;
  createdAt: number;
}

/** One user's membership: what they can see (visible range), their read position and their settings. */
export interface ConversationMember {
  id: string;
  conversationId: string;
  userId: string;
  /** One-to-one rows: the other member (fixed for the conversation's life); NULL on group rows. */
  peerId: string | null;
  readSeq: string;
  visibleFromSeq: string;
  visibleToSeq: string | null;
  /** Set with visible_to_seq: the last message event (outbox position) of the conversation the member receives. */
  visibleToPosition: string | null;
  /**
   * Set with visible_to_seq: the content version (updated_at) and deletion revision of the window
   * a former member sees. They start at the conversation's when the member leaves and move only
   * with a recall or delete inside that window, so the group's later changes neither reach them
   * nor reset their client's window (spec 4.7 calibration).
   */
  visibleUpdatedAt: number | null;
  visibleDeletionRevision: string | null;
  /** Whether the conversation is a group one (its state is derived on read). */
  isGroup: boolean;
  /**
   * Group rows: messages after read_seq, within the visible range, that are not unread (the
   * member's own and tombstones); unread = upper - read_seq - uncounted.
   */
  uncounted: number;
  /** While hidden: the last sequence the member could see when hiding; a later message shows the conversation again. */
  hiddenSeq: string | null;
  /** Messages of others after read_seq that are not tombstones, within the visible range. */
  unreadCount: number;
  /**
   * Time of the conversation's latest message (or of joining), for the home list order (group rows: joining or
   * leaving).
   */
  lastActivityAt: number;
  pinned: boolean;
  muted: boolean;
  hidden: boolean;
  createdAt: number;
  updatedAt: number;
}
