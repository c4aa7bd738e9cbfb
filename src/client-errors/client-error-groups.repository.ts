import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { executeCounted } from '../database/execute-counted';
import { pruneBatch } from '../database/prune-batch';
import { dialectOf } from '../database/sql-dialect';
import { TransactionRunner } from '../database/transaction-runner';
import {
  ClientErrorGroupDayEntity,
  ClientErrorGroupEntity,
  ClientErrorGroupHourEntity,
} from './client-error-group.entities';

export { DAY_MS, HOUR_MS } from './client-error-rollup';

export type GroupSort = 'last_seen' | 'occurrences' | 'users';

const SORT_COLUMNS: Record<GroupSort, string> = {
  last_seen: 'last_seen_at',
  occurrences: 'occurrence_count',
  users: 'user_count',
};

export interface GroupFilters {
  platform?: string;
  build?: string;
  errorCode?: string;
  severityRank?: number;
  from?: number;
  to?: number;
}

/** Keyset position after a row: its sort value and id. */
export type GroupPosition = [number, string];

type Bucket = 'hours' | 'days';

/**
 * The client error groups' rollups as the console reads them, and their erasure and retention.
 * They are written in batches after the reports' commits (ClientErrorRollupsRepository).
 */
@Injectable()
export class ClientErrorGroupsRepository {
  constructor(
    @InjectRepository(ClientErrorGroupEntity) private readonly groups: Repository<ClientErrorGroupEntity>,
    @InjectRepository(ClientErrorGroupHourEntity) private readonly hours: Repository<ClientErrorGroupHourEntity>,
    @InjectRepository(ClientErrorGroupDayEntity) private readonly days: Repository<ClientErrorGroupDayEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  /** A page of groups, by `sort` descending then id descending, after `after`. */
  list(
    filters: GroupFilters,
    sort: GroupSort,
    after: GroupPosition | null,
    limit: number,
  ): Promise<ClientErrorGroupEntity[]> {
    const column = SORT_COLUMNS[sort];
    const qb = this.groups.createQueryBuilder('g');
    if (filters.platform !== undefined) qb.andWhere('g.platform = :platform', { platform: filters.platform });
    if (filters.build !== undefined) qb.andWhere('g.build_id = :build', { build: filters.build });
    if (filters.errorCode !== undefined) qb.andWhere('g.error_code = :errorCode', { errorCode: filters.errorCode });
    if (filters.severityRank !== undefined) qb.andWhere('g.severity_rank = :rank', { rank: filters.severityRank });
    if (filters.from !== undefined) qb.andWhere('g.last_seen_at >= :from', { from: filters.from });
    if (filters.to !== undefined) qb.andWhere('g.first_seen_at < :to', { to: filters.to });
    if (after)
      qb.andWhere(`(g.${column} < :value OR (g.${column} = :value AND g.id < :id))`, { value: after[0], id: after[1] });
    return qb.orderBy(`g.${column}`, 'DESC').addOrderBy('g.id', 'DESC').limit(limit).getMany();
  }

  findByKey(groupKey: string): Promise<ClientErrorGroupEntity | null> {
    return this.groups.findOneBy({ groupKey });
  }

  /** The group's counts per bucket from `from` (bucket start in Unix ms → count). */
  async counts(groupKey: string, bucket: Bucket, from: number): Promise<Map<number, number>> {
    const repository = bucket === 'hours' ? this.hours : this.days;
    const rows = await repository
      .createQueryBuilder('b')
      .where('b.group_key = :groupKey AND b.bucket_start >= :from', { groupKey, from })
      .getMany();
    return new Map(rows.map((row) => [row.bucketStart, row.occurrenceCount]));
  }

  /**
   * Erasure: forgets the user as one of each group's users and as the first reporter of its
   * devices, lowering the distinct counts with the rows, in one transaction. Occurrence counts
   * stay: they identify no one.
   */
  async forgetUser(userId: string): Promise<void> {
    await this.tx.run(async (manager) => {
      const lock = dialectOf(manager).forUpdate;
      for (const [table, counter] of [
        ['client_error_group_users', 'user_count'],
        ['client_error_group_devices', 'device_count'],
      ] as const) {
        const rows = (await manager.query(
          `SELECT group_key, COUNT(*) AS n FROM ${table} WHERE user_id = ? GROUP BY group_key${lock}`,
          [userId],
        )) as Array<{ group_key: string; n: string | number }>;
        if (rows.length === 0) continue;
        await manager.query(`DELETE FROM ${table} WHERE user_id = ?`, [userId]);
        for (const row of rows)
          await manager.query(`UPDATE client_error_groups SET ${counter} = ${counter} - ? WHERE group_key = ?`, [
            Number(row.n),
            row.group_key,
          ]);
      }
    });
  }

  /**
   * Retention: one batch of groups whose last occurrence is before `cutoff` (so every record of
   * theirs is past retention too), each with its users, devices and buckets, in one transaction.
   * A report that arrives meanwhile moves last_seen_at and keeps its group.
   */
  async pruneGroupsBefore(cutoff: number, batchSize: number): Promise<number> {
    const candidates = (await this.groups.query(
      'SELECT id FROM client_error_groups WHERE last_seen_at < ? ORDER BY last_seen_at, id LIMIT ?',
      [cutoff, batchSize],
    )) as Array<{ id: string | number }>;
    if (candidates.length === 0) return 0;
    return this.tx.run(async (manager) => {
      const ids = candidates.map((row) => String(row.id));
      const marks = ids.map(() => '?').join(', ');
      const due = (await manager.query(
        `SELECT id, group_key FROM client_error_groups WHERE id IN (${marks}) AND last_seen_at < ?${dialectOf(manager).forUpdate}`,
        [...ids, cutoff],
      )) as Array<{ id: string | number; group_key: string }>;
      if (due.length === 0) return 0;
      const keys = due.map((row) => row.group_key);
      const keyMarks = keys.map(() => '?').join(', ');
      for (const table of [
        'client_error_group_users',
        'client_error_group_devices',
        'client_error_group_hours',
        'client_error_group_days',
      ])
        await manager.query(`DELETE FROM ${table} WHERE group_key IN (${keyMarks})`, keys);
      return executeCounted(
        manager,
        `DELETE FROM client_error_groups WHERE id IN (${due.map(() => '?').join(', ')})`,
        due.map((row) => String(row.id)),
      );
    });
  }

  /** Retention of the trend buckets, by their start (they only serve the 24 h and 30 d charts). */
  pruneBucketsBefore(bucket: Bucket, cutoff: number, batchSize: number): Promise<number> {
    return bucket === 'hours'
      ? pruneBatch(this.hours, 'client_error_group_hours', 'bucket_start', cutoff, batchSize)
      : pruneBatch(this.days, 'client_error_group_days', 'bucket_start', cutoff, batchSize);
  }
}
