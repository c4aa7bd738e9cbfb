import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** One row per direction: (A, B) and (B, A) exist together or not at all. */
@Entity('friendships')
@Index('UQ_friendships_user_friend', ['userId', 'friendId'], { unique: true })
export class FriendshipEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ name: 'friend_id', type: 'bigint', transformer: bigintId })
  friendId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
