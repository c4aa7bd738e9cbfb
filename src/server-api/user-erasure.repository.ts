import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { UserErasureEntity } from './user-erasure.entity';

/** `claimed`: this caller runs the erasure; `held`: another one is running it; `done`: it already completed. */
export type ErasureClaim = 'claimed' | 'held' | 'done';

/** The `user_erasures` table: who is erasing whom, so two erasures of one user never interleave. */
@Injectable()
export class UserErasureRepository {
  constructor(@InjectRepository(UserErasureEntity) private readonly erasures: Repository<UserErasureEntity>) {}

  /**
   * The primary key decides between two erasures at once: the first inserts the row, the other
   * fails on it. An erasure whose lease passed (its instance died, or it failed and released it)
   * is taken over by a conditional update, which only one caller can win.
   */
  async claim(userId: string, now: number, leaseMs: number): Promise<ErasureClaim> {
    try {
      await this.erasures.insert({
        userId,
        status: 'running',
        leaseUntil: now + leaseMs,
        createdAt: now,
        completedAt: null,
      });
      return 'claimed';
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const result = await this.erasures
      .createQueryBuilder()
      .update()
      .set({ leaseUntil: now + leaseMs })
      .where('user_id = :userId AND status = :running AND lease_until < :now', { userId, running: 'running', now })
      .execute();
    if ((result.affected ?? 0) > 0) return 'claimed';
    const row = await this.erasures.findOneBy({ userId });
    return row?.status === 'done' ? 'done' : 'held';
  }

  /** Keeps the lease while a long erasure works through its pages. */
  async renew(userId: string, now: number, leaseMs: number): Promise<void> {
    await this.erasures.update({ userId, status: 'running' }, { leaseUntil: now + leaseMs });
  }

  /** A failed erasure gives its lease up, so that a repeat resumes it at once. */
  async release(userId: string): Promise<void> {
    await this.erasures.update({ userId, status: 'running' }, { leaseUntil: 0 });
  }

  async complete(manager: EntityManager, userId: string, now: number): Promise<void> {
    await manager.update(UserErasureEntity, { userId }, { status: 'done', completedAt: now });
  }
}
