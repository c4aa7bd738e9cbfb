import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { dialectOf } from '../database/sql-dialect';
import { TransactionRunner } from '../database/transaction-runner';
import { ClientErrorSubmissionEntity } from './client-error-submission.entity';
import { IdentityDelta, planRollup, RollupPlan, RollupSubmission } from './client-error-rollup';

interface LockedRow {
  id: string | number;
  merge_key: string;
  created_at: string | number;
}

interface RecordRow {
  merge_key: string;
  error_code: string;
  platform: string;
  build_id: string | null;
  severity: string;
  user_id: string | number;
  device_id: string;
  message: string;
}

const marks = (n: number, one = '?'): string => Array.from({ length: n }, () => one).join(', ');

/**
 * Counts accepted submissions into the client error groups, a batch per transaction. The
 * transaction locks the batch's submissions that are still un-counted (`rolled_up = 0`) and
 * marks them counted before commit, so whichever of several flushes or sweeps gets a submission
 * first counts it, and the others skip it: each submission is counted once. The rollup rows are
 * then written in a fixed order (users, devices, hours, days, groups; within each table by key),
 * so two batches lock the rows they share in the same order.
 */
@Injectable()
export class ClientErrorRollupsRepository {
  private readonly logger = new Logger('ClientErrorRollups');

