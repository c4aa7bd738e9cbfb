import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCountedAlone } from '../database/execute-counted';
import { dialectOf } from '../database/sql-dialect';
import { PushDeliveryEntity } from './push.entities';

/** A notification to queue: one event to one registration. */
export interface QueuedNotification {
  eventId: string;
  registrationId: string;
  userId: string;
  provider: string;
  kind: string;
  payload: string;
  createdAt: number;
  deadlineAt: number;
}

/** A claimed notification with its device as registered now (null fields: the registration is gone). */
export interface ClaimedNotification {
  id: string;
  eventId: string;
  registrationId: string;
  userId: string;
  provider: string;
  kind: string;
  payload: string | null;
  attempts: number;
  deadlineAt: number;
  createdAt: number;
  registration: {
    userId: string;
    token: string;
    tokenHash: string;
    platform: string;
    packageName: string | null;
    updatedAt: number;
  } | null;
}

export type FinalStatus = 'sent' | 'dead_token' | 'failed' | 'expired' | 'dropped';

export interface AttemptRecord {
  lastStatus: number | null;
  lastError: string | null;
  latencyMs: number | null;
}

const COLUMNS = ['event_id', 'registration_id', 'user_id', 'provider', 'kind', 'payload', 'status', 'attempts'];

/**
 * One row per event and device: queued once (the unique key makes a second fan-out of the same
 * event a no-op), claimed by one instance at a time for a lease, and finished with its outcome.
 */
@Injectable()
export class PushDeliveriesRepository {
  constructor(@InjectRepository(PushDeliveryEntity) private readonly rows: Repository<PushDeliveryEntity>) {}

  /** Queues notifications in the caller's transaction; those already queued are skipped. */
  async enqueue(manager: EntityManager, items: readonly QueuedNotification[]): Promise<void> {
    const mysql = dialectOf(manager).name === 'mysql';
    // A few hundred rows a statement: a large group's fan-out stays within the drivers' parameter limits.
    for (let i = 0; i < items.length; i += 200) {
      const chunk = items.slice(i, i + 200);
      const params: unknown[] = [];
      for (const item of chunk)
        params.push(
          item.eventId,
          item.registrationId,
          item.userId,
          item.provider,
          item.kind,
          item.payload,
          'pending',
          0,
          item.createdAt,
          item.deadlineAt,
          0,
          item.createdAt,
        );
      const values = chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      await manager.query(
        `INSERT INTO push_deliveries (${COLUMNS.join(', ')}, next_attempt_at, deadline_at, claim_until, created_at) VALUES ${values} ` +
          (mysql
            ? 'ON DUPLICATE KEY UPDATE event_id = event_id'
            : 'ON CONFLICT (event_id, registration_id) DO NOTHING'),
        params,
      );
    }
  }

  /**
   * Claims up to `limit` due notifications of a provider for `claim` (unique per call) until
   * `until`: pending, due, and not claimed by a live claim. The claimer extends its claims while
   * it sends (PushSender), so only a crash lets another instance send one again. The attempt is counted at the claim,
   * so a crash during a send still counts it.
   */
  async claimDue(
    providers: readonly string[],
    claim: string,
    now: number,
    until: number,
    limit: number,
  ): Promise<ClaimedNotification[]> {
    const candidates = (await this.rows.query(
      `SELECT id FROM push_deliveries WHERE status = ? AND provider IN (${providers.map(() => '?').join(', ')}) AND next_attempt_at <= ? AND claim_until < ? ORDER BY next_attempt_at, id LIMIT ?`,
      ['pending', ...providers, now, now, limit],
    )) as Array<{ id: string | number }>;
    if (candidates.length === 0) return [];
    const ids = candidates.map((row) => String(row.id));
    const claimed = await executeCountedAlone(
      this.rows.manager.connection,
      // Due again in the UPDATE: another instance may have tried one meanwhile and set its backoff.
      `UPDATE push_deliveries SET claim_owner = ?, claim_until = ?, attempts = attempts + 1 WHERE id IN (${ids.map(() => '?').join(', ')}) AND status = ? AND claim_until < ? AND next_attempt_at <= ?`,
      [claim, until, ...ids, 'pending', now, now],
    );
    if (claimed === 0) return [];
    const rows = (await this.rows.query(
      'SELECT d.id, d.event_id, d.registration_id, d.user_id, d.provider, d.kind, d.payload, d.attempts, d.deadline_at, d.created_at, ' +
        'r.user_id AS r_user_id, r.token, r.token_hash, r.platform, r.package_name, r.updated_at AS r_updated_at ' +
        'FROM push_deliveries d LEFT JOIN push_registrations r ON r.id = d.registration_id ' +
        `WHERE d.id IN (${ids.map(() => '?').join(', ')}) AND d.claim_owner = ? AND d.status = ?`,
      [...ids, claim, 'pending'],
    )) as Array<Record<string, string | number | null>>;
    return rows.map((row) => ({
      id: String(row.id),
      eventId: String(row.event_id),
      registrationId: String(row.registration_id),
      userId: String(row.user_id),
      provider: String(row.provider),
      kind: String(row.kind),
      payload: row.payload === null ? null : String(row.payload),
      attempts: Number(row.attempts),
      deadlineAt: Number(row.deadline_at),
      createdAt: Number(row.created_at),
      registration:
        row.token === null
          ? null
          : {
              userId: String(row.r_user_id),
              token: String(row.token),
              tokenHash: String(row.token_hash),
              platform: String(row.platform),
              packageName: row.package_name === null ? null : String(row.package_name),
              updatedAt: Number(row.r_updated_at),
            },
    }));
  }

