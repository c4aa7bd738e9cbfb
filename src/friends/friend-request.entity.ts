import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

export type FriendRequestStatus = 'pending' | 'accepted' | 'rejected';

@Entity('friend_requests')
@Index('UQ_friend_requests_from_request', ['fromUserId', 'requestId'], { unique: true })
@Index('IDX_friend_requests_to_status', ['toUserId', 'status', 'id'])
@Index('IDX_friend_requests_from_status', ['fromUserId', 'status', 'id'])
export class FriendRequestEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'from_user_id', type: 'bigint', transformer: bigintId })
  fromUserId: string;

  @Column({ name: 'to_user_id', type: 'bigint', transformer: bigintId })
  toUserId: string;

  /** The sender's idempotency key. */
  @Column({ name: 'request_id', type: 'varchar', length: 64 })
  requestId: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  message: string;

  @Column({ type: 'varchar', length: 12 })
  status: FriendRequestStatus;

  /** "<from>:<to>" while pending, NULL after: at most one pending request per direction. */
  @Index('UQ_friend_requests_pending_key', { unique: true })
  @Column({ name: 'pending_key', type: 'varchar', length: 41, nullable: true })
  pendingKey: string | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
