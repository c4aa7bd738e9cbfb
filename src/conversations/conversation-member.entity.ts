import { Column, Entity, Index } from 'typeorm';
import type { ConversationMember } from './conversation';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * A user's private state in one conversation. A member sees the messages with
 * visible_from_seq < seq <= visible_to_seq (no upper bound while still a member).
 *
 * One-to-one rows store unread, last activity and hidden, updated by every message (two rows).
 * Group rows are not written by messages: their unread, last activity and hidden are derived
 * from the conversation when read (see member-state.ts), so a group send touches only the
 * sender's row. Rows read through the conversation repositories (conversation-rows.ts) carry the
 * derived values.
 */
@Entity('conversation_members')
@Index('UQ_conversation_members_conv_user', ['conversationId', 'userId'], { unique: true })
@Index('IDX_conversation_members_home', ['userId', 'isGroup', 'hidden', 'pinned', 'lastActivityAt', 'conversationId'])
@Index('IDX_conversation_members_unread', ['userId', 'isGroup', 'unreadCount', 'muted'])
export class ConversationMemberEntity implements ConversationMember {
  @IdColumn()
  id: string;

  @Column({ name: 'conversation_id', type: 'bigint', transformer: bigintId })
  conversationId: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  /** One-to-one rows: the other member (fixed for the conversation's life); NULL on group rows. */
  @Column({ name: 'peer_id', type: 'bigint', nullable: true, transformer: bigintId })
  peerId: string | null;

  @Column({ name: 'read_seq', type: 'bigint', default: 0, transformer: bigintId })
  readSeq: string;

  @Column({ name: 'visible_from_seq', type: 'bigint', default: 0, transformer: bigintId })
  visibleFromSeq: string;

  @Column({ name: 'visible_to_seq', type: 'bigint', nullable: true, transformer: bigintId })
  visibleToSeq: string | null;

  /** Set with visible_to_seq: the last message event (outbox position) of the conversation the member receives. */
  @Column({ name: 'visible_to_position', type: 'bigint', nullable: true, transformer: bigintId })
  visibleToPosition: string | null;

  /**
   * Set with visible_to_seq: the content version (updated_at) and deletion revision of the window
   * a former member sees. They start at the conversation's when the member leaves and move only
   * with a recall or delete inside that window, so the group's later changes neither reach them
   * nor reset their client's window (spec 4.7 calibration).
   */
  @Column({ name: 'visible_updated_at', type: 'bigint', nullable: true, transformer: msTime })
  visibleUpdatedAt: number | null;

  @Column({ name: 'visible_deletion_revision', type: 'bigint', nullable: true, transformer: bigintId })
  visibleDeletionRevision: string | null;

  /** Whether the conversation is a group one (its state is derived on read). */
  @Column({ name: 'is_group', type: 'boolean', default: false })
  isGroup: boolean;

  /**
   * Group rows: messages after read_seq, within the visible range, that are not unread (the
   * member's own and tombstones); unread = upper - read_seq - uncounted.
   */
  @Column({ type: 'bigint', default: 0, transformer: msTime })
  uncounted: number;

  /** While hidden: the last sequence the member could see when hiding; a later message shows the conversation again. */
  @Column({ name: 'hidden_seq', type: 'bigint', nullable: true, transformer: bigintId })
  hiddenSeq: string | null;

  /** Messages of others after read_seq that are not tombstones, within the visible range. */
  @Column({ name: 'unread_count', type: 'bigint', default: 0, transformer: msTime })
  unreadCount: number;

  /**
   * Time of the conversation's latest message (or of joining), for the home list order (group rows: joining or
   * leaving).
   */
  @Column({ name: 'last_activity_at', type: 'bigint', default: 0, transformer: msTime })
  lastActivityAt: number;

  @Column({ type: 'boolean', default: false })
  pinned: boolean;

  @Column({ type: 'boolean', default: false })
  muted: boolean;

  @Column({ type: 'boolean', default: false })
  hidden: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
