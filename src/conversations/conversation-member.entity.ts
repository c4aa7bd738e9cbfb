import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * A user's private state in one conversation. A member sees the messages with
 * visible_from_seq < seq <= visible_to_seq (no upper bound while still a member).
 */
@Entity('conversation_members')
@Index('UQ_conversation_members_conv_user', ['conversationId', 'userId'], { unique: true })
@Index('IDX_conversation_members_home', ['userId', 'hidden', 'pinned', 'lastActivityAt', 'conversationId'])
@Index('IDX_conversation_members_unread', ['userId', 'unreadCount', 'muted'])
export class ConversationMemberEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'conversation_id', type: 'bigint', transformer: bigintId })
  conversationId: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ name: 'read_seq', type: 'bigint', default: 0, transformer: bigintId })
  readSeq: string;

  @Column({ name: 'visible_from_seq', type: 'bigint', default: 0, transformer: bigintId })
  visibleFromSeq: string;

  @Column({ name: 'visible_to_seq', type: 'bigint', nullable: true, transformer: bigintId })
  visibleToSeq: string | null;

  /** Messages of others after read_seq that are not tombstones, within the visible range. */
  @Column({ name: 'unread_count', type: 'bigint', default: 0, transformer: msTime })
  unreadCount: number;

  /** Time of the conversation's latest message (or of joining), for the home list order. */
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
