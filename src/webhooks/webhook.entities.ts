import { Column, Entity } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** A host endpoint that receives events (see the migration Webhooks1733900000000). */
@Entity('webhook_endpoints')
export class WebhookEndpointEntity {
  @IdColumn() id: string;
  @Column({ type: 'varchar', length: 2048 }) url: string;
  @Column({ name: 'url_hash', type: 'varchar', length: 64 }) urlHash: string;
  @Column({ type: 'varchar', length: 200 }) description: string;
  /** JSON array of type names; NULL: every type. */
  @Column({ name: 'event_types', type: 'text', nullable: true }) eventTypes: string | null;
  @Column({ type: 'varchar', length: 128 }) secret: string;
  @Column({ name: 'previous_secret', type: 'varchar', length: 128, nullable: true }) previousSecret: string | null;
  @Column({ name: 'previous_secret_until', type: 'bigint', nullable: true, transformer: msTime })
  previousSecretUntil: number | null;
  @Column({ type: 'boolean', default: false }) paused: boolean;
  @Column({ name: 'consecutive_failures', type: 'int', default: 0 }) consecutiveFailures: number;
  @Column({ name: 'breaker_open_until', type: 'bigint', nullable: true, transformer: msTime })
  breakerOpenUntil: number | null;
  @Column({ name: 'cursor_position', type: 'bigint', default: 0, transformer: bigintId }) cursorPosition: string;
  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true }) leaseOwner: string | null;
  @Column({ name: 'lease_until', type: 'bigint', default: 0, transformer: msTime }) leaseUntil: number;
  @Column({ name: 'last_delivery_at', type: 'bigint', nullable: true, transformer: msTime })
  lastDeliveryAt: number | null;
  @Column({ name: 'created_at', type: 'bigint', transformer: msTime }) createdAt: number;
  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime }) updatedAt: number;
}

/** One endpoint's record of one event it was sent (or a dead letter with its body). */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @IdColumn() id: string;
  @Column({ name: 'endpoint_id', type: 'bigint', transformer: bigintId }) endpointId: string;
  @Column({ name: 'event_id', type: 'varchar', length: 36 }) eventId: string;
  @Column({ type: 'varchar', length: 48 }) type: string;
  @Column({ type: 'bigint', transformer: bigintId }) position: string;
  @Column({ type: 'varchar', length: 16 }) status: string;
  @Column({ type: 'int', default: 0 }) attempts: number;
  @Column({ name: 'last_status_code', type: 'int', nullable: true }) lastStatusCode: number | null;
  @Column({ name: 'last_error', type: 'varchar', length: 300, nullable: true }) lastError: string | null;
  @Column({ name: 'latency_ms', type: 'int', nullable: true }) latencyMs: number | null;
  @Column({ name: 'first_attempt_at', type: 'bigint', transformer: msTime }) firstAttemptAt: number;
  @Column({ name: 'last_attempt_at', type: 'bigint', transformer: msTime }) lastAttemptAt: number;
  @Column({ name: 'next_attempt_at', type: 'bigint', nullable: true, transformer: msTime })
  nextAttemptAt: number | null;
  @Column({ type: 'text', nullable: true }) body: string | null;
}
