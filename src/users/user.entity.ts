import { Column, Entity, Index } from 'typeorm';
import { IdColumn, msTime } from '../database/columns';
import type { User } from './user';

@Entity('users')
export class UserEntity implements User {
  @IdColumn()
  id: string;

  /** The host's external user ID (spec `user.user_id`): the SDK identity, never changed. */
  @Index('UQ_users_external_id', { unique: true })
  @Column({ name: 'external_id', type: 'varchar', length: 64 })
  externalId: string;

  /** Public account name; NULL when the user has none (unique among those who do). */
  @Index('UQ_users_username', { unique: true })
  @Column({ type: 'varchar', length: 64, nullable: true })
  username: string | null;

  @Column({ type: 'varchar', length: 80 })
  nickname: string;

  /** Stored as sent; an empty value is shown as the configured default avatar. */
  @Column({ type: 'varchar', length: 1024, default: '' })
  avatar: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  signature: string;

  @Column({ name: 'profile_updated_at', type: 'bigint', transformer: msTime })
  profileUpdatedAt: number;

  /** Embedded in every IM token; raising it invalidates all tokens issued before. */
  @Column({ name: 'token_version', type: 'int', default: 0 })
  tokenVersion: number;

  @Column({ type: 'boolean', default: false })
  disabled: boolean;

  /** Set when the user was erased (server API): the row stays, anonymised, and can never be enabled again. */
  @Column({ name: 'erased_at', type: 'bigint', nullable: true, transformer: msTime })
  erasedAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
