import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';
import type { GroupMember, GroupMemberStatus, GroupRole } from './group';

// Kept for the groups module's own files; other modules import them from group.ts.
export type { GroupMemberStatus, GroupRole };

@Entity('group_members')
@Index('UQ_group_members_group_user', ['groupId', 'userId'], { unique: true })
@Index('IDX_group_members_user_status', ['userId', 'status'])
export class GroupMemberEntity implements GroupMember {
  @IdColumn()
  id: string;

  @Column({ name: 'group_id', type: 'bigint', transformer: bigintId })
  groupId: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ type: 'varchar', length: 16 })
  role: GroupRole;

  @Column({ type: 'varchar', length: 16 })
  status: GroupMemberStatus;

  @Column({ name: 'muted_until', type: 'bigint', default: 0, transformer: msTime })
  mutedUntil: number;

  @Column({ name: 'joined_at', type: 'bigint', transformer: msTime })
  joinedAt: number;

  @Column({ name: 'left_at', type: 'bigint', nullable: true, transformer: msTime })
  leftAt: number | null;
}
