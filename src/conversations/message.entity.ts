import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

import type { Message, MessageStatus } from './message';

/** Recalled and deleted messages stay as tombstones: same mid and sequence, content removed. */
export type { MessageStatus };

@Entity('messages')
@Index('UQ_messages_conv_seq', ['conversationId', 'seq'], { unique: true })
@Index('UQ_messages_sender_client_id', ['senderId', 'clientMessageId'], { unique: true })
@Index('IDX_messages_sender_id', ['senderId', 'id'])
export class MessageEntity implements Message {
  /** The message's `mid`. */
  @IdColumn()
  id: string;

  @Column({ name: 'conversation_id', type: 'bigint', transformer: bigintId })
  conversationId: string;

  @Column({ type: 'bigint', transformer: bigintId })
  seq: string;

  @Column({ name: 'sender_id', type: 'bigint', transformer: bigintId })
  senderId: string;

  @Column({ name: 'client_message_id', type: 'varchar', length: 64 })
  clientMessageId: string;

  @Column({ type: 'varchar', length: 16 })
  type: string;

  /** JSON of the message body; emptied when the message becomes a tombstone. */
  @Column({ type: 'text' })
  content: string;

  /** SHA-256 of type and content as first sent: a client_message_id retry must match it. */
  @Column({ name: 'content_hash', type: 'varchar', length: 64, default: '' })
  contentHash: string;

  /** Lower-cased searchable text (text messages, file names); NULL for tombstones. */
  @Column({ name: 'search_text', type: 'text', nullable: true })
  searchText: string | null;

  /** The outbox event of the send, so a retry answers with the same event_id. */
  @Column({ name: 'event_id', type: 'varchar', length: 36, default: '' })
  eventId: string;

  @Column({ type: 'varchar', length: 12, default: 'normal' })
  status: MessageStatus;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
