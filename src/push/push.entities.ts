import { Column, Entity, PrimaryColumn } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** A device's provider token, owned by the user who registered it last (see the migration Push1734200000000). */
@Entity('push_registrations')
export class PushRegistrationEntity {
  @IdColumn() id: string;
  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId }) userId: string;
  @Column({ name: 'device_id', type: 'varchar', length: 64 }) deviceId: string;
  @Column({ type: 'varchar', length: 16 }) provider: string;
  @Column({ type: 'varchar', length: 512 }) token: string;
  @Column({ name: 'token_hash', type: 'varchar', length: 64 }) tokenHash: string;
  @Column({ type: 'varchar', length: 16 }) platform: string;
  @Column({ name: 'package_name', type: 'varchar', length: 255, nullable: true }) packageName: string | null;
  @Column({ name: 'app_version', type: 'varchar', length: 64, nullable: true }) appVersion: string | null;
  @Column({ type: 'varchar', length: 35, nullable: true }) locale: string | null;
  @Column({ name: 'token_version', type: 'int', default: 0 }) tokenVersion: number;
  @Column({ name: 'created_at', type: 'bigint', transformer: msTime }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime }) updatedAt: number;
}

/** A user's preview level and quiet hours; no row: the defaults. */
@Entity('push_settings')
export class PushSettingsEntity {
  @PrimaryColumn({ name: 'user_id', type: 'bigint', transformer: bigintId }) userId: string;
  @Column({ type: 'varchar', length: 8, nullable: true }) preview: string | null;
  @Column({ name: 'quiet_start', type: 'int', nullable: true }) quietStart: number | null;
  @Column({ name: 'quiet_end', type: 'int', nullable: true }) quietEnd: number | null;
  @Column({ type: 'varchar', length: 64, nullable: true }) timezone: string | null;
  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime }) updatedAt: number;
}

/** One notification of one event to one device: queued, claimed, retried, then final. */
@Entity('push_deliveries')
export class PushDeliveryEntity {
  @IdColumn() id: string;
  @Column({ name: 'event_id', type: 'varchar', length: 36 }) eventId: string;
  @Column({ name: 'registration_id', type: 'bigint', transformer: bigintId }) registrationId: string;
  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId }) userId: string;
  @Column({ type: 'varchar', length: 16 }) provider: string;
  @Column({ type: 'varchar', length: 24 }) kind: string;
  @Column({ type: 'text', nullable: true }) payload: string | null;
  @Column({ type: 'varchar', length: 12 }) status: string;
  @Column({ type: 'int', default: 0 }) attempts: number;
  @Column({ name: 'next_attempt_at', type: 'bigint', transformer: msTime }) nextAttemptAt: number;
  @Column({ name: 'deadline_at', type: 'bigint', transformer: msTime }) deadlineAt: number;
  @Column({ name: 'claim_owner', type: 'varchar', length: 64, nullable: true }) claimOwner: string | null;
  @Column({ name: 'claim_until', type: 'bigint', default: 0, transformer: msTime }) claimUntil: number;
  @Column({ name: 'last_status', type: 'int', nullable: true }) lastStatus: number | null;
  @Column({ name: 'last_error', type: 'varchar', length: 300, nullable: true }) lastError: string | null;
  @Column({ name: 'latency_ms', type: 'int', nullable: true }) latencyMs: number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: msTime }) createdAt: number;
  @Column({ name: 'finished_at', type: 'bigint', nullable: true, transformer: msTime }) finishedAt: number | null;
}

/** The dispatcher's place in the outbox (one row, id 1) and its lease. */
@Entity('push_dispatch')
export class PushDispatchEntity {
  @PrimaryColumn({ type: 'int' }) id: number;
  @Column({ name: 'cursor_position', type: 'bigint', default: 0, transformer: bigintId }) cursorPosition: string;
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true }) leaseOwner: string | null;
  @Column({ name: 'lease_until', type: 'bigint', default: 0, transformer: msTime }) leaseUntil: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime }) updatedAt: number;
}
