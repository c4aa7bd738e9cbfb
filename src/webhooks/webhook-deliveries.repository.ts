import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted, executeCountedAlone } from '../database/execute-counted';
import { isUniqueViolation } from '../database/db-errors';
import { insertRow, insertRows } from '../database/insert-row';
import { pruneBatch } from '../database/prune-batch';
import { WebhookDeliveryEntity } from './webhook.entities';

/** What an attempt (or its end) leaves in an endpoint's record of an event. */
export interface DeliveryRecord {
  endpointId: string;
  eventId: string;
  type: string;
  position: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  latencyMs: number | null;
  firstAttemptAt: number;
  lastAttemptAt: number;
  nextAttemptAt: number | null;
  body: string | null;
}

/**
 * One row per endpoint and event that was attempted. Only the endpoint's lease holder writes
 * them (and the replay request, which only marks dead letters), so an UPDATE-then-INSERT by the
 * unique (endpoint, event) key never races with itself.
 */
@Injectable()
export class WebhookDeliveriesRepository {
  constructor(@InjectRepository(WebhookDeliveryEntity) private readonly rows: Repository<WebhookDeliveryEntity>) {}

  findByEvent(endpointId: string, eventId: string): Promise<WebhookDeliveryEntity | null> {
    return this.rows.findOne({ where: { endpointId, eventId } });
  }

  async record(record: DeliveryRecord): Promise<void> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      'UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status_code = ?, last_error = ?, latency_ms = ?, ' +
        'last_attempt_at = ?, next_attempt_at = ?, body = ? WHERE endpoint_id = ? AND event_id = ?',
      [
        record.status,
        record.attempts,
        record.lastStatusCode,
        record.lastError,
        record.latencyMs,
        record.lastAttemptAt,
        record.nextAttemptAt,
        record.body,
        record.endpointId,
        record.eventId,
      ],
    );
    if (changed === 0) await insertRow(this.rows.manager, WebhookDeliveryEntity, record);
  }

  /** Records of events attempted for the first time (no row yet), in one statement. */
  async insertMany(records: readonly DeliveryRecord[]): Promise<void> {
    try {
      await insertRows(this.rows.manager, WebhookDeliveryEntity, [...records]);
    } catch (error) {
      // A previous lease holder recorded some of them and died before saving its cursor.
      if (!isUniqueViolation(error)) throw error;
      for (const record of records) await this.record(record);
    }
  }

  /** Newest first; `beforeId` is the previous page's last ID. */
  list(
    endpointId: string,
    status: string | null,
    beforeId: string | null,
    limit: number,
  ): Promise<WebhookDeliveryEntity[]> {
    const query = this.rows
      .createQueryBuilder('d')
      .where('d.endpoint_id = :endpointId', { endpointId })
      .orderBy('d.id', 'DESC')
      .limit(limit);
    if (status !== null) query.andWhere('d.status = :status', { status });
    if (beforeId !== null) query.andWhere('d.id < :beforeId', { beforeId });
    return query.getMany();
  }

  /** Dead letters among `ids` become `replaying` (the lease holder sends them); answers how many. */
  markReplaying(manager: EntityManager, endpointId: string, ids: readonly string[], now: number): Promise<number> {
    return executeCounted(
      manager,
      `UPDATE webhook_deliveries SET status = 'replaying', next_attempt_at = ? WHERE endpoint_id = ? AND status = 'dead' AND id IN (${ids
        .map(() => '?')
        .join(', ')})`,
      [now, endpointId, ...ids],
    );
  }

  countOf(manager: EntityManager, endpointId: string, ids: readonly string[]): Promise<number> {
    return manager
      .getRepository(WebhookDeliveryEntity)
      .createQueryBuilder('d')
      .where('d.endpoint_id = :endpointId AND d.id IN (:...ids)', { endpointId, ids })
      .getCount();
  }

  replaying(endpointId: string, limit: number): Promise<WebhookDeliveryEntity[]> {
    return this.rows.find({ where: { endpointId, status: 'replaying' }, order: { id: 'ASC' }, take: limit });
  }

  async deleteForEndpoint(manager: EntityManager, endpointId: string): Promise<void> {
    await manager.delete(WebhookDeliveryEntity, { endpointId });
  }

  prune(cutoff: number, batchSize: number): Promise<number> {
    return pruneBatch(this.rows, 'webhook_deliveries', 'first_attempt_at', cutoff, batchSize);
  }
}
