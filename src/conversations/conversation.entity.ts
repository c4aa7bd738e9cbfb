import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

import type { Conversation, ConversationType } from './conversation';

export type { ConversationType };

@Entity('conversations')
/** The console's Groups list by last activity (see the 1734360000000 migration). */
@Index('IDX_conversations_type_last_message', ['type', 'lastMessageAt', 'groupId'])
export class ConversationEntity implements Conversation {
  @IdColumn()
  id: string;

  @Column({ type: 'varchar', length: 8 })
  type: ConversationType;

  /** One-to-one: "<lower internal user id>:<higher internal user id>", so a pair has one row. */
  @Index('UQ_conversations_direct_key', { unique: true })
  @Column({ name: 'direct_key', type: 'varchar', length: 41, nullable: true })
  directKey: string | null;

  /** Group conversations: the group's internal ID. */
  @Index('UQ_conversations_group_id', { unique: true })
  @Column({ name: 'group_id', type: 'bigint', nullable: true, transformer: bigintId })
  groupId: string | null;

  /** Highest allocated message sequence; sequences run 1..last_seq with no gap. */
  @Column({ name: 'last_seq', type: 'bigint', default: 0, transformer: bigintId })
  lastSeq: string;

  /** Content version (spec `updated_at`): raised by every send, recall and delete. */
  @Column({ name: 'content_updated_at', type: 'bigint', transformer: msTime })
  contentUpdatedAt: number;

  /** Time of the latest message (0 before the first): group members' last activity. */
  @Column({ name: 'last_message_at', type: 'bigint', default: 0, transformer: msTime })
  lastMessageAt: number;

  @Column({ name: 'deletion_revision', type: 'bigint', default: 0, transformer: bigintId })
  deletionRevision: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
