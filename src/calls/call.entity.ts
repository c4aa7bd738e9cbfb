import { Column, Entity, Index } from 'typeorm';
import type { CallEndReason, CallState } from '../contract/calls';
import { IdColumn, bigintId, msTime } from '../database/columns';

export const CALL_MEDIA = ['audio', 'video'] as const;
export type CallMedia = (typeof CALL_MEDIA)[number];
export type { CallState } from '../contract/calls';
export const CALL_END_REASONS: readonly CallEndReason[] = [
  'hangup',
  'canceled',
  'rejected',
  'busy',
  'no_answer',
  'other_device_accepted',
  'ended_by_server',
  'interrupted',
];
export type { CallEndReason };

/**
 * A call in a conversation. `live_conversation_id` and `live_room_id` hold the conversation
 * and the provider room only while they are in use (NULL otherwise): their unique keys let the
 * database, not a check-then-insert, keep one live call per one-to-one conversation and one
 * call per room.
 */
@Entity('calls')
@Index('UQ_calls_caller_client_call', ['callerId', 'clientCallId'], { unique: true })
// The analytics job reads finished calls past its (ended_at, id) cursor.
@Index('IDX_calls_ended', ['endedAt', 'id'])
export class CallEntity {
  @IdColumn()
  id: string;

  @Index('UQ_calls_call_id', { unique: true })
  @Column({ name: 'call_id', type: 'varchar', length: 36 })
  callId: string;

  @Column({ name: 'conversation_id', type: 'bigint', transformer: bigintId })
  conversationId: string;

  @Column({ name: 'is_group', type: 'boolean' })
  isGroup: boolean;

  /** The caller's ID of the conversation (a group's is everyone's; a one-to-one callee's names the caller). */
  @Column({ name: 'caller_conversation_id', type: 'varchar', length: 160 })
  callerConversationId: string;

  @Column({ type: 'varchar', length: 8 })
  media: CallMedia;

  @Column({ type: 'varchar', length: 8 })
  state: CallState;

  @Column({ name: 'end_reason', type: 'varchar', length: 32, nullable: true })
  endReason: CallEndReason | null;

  @Column({ name: 'caller_id', type: 'bigint', transformer: bigintId })
  callerId: string;

  @Column({ name: 'client_call_id', type: 'varchar', length: 64 })
  clientCallId: string;

  @Column({ name: 'room_id', type: 'bigint', transformer: bigintId })
  roomId: string;

  @Index('UQ_calls_live_room', { unique: true })
  @Column({ name: 'live_room_id', type: 'bigint', nullable: true, transformer: bigintId })
  liveRoomId: string | null;

  @Index('UQ_calls_live_conversation', { unique: true })
  @Column({ name: 'live_conversation_id', type: 'bigint', nullable: true, transformer: bigintId })
  liveConversationId: string | null;

  @Index('IDX_calls_ring_deadline')
  @Column({ name: 'ring_deadline', type: 'bigint', nullable: true, transformer: msTime })
  ringDeadline: number | null;

  /** Ongoing calls: since when the provider reports nobody in the room (NULL while someone is in it). */
  @Index('IDX_calls_empty_since')
  @Column({ name: 'empty_since', type: 'bigint', nullable: true, transformer: msTime })
  emptySince: number | null;

  @Column({ name: 'started_at', type: 'bigint', transformer: msTime })
  startedAt: number;

  @Column({ name: 'accepted_at', type: 'bigint', nullable: true, transformer: msTime })
  acceptedAt: number | null;

  @Column({ name: 'ended_at', type: 'bigint', nullable: true, transformer: msTime })
  endedAt: number | null;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
