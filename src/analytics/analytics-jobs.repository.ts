import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted, executeCountedAlone } from '../database/execute-counted';
import { AnalyticsJobEntity } from './analytics.entities';

/** The cursors the rollup job keeps, each a row of analytics_jobs. */
export type AnalyticsCursorName = 'messages' | 'calls' | 'active_days';

export interface AnalyticsCursor {
  /** Last ID passed (messages, calls). */
  id: string;
  /** Last time passed (calls: ended_at; active_days: the last day stored). */
  at: number;
}

/**
 * The rollup job's lease (row `lease`) and cursors. Every cursor write is a compare-and-set on
 * the cursor read before the batch, in the transaction that writes the batch's figures, after
 * renewing the lease in the same transaction: two instances can never both add one batch.
 */
@Injectable()
export class AnalyticsJobsRepository {
  constructor(@InjectRepository(AnalyticsJobEntity) private readonly rows: Repository<AnalyticsJobEntity>) {}

  /** Takes or renews the lease when it is free, expired or already this owner's. */
  async claim(owner: string, now: number, leaseMs: number): Promise<boolean> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      "UPDATE analytics_jobs SET lease_owner = ?, lease_until = ?, updated_at = ? WHERE name = 'lease' AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)",
      [owner, now + leaseMs, now, owner, now],
    );
    return changed === 1;
  }

  /** Renews the lease in the caller's transaction (locking its row there); false when another owns it. */
  async renew(manager: EntityManager, owner: string, now: number, leaseMs: number): Promise<boolean> {
    const changed = await executeCounted(
      manager,
      "UPDATE analytics_jobs SET lease_until = ?, updated_at = ? WHERE name = 'lease' AND lease_owner = ?",
      [now + leaseMs, now, owner],
    );
    return changed === 1;
  }

  async release(owner: string): Promise<void> {
    await this.rows.query(
      "UPDATE analytics_jobs SET lease_owner = NULL, lease_until = 0 WHERE name = 'lease' AND lease_owner = ?",
      [owner],
    );
  }

  async cursor(name: AnalyticsCursorName): Promise<AnalyticsCursor> {
    const row = await this.rows.findOne({ where: { name } });
    return { id: row?.cursorId ?? '0', at: row?.cursorAt ?? 0 };
  }

  /** Moves a cursor from `from` to `to` in the caller's transaction; false when it is no longer at `from`. */
  async advance(
    manager: EntityManager,
    name: AnalyticsCursorName,
    from: AnalyticsCursor,
    to: AnalyticsCursor,
    now: number,
  ): Promise<boolean> {
    const changed = await executeCounted(
      manager,
      'UPDATE analytics_jobs SET cursor_id = ?, cursor_at = ?, updated_at = ? WHERE name = ? AND cursor_id = ? AND cursor_at = ?',
      [to.id, to.at, now, name, from.id, from.at],
    );
    return changed === 1;
  }
}
