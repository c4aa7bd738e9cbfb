import { Column, Entity, Index } from 'typeorm';
import { IdColumn, msTime } from '../database/columns';

/** An event written in the same transaction as the change it describes; `id` is its position. */
@Entity('outbox_events')
export class OutboxEventEntity {
  @IdColumn()
  id: string;

  @Index('UQ_outbox_events_event_id', { unique: true })
  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId: string;

  @Column({ type: 'varchar', length: 48 })
  type: string;

  /** JSON shared by every recipient. */
  @Column({ type: 'text' })
  payload: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
