import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** `userId` blocked `blockedUserId`: no messages and no friend requests either way. */
@Entity('blocks')
@Index('UQ_blocks_user_blocked', ['userId', 'blockedUserId'], { unique: true })
@Index('IDX_blocks_blocked', ['blockedUserId'])
export class BlockEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ name: 'blocked_user_id', type: 'bigint', transformer: bigintId })
  blockedUserId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
