import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';
import type { AdminRole } from './admin-roles';

// The e2e helpers still import the role type from here.
export type { AdminRole };

/** An administrator of the console: a separate account system from IM users and host accounts. */
@Entity('admin_accounts')
export class AdminAccountEntity {
  @IdColumn()
  id: string;

  @Index('UQ_admin_accounts_username', { unique: true })
  @Column({ type: 'varchar', length: 32 })
  username: string;

  /** scrypt (src/common/security/password-hash.ts); never leaves the service. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash: string;

  @Column({ type: 'varchar', length: 16 })
  role: AdminRole;

  @Column({ type: 'boolean', default: false })
  disabled: boolean;

  /** The console's language for this administrator: 'en' or 'zh-CN'. */
  @Column({ type: 'varchar', length: 16, default: 'en' })
  locale: string;

  /** The active TOTP secret (base32): two-factor sign-in is on when set. Never leaves the service. */
  @Column({ name: 'totp_secret', type: 'varchar', length: 64, nullable: true })
  totpSecret: string | null;

  /** A secret handed out by setup and not yet confirmed with a code. */
  @Column({ name: 'totp_pending_secret', type: 'varchar', length: 64, nullable: true })
  totpPendingSecret: string | null;

  /** The time step of the last code accepted: a code is good once (RFC 6238 section 5.2). */
  @Column({ name: 'totp_last_step', type: 'bigint', nullable: true, transformer: msTime })
  totpLastStep: number | null;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}

/** A logged-in console session; the session ID itself is only in the administrator's cookie. */
@Entity('admin_sessions')
export class AdminSessionEntity {
  @IdColumn()
  id: string;

  @Index('UQ_admin_sessions_hash', { unique: true })
  @Column({ name: 'session_id_hash', type: 'varchar', length: 64 })
  sessionIdHash: string;

  @Index('IDX_admin_sessions_admin')
  @Column({ name: 'admin_id', type: 'bigint', transformer: bigintId })
  adminId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'last_seen_at', type: 'bigint', transformer: msTime })
  lastSeenAt: number;
}

export type AuditActorKind = 'admin' | 'host';

/** One admin action, written in the transaction of the change it describes. */
@Entity('admin_audit')
@Index('IDX_admin_audit_created', ['createdAt', 'id'])
@Index('IDX_admin_audit_admin', ['adminId', 'id'])
@Index('IDX_admin_audit_action', ['action', 'id'])
@Index('IDX_admin_audit_target', ['targetType', 'targetId', 'id'])
@Index('IDX_admin_audit_report', ['reportId', 'id'])
export class AdminAuditEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'admin_id', type: 'bigint', transformer: bigintId })
  adminId: string;

  /** As it was at the time: the account may be renamed or deleted later. */
  @Column({ name: 'admin_username', type: 'varchar', length: 32 })
  adminUsername: string;

  @Column({ type: 'varchar', length: 64 })
  action: string;

  @Column({ name: 'target_type', type: 'varchar', length: 16 })
  targetType: string;

  @Column({ name: 'target_id', type: 'varchar', length: 128 })
  targetId: string;

  /** JSON, or null when the action created or read nothing before. */
  @Column({ name: 'before_json', type: 'text', nullable: true })
  beforeJson: string | null;

  @Column({ name: 'after_json', type: 'text', nullable: true })
  afterJson: string | null;

  @Column({ name: 'trace_id', type: 'varchar', length: 64 })
  traceId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  /** 'admin' (a console account) or 'host' (the host backend through the server API: admin_id 0). */
  @Column({ name: 'actor_kind', type: 'varchar', length: 16, default: 'admin' })
  actorKind: AuditActorKind;

  /** The report an action was taken from: listed in that report's history too. */
  @Column({ name: 'report_id', type: 'varchar', length: 32, nullable: true })
  reportId: string | null;
}
