import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted, executeCountedAlone } from '../database/execute-counted';
import { PushDispatchEntity } from './push.entities';

/**
 * The dispatcher's one row: its place in the outbox and the lease that lets one instance at a
 * time read from there. Every write names the owner in its WHERE: another instance takes the
 * lease over only by writing its own name, so an instance that lost it changes nothing.
 */
@Injectable()
export class PushDispatchRepository {
  constructor(@InjectRepository(PushDispatchEntity) private readonly rows: Repository<PushDispatchEntity>) {}

  find(): Promise<PushDispatchEntity | null> {
    return this.rows.findOne({ where: { id: 1 } });
  }

  async claim(owner: string, now: number, leaseMs: number): Promise<boolean> {
    const changed = await executeCountedAlone(
      this.rows.manager.connection,
      'UPDATE push_dispatch SET lease_owner = ?, lease_until = ? WHERE id = 1 AND (lease_owner IS NULL OR lease_owner = ? OR lease_until < ?)',
      [owner, now + leaseMs, owner, now],
    );
    return changed === 1;
  }

  /**
   * Moves the cursor (never backwards) and renews the lease, in the caller's transaction; false
   * when another instance has taken the lease over. A lease that ran out with nobody taking it
   * is still this instance's.
   */
  async advance(manager: EntityManager, owner: string, now: number, cursor: string, leaseMs: number): Promise<boolean> {
    const changed = await executeCounted(
      manager,
      'UPDATE push_dispatch SET cursor_position = CASE WHEN cursor_position < ? THEN ? ELSE cursor_position END, lease_until = ?, updated_at = ? ' +
        'WHERE id = 1 AND lease_owner = ?',
      [cursor, cursor, now + leaseMs, now, owner],
    );
    return changed === 1;
  }

  /**
   * Gives the lease up (any instance may claim it at once); `lease_until` keeps the time, so the
   * outbox is still held for the dispatcher's return (PushRetentionService.outboxFloor).
   */
  async release(owner: string, now: number): Promise<void> {
    await this.rows.query(
      'UPDATE push_dispatch SET lease_owner = NULL, lease_until = ? WHERE id = 1 AND lease_owner = ?',
      [now, owner],
    );
  }
}
