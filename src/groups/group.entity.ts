import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';
import type { Group } from './group';

@Entity('groups')
@Index('IDX_groups_name', ['name', 'id'])
export class GroupEntity implements Group {
  @IdColumn()
  id: string;

  /** The public group ID (spec `group_id`), not this row's ID. */
  @Index('UQ_groups_public_id', { unique: true })
  @Column({ name: 'public_id', type: 'varchar', length: 32 })
  publicId: string;

  @Column({ type: 'varchar', length: 80 })
  name: string;

  @Column({ type: 'varchar', length: 1024, default: '' })
  avatar: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  introduction: string;

  @Column({ name: 'owner_id', type: 'bigint', transformer: bigintId })
  ownerId: string;

  /** Set by the operator (admin console); a disabled group answers 1218. */
  @Column({ type: 'boolean', default: false })
  disabled: boolean;

  @Column({ name: 'dismissed_at', type: 'bigint', nullable: true, transformer: msTime })
  dismissedAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
