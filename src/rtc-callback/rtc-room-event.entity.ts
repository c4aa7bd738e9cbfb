import { Column, Entity, Index } from 'typeorm';
import { IdColumn, msTime } from '../database/columns';

/** A verified room event (102 closed, 103 entered, 104 left), stored once per distinct body. */
@Entity('rtc_room_events')
@Index('IDX_rtc_room_events_room_time', ['roomId', 'eventMs'])
@Index('IDX_rtc_room_events_pending', ['appliedAt', 'id'])
export class RtcRoomEventEntity {
  @IdColumn()
  id: string;

  /** SHA-256 of the raw body: a provider retry of the same body is not processed twice. */
  @Index('UQ_rtc_room_events_body_sha256', { unique: true })
  @Column({ name: 'body_sha256', type: 'varchar', length: 64 })
  bodySha256: string;

  @Column({ name: 'sdk_app_id', type: 'varchar', length: 32 })
  sdkAppId: string;

  @Column({ name: 'event_type', type: 'int' })
  eventType: number;

  /** 1..4294967295, kept as a decimal string. */
  @Column({ name: 'room_id', type: 'varchar', length: 10 })
  roomId: string;

  @Column({ name: 'provider_user_id', type: 'varchar', length: 128, nullable: true })
  providerUserId: string | null;

  @Column({ name: 'event_ms', type: 'bigint', transformer: msTime })
  eventMs: number;

  @Column({ name: 'callback_ts', type: 'bigint', transformer: msTime })
  callbackTs: number;

  /** The verified EventInfo object as JSON. */
  @Column({ name: 'event_info', type: 'text' })
  eventInfo: string;

  /** Retention prunes by this time (IDX_rtc_room_events_received_at). */
  @Index('IDX_rtc_room_events_received_at')
  @Column({ name: 'received_at', type: 'bigint', transformer: msTime })
  receivedAt: number;

  /** When the event was applied to the calls; null until then (it is acknowledged before). */
  @Column({ name: 'applied_at', type: 'bigint', transformer: msTime, nullable: true })
  appliedAt: number | null;
}
