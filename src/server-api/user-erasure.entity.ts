import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintId, msTime } from '../database/columns';

export type UserErasureState = 'running' | 'done';

/** One erasure per user (internal ID): no personal data, only whether and when it ran. */
@Entity('user_erasures')
export class UserErasureEntity {
  @PrimaryColumn({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ type: 'varchar', length: 12 })
  status: UserErasureState;

  /** While running: until when the instance doing it holds it; past that, a repeat resumes it. */
  @Column({ name: 'lease_until', type: 'bigint', transformer: msTime })
  leaseUntil: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'completed_at', type: 'bigint', transformer: msTime, nullable: true })
  completedAt: number | null;
}
