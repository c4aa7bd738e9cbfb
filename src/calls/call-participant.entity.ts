import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

export type ParticipantRole = 'caller' | 'callee';
export type ParticipantState = 'invited' | 'ringing' | 'joined' | 'left' | 'declined';

/** One user's part in a call; `in_room` and `room_event_ms` follow the provider's room callbacks. */
@Entity('call_participants')
@Index('UQ_call_participants_call_user', ['callRowId', 'userId'], { unique: true })
@Index('IDX_call_participants_user', ['userId', 'callRowId'])
export class CallParticipantEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'call_row_id', type: 'bigint', transformer: bigintId })
  callRowId: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ type: 'varchar', length: 8 })
  role: ParticipantRole;

  @Column({ type: 'varchar', length: 8 })
  state: ParticipantState;

  /** The device that accepted (callees) or started (caller) the call. */
  @Column({ name: 'device_id', type: 'varchar', length: 64, nullable: true })
  deviceId: string | null;

  @Column({ name: 'in_room', type: 'boolean' })
  inRoom: boolean;

  /** EventMsTs of the last room event applied (0: none): an older event never undoes a newer one. */
  @Column({ name: 'room_event_ms', type: 'bigint', transformer: msTime })
  roomEventMs: number;

  @Column({ name: 'joined_at', type: 'bigint', nullable: true, transformer: msTime })
  joinedAt: number | null;

  @Column({ name: 'left_at', type: 'bigint', nullable: true, transformer: msTime })
  leftAt: number | null;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
