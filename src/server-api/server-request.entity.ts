import { Column, Entity, Index } from 'typeorm';
import { IdColumn, msTime } from '../database/columns';

/** One server API write by its `request_id`: what was asked (operation and hash) and what it answered. */
@Entity('server_requests')
@Index('UQ_server_requests_request_id', ['requestId'], { unique: true })
@Index('IDX_server_requests_created', ['createdAt', 'id'])
export class ServerRequestEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'request_id', type: 'varchar', length: 64 })
  requestId: string;

  @Column({ type: 'varchar', length: 48 })
  operation: string;

  /** SHA-256 (hex) of the operation and its canonical request without request_id. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ name: 'reply_json', type: 'text' })
  replyJson: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
