import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { HostSessionEntity } from './host-app.entities';
import { HostSessionStore, SessionOwner, StoredHostSession } from './host-session-store';

/** Host application sessions in the `host_sessions` table; expired rows go in the retention job. */
@Injectable()
export class HostSessionsRepository extends HostSessionStore {
  constructor(@InjectRepository(HostSessionEntity) private readonly sessions: Repository<HostSessionEntity>) {
    super();
  }

  async insert(hash: string, owner: SessionOwner, now: number): Promise<void> {
    await this.sessions.insert({ sessionIdHash: hash, accountId: owner.id, createdAt: now, lastSeenAt: now });
  }

  async findByHash(hash: string): Promise<StoredHostSession | null> {
    const row = await this.sessions.findOneBy({ sessionIdHash: hash });
    return row && { accountId: row.accountId, createdAt: row.createdAt, lastSeenAt: row.lastSeenAt };
  }

  async touch(hash: string, now: number): Promise<void> {
    await this.sessions.update({ sessionIdHash: hash }, { lastSeenAt: now });
  }

  async deleteByHash(hash: string): Promise<void> {
    await this.sessions.delete({ sessionIdHash: hash });
  }

  async deleteOfAccount(owner: SessionOwner, manager?: EntityManager, keepHash?: string): Promise<void> {
    const qb = (manager ?? this.sessions.manager)
      .createQueryBuilder()
      .delete()
      .from(HostSessionEntity)
      .where('account_id = :accountId', { accountId: owner.id });
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
