import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted, executeCountedAlone } from '../database/execute-counted';
import { insertRow } from '../database/insert-row';
import { dialectOf } from '../database/sql-dialect';
import { WebhookEndpointEntity } from './webhook.entities';

export function urlHash(url: string): string {
  return createHash('sha256').update(url, 'utf8').digest('hex');
}

export type EndpointChanges = Partial<
  Pick<
    WebhookEndpointEntity,
    'url' | 'description' | 'eventTypes' | 'secret' | 'previousSecret' | 'previousSecretUntil' | 'paused'
  >
>;

/**
 * The endpoints' rows. Delivery state (cursor, breaker, last delivery) is written only by the
 * instance holding the endpoint's lease: every such statement names the owner and the lease's
 * expiry in its WHERE, so an instance that lost its lease (a long pause, a partition) changes nothing.
 */
@Injectable()
export class WebhookEndpointsRepository {
  constructor(@InjectRepository(WebhookEndpointEntity) private readonly rows: Repository<WebhookEndpointEntity>) {}

  list(): Promise<WebhookEndpointEntity[]> {
    return this.rows.find({ order: { id: 'ASC' } });
  }

  findById(id: string, manager?: EntityManager): Promise<WebhookEndpointEntity | null> {
    return (manager ?? this.rows.manager).findOne(WebhookEndpointEntity, { where: { id } });
  }

  findByUrl(url: string, manager?: EntityManager): Promise<WebhookEndpointEntity | null> {
    return (manager ?? this.rows.manager).findOne(WebhookEndpointEntity, { where: { urlHash: urlHash(url) } });
  }

  async lockById(manager: EntityManager, id: string): Promise<WebhookEndpointEntity | null> {
    const query = manager.getRepository(WebhookEndpointEntity).createQueryBuilder('e').where('e.id = :id', { id });
    return dialectOf(manager).lockForWrite(query).getOne();
  }

  /** A new endpoint; a URL already used is refused by the unique index (isUniqueViolation). */
  insert(
    manager: EntityManager,
    values: {
      url: string;
      description: string;
      eventTypes: string | null;
      secret: string;
      cursorPosition: string;
      now: number;
    },
  ): Promise<string> {
    return insertRow(manager, WebhookEndpointEntity, {
      url: values.url,
      urlHash: urlHash(values.url),
      description: values.description,
      eventTypes: values.eventTypes,
      secret: values.secret,
      paused: false,
      consecutiveFailures: 0,
      cursorPosition: values.cursorPosition,
      leaseUntil: 0,
      createdAt: values.now,
      updatedAt: values.now,
    });
  }

  async update(manager: EntityManager, id: string, changes: EndpointChanges, now: number): Promise<void> {
    const values: Partial<WebhookEndpointEntity> = { ...changes, updatedAt: now };
    if (changes.url !== undefined) values.urlHash = urlHash(changes.url);
    await manager.update(WebhookEndpointEntity, { id }, values);
  }

  /** Resume: a paused endpoint starts again with a closed breaker. */
  async resume(manager: EntityManager, id: string, now: number): Promise<void> {
    await manager.update(
      WebhookEndpointEntity,
      { id },
      { paused: false, consecutiveFailures: 0, breakerOpenUntil: null, updatedAt: now },
    );
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(WebhookEndpointEntity, { id });
  }

  /** Takes the endpoint's lease when it is free, expired or already this instance's; true when taken. */
  async claim(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      'UPDATE webhook_endpoints SET lease_owner = ?, lease_until = ? ' +
        'WHERE id = ? AND paused = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)',
      [owner, now + leaseMs, id, 0, owner, now],
    );
    return changed === 1;
  }

  /** Extends a lease this instance still holds; false when it lost it (or the endpoint was paused or deleted). */
  async renew(id: string, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      'UPDATE webhook_endpoints SET lease_until = ? WHERE id = ? AND lease_owner = ? AND lease_until >= ? AND paused = ?',
      [now + leaseMs, id, owner, now, 0],
    );
    return changed === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.rows.query(
      'UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = 0 WHERE id = ? AND lease_owner = ?',
      [id, owner],
    );
  }

  /**
   * The lease holder's progress: the cursor (never backwards), breaker state and last delivery
   * time, with the lease renewed to `leaseUntil` (one statement instead of two per save); false
   * when the lease is no longer this instance's.
   */
  async saveProgress(
    id: string,
    owner: string,
    now: number,
    progress: {
      cursor: string;
      failures: number;
      openUntil: number | null;
      deliveredAt: number | null;
      leaseUntil: number;
    },
  ): Promise<boolean> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      'UPDATE webhook_endpoints SET cursor_position = CASE WHEN cursor_position < ? THEN ? ELSE cursor_position END, ' +
        'consecutive_failures = ?, breaker_open_until = ?, last_delivery_at = COALESCE(?, last_delivery_at), ' +
        'lease_until = ? WHERE id = ? AND lease_owner = ? AND lease_until >= ?',
      [
        progress.cursor,
        progress.cursor,
        progress.failures,
        progress.openUntil,
        progress.deliveredAt,
        progress.leaseUntil,
        id,
        owner,
        now,
      ],
    );
    return changed === 1;
  }

  /**
   * Seeding (WEBHOOK_ENDPOINTS): the configured secret, types and description for an existing
   * URL. A changed secret starts a rotation: the one it replaces keeps signing until
   * `rotationEndsAt`, so receivers being redeployed with the new one lose nothing. (The
   * previous-secret columns are assigned before `secret`: MySQL evaluates a SET list left to
   * right with the new values, SQLite with the old ones; in this order both read the old secret.)
   */
  async updateSeeded(
    manager: EntityManager,
    id: string,
    values: { description: string; eventTypes: string | null; secret: string },
    now: number,
    rotationEndsAt: number,
  ): Promise<number> {
    return executeCounted(
      manager,
      'UPDATE webhook_endpoints SET ' +
        'previous_secret_until = CASE WHEN secret <> ? THEN ? ELSE previous_secret_until END, ' +
        'previous_secret = CASE WHEN secret <> ? THEN secret ELSE previous_secret END, ' +
        'description = ?, event_types = ?, secret = ?, updated_at = ? ' +
        'WHERE id = ? AND (description <> ? OR secret <> ? OR COALESCE(event_types, ?) <> COALESCE(?, ?))',
      [
        values.secret,
        rotationEndsAt,
        values.secret,
        values.description,
        values.eventTypes,
        values.secret,
        now,
        id,
        values.description,
        values.secret,
        '',
        values.eventTypes,
        '',
      ],
    );
  }

  /**
   * The lowest cursor of the endpoints not paused: the outbox keeps every event after it (see
   * RetentionService). null when no endpoint is delivering.
   */
  async lowestActiveCursor(): Promise<string | null> {
    const rows = (await this.rows.query(
      'SELECT MIN(cursor_position) AS low FROM webhook_endpoints WHERE paused = ?',
      [0],
    )) as Array<{ low: string | number | null }>;
    const low = rows[0]?.low;
    return low === null || low === undefined ? null : String(low);
  }
}
