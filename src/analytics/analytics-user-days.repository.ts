import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { executeCountedAlone } from '../database/execute-counted';
import { dialectOf } from '../database/sql-dialect';
import { AnalyticsUserDayEntity } from './analytics.entities';
import { DAY_MS } from './rollup';

const CHUNK = 500;

/** Who was active on which UTC day: the source of DAU and MAU. */
@Injectable()
export class AnalyticsUserDaysRepository {
  constructor(@InjectRepository(AnalyticsUserDayEntity) private readonly rows: Repository<AnalyticsUserDayEntity>) {}

  /** Records the users as active on `day`; a user already recorded (by any instance) is skipped. */
  async record(day: number, userIds: readonly string[]): Promise<void> {
    // A composite key: MySQL's no-op assignment names one column, SQLite's target both.
    const ignore =
      dialectOf(this.rows.manager).name === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE day = day'
        : 'ON CONFLICT (day, user_id) DO NOTHING';
    for (let i = 0; i < userIds.length; i += CHUNK) {
      const chunk = userIds.slice(i, i + CHUNK);
      await this.rows.query(
        `INSERT INTO analytics_user_days (day, user_id) VALUES ${chunk.map(() => '(?, ?)').join(', ')} ${ignore}`,
        chunk.flatMap((id) => [day, id]),
      );
    }
  }

  /**
   * Deletes every day the user was active on (an erasure), answering how many rows went. The key
   * is (day, user_id) with no index on user_id alone: naming every day from the first on record
   * to `lastDay` makes it point deletes by the key, 100 days a statement, not a scan of the table.
   */
  async deleteOfUser(userId: string, lastDay: number): Promise<number> {
    const first = await this.firstDay();
    if (first === null) return 0;
    let deleted = 0;
    for (let from = first; from <= lastDay; from += 100 * DAY_MS) {
      const days: number[] = [];
      for (let day = from; day <= lastDay && days.length < 100; day += DAY_MS) days.push(day);
      deleted += await executeCountedAlone(
        this.rows.manager.connection,
        `DELETE FROM analytics_user_days WHERE day IN (${days.map(() => '?').join(', ')}) AND user_id = ?`,
        [...days, userId],
      );
    }
    return deleted;
  }

  /** Users active on `day` (a range of the primary key). */
  async countDay(day: number): Promise<number> {
    const [row] = (await this.rows.query('SELECT COUNT(*) AS n FROM analytics_user_days WHERE day = ?', [
      day,
    ])) as Array<{
      n: string | number;
    }>;
    return Number(row?.n ?? 0);
  }

  /** Distinct users active on any day from `from` to `to` (inclusive). */
  async countDistinct(from: number, to: number): Promise<number> {
    const [row] = (await this.rows.query(
      'SELECT COUNT(DISTINCT user_id) AS n FROM analytics_user_days WHERE day >= ? AND day <= ?',
      [from, to],
    )) as Array<{ n: string | number }>;
    return Number(row?.n ?? 0);
  }

  /** The earliest day on record, or null when there is none. */
  async firstDay(): Promise<number | null> {
    const [row] = (await this.rows.query('SELECT MIN(day) AS d FROM analytics_user_days')) as Array<{
      d: string | number | null;
    }>;
    return row?.d === null || row?.d === undefined ? null : Number(row.d);
  }

  /**
   * Deletes up to `batchSize` rows of days before `cutoff`, oldest first, and answers how many.
   * Rows are read by the primary key and deleted by it, one day at a time, outside a transaction.
   */
  async prune(cutoff: number, batchSize: number): Promise<number> {
    const rows = (await this.rows.query(
      'SELECT day, user_id FROM analytics_user_days WHERE day < ? ORDER BY day, user_id LIMIT ?',
      [cutoff, batchSize],
    )) as Array<{ day: string | number; user_id: string | number }>;
    const byDay = new Map<number, string[]>();
    for (const row of rows) {
      const ids = byDay.get(Number(row.day)) ?? [];
      ids.push(String(row.user_id));
      byDay.set(Number(row.day), ids);
    }
    let deleted = 0;
    for (const [day, ids] of byDay)
      deleted += await executeCountedAlone(
        this.rows.manager.connection,
        `DELETE FROM analytics_user_days WHERE day = ? AND user_id IN (${ids.map(() => '?').join(', ')})`,
        [day, ...ids],
      );
    return deleted;
  }
}
