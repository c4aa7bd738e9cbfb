import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * An account of the bundled host application: a separate system from IM users, linked to one
 * through `im_user_id` exactly as any host backend links its accounts (POST /app/sdk/token).
 */
@Entity('host_accounts')
export class HostAccountEntity {
  @IdColumn()
  id: string;

  /** E.164, e.g. +8613800138000; the login name. Never shown to other users. */
  @Index('UQ_host_accounts_phone', { unique: true })
  @Column({ type: 'varchar', length: 16 })
  phone: string;

  /** scrypt (src/common/security/password-hash.ts); never leaves the service. */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 })
  passwordHash: string;

  /** The IM user ID: random and stable, since other users see it (the phone number must not be). */
  @Index('UQ_host_accounts_im_user', { unique: true })
  @Column({ name: 'im_user_id', type: 'varchar', length: 64 })
  imUserId: string;

  /** The nickname given at sign-up; the IM profile holds the live one. */
  @Column({ type: 'varchar', length: 320 })
  nickname: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;
}

/** A logged-in session; the session ID itself is only in the client's PHPSID. */
@Entity('host_sessions')
export class HostSessionEntity {
  @IdColumn()
  id: string;

  @Index('UQ_host_sessions_hash', { unique: true })
  @Column({ name: 'session_id_hash', type: 'varchar', length: 64 })
  sessionIdHash: string;

  @Index('IDX_host_sessions_account')
  @Column({ name: 'account_id', type: 'bigint', transformer: bigintId })
  accountId: string;

  @Index('IDX_host_sessions_created')
  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Index('IDX_host_sessions_seen')
  @Column({ name: 'last_seen_at', type: 'bigint', transformer: msTime })
  lastSeenAt: number;
}

export const SMS_PURPOSES = ['signup', 'login', 'reset'] as const;
export type SmsPurpose = (typeof SMS_PURPOSES)[number];

/** The one live SMS code of a phone number and purpose; a new code replaces it. */
@Entity('host_sms_codes')
@Index('UQ_host_sms_codes_target', ['phone', 'purpose'], { unique: true })
export class SmsCodeEntity {
  @IdColumn()
  id: string;

  @Column({ type: 'varchar', length: 16 })
  phone: string;

  @Column({ type: 'varchar', length: 16 })
  purpose: SmsPurpose;

  /** `<salt>$<sha256>` (sms-codes.ts); the code itself is never stored. */
  @Column({ name: 'code_hash', type: 'varchar', length: 128 })
  codeHash: string;

  /** Wrong tries so far; the code dies at the fifth. */
  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;

  @Index('IDX_host_sms_codes_expires')
  @Column({ name: 'expires_at', type: 'bigint', transformer: msTime })
  expiresAt: number;
}
