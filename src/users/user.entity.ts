import { Column, Entity, Index } from 'typeorm';
import { IdColumn, msTime } from '../database/columns';
import type { User } from './user';

@Entity('users')
@Index('IDX_users_last_active', ['lastActiveAt', 'id'])
@Index('IDX_users_disabled_until', ['disabledUntil'])
@Index('IDX_users_nickname', ['nickname', 'id'])
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

  /** A disable with an end: the user is enabled again from this time. NULL: for good (or not disabled). */
  @Column({ name: 'disabled_until', type: 'bigint', nullable: true, transformer: msTime })
  disabledUntil: number | null;

  /** Shown to the disabled user's client as the 1003 error's `msg`. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 200, nullable: true })
  disabledReason: string | null;

  /** Last authenticated SDK request or socket connection, written at most once a minute per user. */
  @Column({ name: 'last_active_at', type: 'bigint', nullable: true, transformer: msTime })
  lastActiveAt: number | null;

  /** Set when the user was erased (server API): the row stays, anonymised, and can never be enabled again. */
  @Column({ name: 'erased_at', type: 'bigint', nullable: true, transformer: msTime })
  erasedAt: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}