  /** Extends the claims of notifications still being sent (a send with a token refresh can outlast a lease). */
  async extend(claims: readonly string[], until: number): Promise<void> {
    if (claims.length === 0) return;
    await this.rows.query(
      `UPDATE push_deliveries SET claim_until = ? WHERE status = ? AND claim_owner IN (${claims.map(() => '?').join(', ')})`,
      [until, 'pending', ...claims],
    );
  }

  /** The final outcome; the payload (preview text) is dropped. False when the claim was lost. */
  async finish(id: string, claim: string, status: FinalStatus, attempt: AttemptRecord, now: number): Promise<boolean> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      'UPDATE push_deliveries SET status = ?, payload = NULL, last_status = ?, last_error = ?, latency_ms = ?, finished_at = ?, claim_owner = NULL, claim_until = 0 ' +
        'WHERE id = ? AND claim_owner = ? AND status = ?',
      [status, attempt.lastStatus, attempt.lastError, attempt.latencyMs, now, id, claim, 'pending'],
    );
    return changed === 1;
  }

  /**
   * Many accepted notifications at once (a sender records them together): each row only while
   * one of `claims` still holds it. How many rows changed.
   */
  async finishSent(
    items: ReadonlyArray<{ id: string; lastStatus: number | null; latencyMs: number }>,
    claims: readonly string[],
    now: number,
  ): Promise<number> {
    if (items.length === 0) return 0;
    const cases = (pick: (item: (typeof items)[number]) => number | null): { sql: string; params: unknown[] } => ({
      sql: `CASE id ${items.map(() => 'WHEN ? THEN ?').join(' ')} END`,
      params: items.flatMap((item) => [item.id, pick(item)]),
    });
    const latency = cases((item) => item.latencyMs);
    const status = cases((item) => item.lastStatus);
    return executeCountedAlone(
      this.rows.manager.connection,
      `UPDATE push_deliveries SET status = ?, payload = NULL, last_error = NULL, latency_ms = ${latency.sql}, last_status = ${status.sql}, ` +
        'finished_at = ?, claim_owner = NULL, claim_until = 0 ' +
        `WHERE status = ? AND id IN (${items.map(() => '?').join(', ')}) AND claim_owner IN (${claims.map(() => '?').join(', ')})`,
      ['sent', ...latency.params, ...status.params, now, 'pending', ...items.map((item) => item.id), ...claims],
    );
  }

  /** Another attempt at `nextAt`, the claim released. */
  async reschedule(id: string, claim: string, nextAt: number, attempt: AttemptRecord): Promise<void> {
    await this.rows.query(
      'UPDATE push_deliveries SET next_attempt_at = ?, last_status = ?, last_error = ?, latency_ms = ?, claim_owner = NULL, claim_until = 0 ' +
        'WHERE id = ? AND claim_owner = ? AND status = ?',
      [nextAt, attempt.lastStatus, attempt.lastError, attempt.latencyMs, id, claim, 'pending'],
    );
  }

  /** Notifications waiting, by provider. */
  async pendingByProvider(): Promise<Map<string, number>> {
    const rows = (await this.rows.query(
      'SELECT provider, COUNT(*) AS n FROM push_deliveries WHERE status = ? GROUP BY provider',
      ['pending'],
    )) as Array<{ provider: string; n: string | number }>;
    return new Map(rows.map((row) => [row.provider, Number(row.n)]));
  }

  /**
   * Notifications no sender will finish: pending past their deadline and not claimed (a
   * provider no instance is configured for any more, or a retry no worker reached before its
   * deadline). Given up, their previews dropped; how many, by provider, for the outcome metric.
   */
  async expireAbandoned(now: number, batchSize: number): Promise<Map<string, number>> {
    const rows = (await this.rows.query(
      'SELECT id, provider FROM push_deliveries WHERE status = ? AND deadline_at < ? AND claim_until < ? ORDER BY id LIMIT ?',
      ['pending', now, now, batchSize],
    )) as Array<{ id: string | number; provider: string }>;
    const byProvider = new Map<string, string[]>();
    for (const row of rows) byProvider.set(row.provider, [...(byProvider.get(row.provider) ?? []), String(row.id)]);
    const expired = new Map<string, number>();
    for (const [provider, ids] of byProvider) {
      // The condition again: a worker may have claimed one of them since the SELECT.
      const changed = await executeCountedAlone(
        this.rows.manager.connection,
        `UPDATE push_deliveries SET status = ?, payload = NULL, last_error = ?, finished_at = ? WHERE status = ? AND claim_until < ? AND id IN (${ids.map(() => '?').join(', ')})`,
        ['expired', 'no sender took it before its deadline', now, 'pending', now, ...ids],
      );
      if (changed > 0) expired.set(provider, changed);
    }
    return expired;
  }

  /** Erasure: every notification record of the user. */
  async deleteForUser(userId: string): Promise<number> {
    return executeCountedAlone(this.rows.manager.connection, 'DELETE FROM push_deliveries WHERE user_id = ?', [userId]);
  }

  /** Final records created before `cutoff`, a batch at a time; how many went. */
  async prune(cutoff: number, batchSize: number): Promise<number> {
    const rows = (await this.rows.query(
      'SELECT id FROM push_deliveries WHERE created_at < ? AND status <> ? ORDER BY created_at, id LIMIT ?',
      [cutoff, 'pending', batchSize],
    )) as Array<{ id: string | number }>;
    if (rows.length === 0) return 0;
    return executeCountedAlone(
      this.rows.manager.connection,
      `DELETE FROM push_deliveries WHERE id IN (${rows.map(() => '?').join(', ')})`,
      rows.map((row) => String(row.id)),
    );
  }
}
