import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { dialectOf } from '../database/sql-dialect';
import { AnalyticsDailyEntity } from './analytics.entities';
import type { RollupIncrement } from './rollup';

/** How a stored figure meets a new one: summed (counts), the larger kept (peaks), or replaced. */
export type RollupMode = 'add' | 'max' | 'set';
export type RollupTable = 'analytics_daily' | 'analytics_hourly';

const CHUNK = 500;

/** Rows of the daily and hourly rollups, read by range and written by upsert. */
@Injectable()
export class AnalyticsRollupsRepository {
  constructor(@InjectRepository(AnalyticsDailyEntity) private readonly daily: Repository<AnalyticsDailyEntity>) {}

  /**
   * Writes figures in the caller's transaction (or alone), in multi-row statements. The unique
   * key (bucket, metric, dimension) makes concurrent writers of the same bucket meet in the
   * database: an addition is never lost, a peak never lowered.
   */
  async upsert(
    table: RollupTable,
    items: readonly RollupIncrement[],
    mode: RollupMode,
    manager: EntityManager = this.daily.manager,
  ): Promise<void> {
    const bucket = table === 'analytics_daily' ? 'day' : 'hour';
    const mysql = dialectOf(manager).name === 'mysql';
    const incoming = mysql ? 'VALUES(value)' : 'excluded.value';
    const merged =
      mode === 'add'
        ? `value + ${incoming}`
        : mode === 'max'
          ? `${mysql ? 'GREATEST' : 'MAX'}(value, ${incoming})`
          : incoming;
    const conflict = mysql
      ? `ON DUPLICATE KEY UPDATE value = ${merged}`
      : `ON CONFLICT (${bucket}, metric, dimension) DO UPDATE SET value = ${merged}`;
    for (let i = 0; i < items.length; i += CHUNK) {
      const chunk = items.slice(i, i + CHUNK);
      await manager.query(
        `INSERT INTO ${table} (${bucket}, metric, dimension, value) VALUES ${chunk.map(() => '(?, ?, ?, ?)').join(', ')} ${conflict}`,
        chunk.flatMap((item) => [item.bucket, item.metric, item.dimension, item.value]),
      );
    }
  }

  /** The figures of `metrics` in buckets from `from` to `to` (inclusive), by the table's primary key. */
  async read(table: RollupTable, from: number, to: number, metrics: readonly string[]): Promise<RollupIncrement[]> {
    if (metrics.length === 0) return [];
    const bucket = table === 'analytics_daily' ? 'day' : 'hour';
    const rows = (await this.daily.query(
      `SELECT ${bucket} AS bucket, metric, dimension, value FROM ${table} WHERE ${bucket} >= ? AND ${bucket} <= ? AND metric IN (${metrics.map(() => '?').join(', ')})`,
      [from, to, ...metrics],
    )) as Array<{ bucket: string | number; metric: string; dimension: string; value: string | number }>;
    return rows.map((row) => ({
      bucket: Number(row.bucket),
      metric: row.metric,
      dimension: row.dimension,
      value: Number(row.value),
    }));
  }
}
