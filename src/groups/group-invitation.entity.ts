import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

@Entity('group_invitations')
@Index('IDX_group_invitations_group', ['groupId'])
export class GroupInvitationEntity {
  @IdColumn()
  id: string;

  /** Random, unguessable; the only thing a joining user presents. */
  @Index('UQ_group_invitations_code', { unique: true })
  @Column({ type: 'varchar', length: 32 })
  code: string;

  @Column({ name: 'group_id', type: 'bigint', transformer: bigintId })
  groupId: string;

  @Column({ name: 'created_by', type: 'bigint', transformer: bigintId })
  createdBy: string;

  @Column({ name: 'expires_at', type: 'bigint', transformer: msTime })
  expiresAt: number;

  @Column({ type: 'boolean', default: false })
  revoked: boolean;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