  constructor(
    @InjectRepository(ClientErrorSubmissionEntity)
    private readonly submissions: Repository<ClientErrorSubmissionEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  /** Up to `limit` un-counted submissions accepted before `cutoff`, oldest first (a plain read: it locks nothing). */
  async unrolledBefore(cutoff: number, limit: number): Promise<string[]> {
    const rows = (await this.submissions.query(
      'SELECT id FROM client_error_submissions WHERE rolled_up = 0 AND created_at < ? ORDER BY created_at, id LIMIT ?',
      [cutoff, limit],
    )) as Array<{ id: string | number }>;
    return rows.map((row) => String(row.id));
  }

  /** The user's un-counted submissions (by the unique key's user_id prefix). */
  async unrolledOfUser(userId: string): Promise<string[]> {
    const rows = (await this.submissions.query(
      'SELECT id FROM client_error_submissions WHERE user_id = ? AND rolled_up = 0',
      [userId],
    )) as Array<{ id: string | number }>;
    return rows.map((row) => String(row.id));
  }

  /** Counts the submissions of `ids` not counted yet into their groups; answers how many it counted. */
  rollUp(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return Promise.resolve(0);
    return this.tx.run(async (manager) => {
      const dialect = dialectOf(manager);
      const locked = (await manager.query(
        `SELECT id, merge_key, created_at FROM client_error_submissions WHERE id IN (${marks(ids.length)}) AND rolled_up = 0 ORDER BY id${dialect.forUpdate}`,
        [...ids],
      )) as LockedRow[];
      if (locked.length === 0) return 0;
      // The record committed with its submission; its fields of the merge key never change, and
      // its message is the first of its minute (merges only count). Erasure deletes the records
      // before the submissions, so a record can be missing: such a submission counts nothing.
      const keys = [...new Set(locked.map((row) => row.merge_key))];
      const records = (await manager.query(
        `SELECT merge_key, error_code, platform, build_id, severity, user_id, device_id, message FROM client_errors WHERE merge_key IN (${marks(keys.length)})`,
        keys,
      )) as RecordRow[];
      const byKey = new Map(records.map((record) => [record.merge_key, record]));
      const counted: RollupSubmission[] = [];
      for (const row of locked) {
        const record = byKey.get(row.merge_key);
        if (!record) continue;
        counted.push({
          id: String(row.id),
          at: Number(row.created_at),
          errorCode: record.error_code,
          platform: record.platform,
          buildId: record.build_id,
          severity: record.severity,
          userId: String(record.user_id),
          deviceId: record.device_id,
          message: record.message,
        });
      }
      if (counted.length < locked.length)
        this.logger.warn(`${locked.length - counted.length} client error submission(s) without a record: not counted`);
      if (counted.length > 0) await this.apply(manager, planRollup(counted));
      const lockedIds = locked.map((row) => String(row.id));
      await manager.query(
        `UPDATE client_error_submissions SET rolled_up = 1 WHERE id IN (${marks(lockedIds.length)})`,
        lockedIds,
      );
      return counted.length;
    });
  }

  private async apply(manager: EntityManager, plan: RollupPlan): Promise<void> {
    const mysql = dialectOf(manager).name === 'mysql';
    const newUsers = await this.claim(manager, 'client_error_group_users', 'user_id', plan.users);
    const newDevices = await this.claim(manager, 'client_error_group_devices', 'device_id', plan.devices);
    for (const [table, buckets] of [
      ['client_error_group_hours', plan.hours],
      ['client_error_group_days', plan.days],
    ] as const) {
      await manager.query(
        `INSERT INTO ${table} (group_key, bucket_start, occurrence_count) VALUES ${marks(buckets.length, '(?, ?, ?)')} ${
          mysql
            ? 'ON DUPLICATE KEY UPDATE occurrence_count = occurrence_count + VALUES(occurrence_count)'
            : 'ON CONFLICT (group_key, bucket_start) DO UPDATE SET occurrence_count = occurrence_count + excluded.occurrence_count'
        }`,
        buckets.flatMap((b) => [b.groupKey, b.bucketStart, b.occurrences]),
      );
    }
    // MySQL applies the assignments left to right, each seeing the ones before: the message is
    // chosen before last_seen_at moves. SQLite reads the old row in every expression.
    const [greatest, least] = mysql ? ['GREATEST', 'LEAST'] : ['MAX', 'MIN'];
    const val = (column: string): string => (mysql ? `VALUES(${column})` : `excluded.${column}`);
    const update = [
      `last_message = CASE WHEN ${val('last_seen_at')} >= last_seen_at THEN ${val('last_message')} ELSE last_message END`,
      `occurrence_count = occurrence_count + ${val('occurrence_count')}`,
      `user_count = user_count + ${val('user_count')}`,
      `device_count = device_count + ${val('device_count')}`,
      `severity_rank = ${greatest}(severity_rank, ${val('severity_rank')})`,
      `first_seen_at = ${least}(first_seen_at, ${val('first_seen_at')})`,
      `last_seen_at = ${greatest}(last_seen_at, ${val('last_seen_at')})`,
    ].join(', ');
    await manager.query(
      `INSERT INTO client_error_groups (group_key, error_code, platform, build_id, severity_rank, occurrence_count, user_count, device_count, first_seen_at, last_seen_at, last_message) VALUES ${marks(
        plan.groups.length,
        `(${marks(11)})`,
      )} ${mysql ? 'ON DUPLICATE KEY UPDATE' : 'ON CONFLICT (group_key) DO UPDATE SET'} ${update}`,
      plan.groups.flatMap((g) => [
        g.groupKey,
        g.errorCode,
        g.platform,
        g.build,
        g.severityRank,
        g.occurrences,
        newUsers.get(g.groupKey) ?? 0,
        newDevices.get(g.groupKey) ?? 0,
        g.firstSeenAt,
        g.lastSeenAt,
        g.lastMessage,
      ]),
    );
  }

  /**
   * Counts the batch's occurrences into its (group, user) or (group, device) rows, creating them,
   * and answers how many rows each group gained: the distinct counts' increments. What is new is
   * decided by one upsert under its row locks, so two batches at once (on two instances) never
   * both count the same user as new: a row is new exactly when its count after the upsert is the
   * batch's count for it (a row that existed had at least one more). SQLite hands the counts back
   * with RETURNING; MySQL has none, so they are read after the upsert, in the same transaction,
   * which holds every one of these rows locked since the upsert and reads its own versions of them.
   */
  private async claim(
    manager: EntityManager,
    table: 'client_error_group_users' | 'client_error_group_devices',
    column: 'user_id' | 'device_id',
    identities: IdentityDelta[],
  ): Promise<Map<string, number>> {
    const devices = column === 'device_id';
    const columns = ['group_key', column, ...(devices ? ['user_id'] : []), 'occurrence_count'];
    const insert = `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${marks(identities.length, `(${marks(columns.length)})`)}`;
    const values = identities.flatMap((i) => [i.groupKey, i.id, ...(devices ? [i.userId] : []), i.occurrences]);
    let rows: Array<{ group_key: string; id: string | number; occurrence_count: number | string }>;
    if (dialectOf(manager).name === 'sqlite') {
      rows = (await manager.query(
        `${insert} ON CONFLICT (group_key, ${column}) DO UPDATE SET occurrence_count = occurrence_count + excluded.occurrence_count RETURNING group_key, ${column} AS id, occurrence_count`,
        values,
      )) as typeof rows;
    } else {
      await manager.query(
        `${insert} ON DUPLICATE KEY UPDATE occurrence_count = occurrence_count + VALUES(occurrence_count)`,
        values,
      );
      // The batch's groups × its identities: a superset of its pairs (those outside are ignored
      // below), read by the unique key's range.
      const groups = [...new Set(identities.map((i) => i.groupKey))];
      const ids = [...new Set(identities.map((i) => i.id))];
      rows = (await manager.query(
        `SELECT group_key, ${column} AS id, occurrence_count FROM ${table} WHERE group_key IN (${marks(groups.length)}) AND ${column} IN (${marks(ids.length)})`,
        [...groups, ...ids],
      )) as typeof rows;
    }
    const batch = new Map(identities.map((i) => [JSON.stringify([i.groupKey, i.id]), i.occurrences]));
    const created = new Map<string, number>();
    for (const r of rows)
      if (Number(r.occurrence_count) === batch.get(JSON.stringify([r.group_key, String(r.id)])))
        created.set(r.group_key, (created.get(r.group_key) ?? 0) + 1);
    return created;
  }
}
