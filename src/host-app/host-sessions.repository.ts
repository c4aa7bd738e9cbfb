import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { HostSessionEntity } from './host-app.entities';

/** Host application sessions, found by the SHA-256 of their ID. */
@Injectable()
export class HostSessionsRepository {
  constructor(@InjectRepository(HostSessionEntity) private readonly sessions: Repository<HostSessionEntity>) {}

  async insert(hash: string, accountId: string, now: number): Promise<void> {
    await this.sessions.insert({ sessionIdHash: hash, accountId, createdAt: now, lastSeenAt: now });
  }

  findByHash(hash: string): Promise<HostSessionEntity | null> {
    return this.sessions.findOneBy({ sessionIdHash: hash });
  }

  async touch(id: string, now: number): Promise<void> {
    await this.sessions.update({ id }, { lastSeenAt: now });
  }

  async deleteByHash(hash: string): Promise<void> {
    await this.sessions.delete({ sessionIdHash: hash });
  }

  /** Every session of the account except, when given, the one with `keepHash`. */
  async deleteOfAccount(accountId: string, manager?: EntityManager, keepHash?: string): Promise<void> {
    const qb = (manager ?? this.sessions.manager)
      .createQueryBuilder()
      .delete()
      .from(HostSessionEntity)
      .where('account_id = :accountId', { accountId });
    if (keepHash) qb.andWhere('session_id_hash <> :keepHash', { keepHash });
    await qb.execute();
  }

  /**
   * Up to `batchSize` sessions past either lifetime (retention): created before `createdBefore`
   * or unused since before `seenBefore`. Deleted by primary key, so concurrent runs never wait long.
   */
  async pruneExpired(createdBefore: number, seenBefore: number, batchSize: number): Promise<number> {
    const rows = await this.sessions
      .createQueryBuilder('s')
      .select('s.id', 'id')
      .where('s.created_at < :createdBefore OR s.last_seen_at < :seenBefore', { createdBefore, seenBefore })
      .limit(batchSize)
      .getRawMany<{ id: string | number }>();
    if (rows.length === 0) return 0;
    await this.sessions.delete(rows.map((row) => String(row.id)));
    return rows.length;
  }
}
