import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { pruneBatch } from '../database/prune-batch';
import { ClientErrorSubmissionEntity } from './client-error-submission.entity';
import { ClientErrorEntity } from './client-error.entity';
import { dialectOf } from '../database/sql-dialect';
import type { ClientErrorLikeness } from './client-error-record';

export type NewClientError = Omit<ClientErrorEntity, 'id' | 'occurrenceCount' | 'lastSeenAt'>;

export interface MergedRecord {
  eventId: string;
  occurrenceCount: number;
}

/**
 * What one counted occurrence did: created the record or merged into it. `count` is the
 * record's occurrence count right after this one; `eventId` is the record's (first) event_id
 * when known without another read.
 */
export interface Occurrence {
  created: boolean;
  count: number;
  eventId: string | null;
}

/** Merge keys whose record event_id this instance has seen (bounded; oldest dropped first). */
const KNOWN_RECORDS_MAX = 10_000;

interface RecordRow {
  event_id: string;
  occurrence_count: string | number;
}

function toMergedRecord(row: RecordRow): MergedRecord {
  return { eventId: row.event_id, occurrenceCount: Number(row.occurrence_count) };
}

const COLUMNS = [
  'event_id',
  'merge_key',
  'user_id',
  'username',
  'device_id',
  'platform',
  'severity',
  'error_code',
  'message',
  'stack_trace',
  'operation',
  'build_id',
  'conversation_id',
  'message_id',
  'trace_id',
  'recovered',
  'context',
  'occurrence_count',
  'first_seen_at',
  'last_seen_at',
];

@Injectable()
export class ClientErrorsRepository {
  /**
   * A record's event_id never changes after its insert (merges only count), so once seen it
   * can answer later merges of the same key without reading the record again. Retention
   * deletes records only days after their last occurrence, and a merge key names its clock
   * minute, so no later merge can meet a deleted record's key. Whatever deletes newer records
   * (an admin console) must forget their keys here too.
   */
  private readonly knownRecords = new Map<string, string>();

  constructor(
    @InjectRepository(ClientErrorEntity) private readonly records: Repository<ClientErrorEntity>,
    @InjectRepository(ClientErrorSubmissionEntity)
    private readonly submissions: Repository<ClientErrorSubmissionEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  private remember(mergeKey: string, eventId: string): void {
    if (this.knownRecords.has(mergeKey)) return;
    if (this.knownRecords.size >= KNOWN_RECORDS_MAX)
      this.knownRecords.delete(this.knownRecords.keys().next().value as string);
    this.knownRecords.set(mergeKey, eventId);
  }

  /** The record a (user, event_id) was counted into, if that event was accepted before. */
  async findRecordBySubmission(userId: string, eventId: string): Promise<MergedRecord | null> {
    const rows = (await this.submissions.query(
      'SELECT r.event_id, r.occurrence_count FROM client_error_submissions s JOIN client_errors r ON r.merge_key = s.merge_key WHERE s.user_id = ? AND s.event_id = ?',
      [userId, eventId],
    )) as RecordRow[];
    return rows[0] ? toMergedRecord(rows[0]) : null;
  }

  async findRecordByMergeKey(mergeKey: string): Promise<MergedRecord | null> {
    const rows = (await this.submissions.query(
      'SELECT event_id, occurrence_count FROM client_errors WHERE merge_key = ?',
      [mergeKey],
    )) as RecordRow[];
    if (!rows[0]) return null;
    this.remember(mergeKey, rows[0].event_id);
    return toMergedRecord(rows[0]);
  }

  /**
   * Claims the idempotency key; a unique violation means the event was already counted. The
   * submission is not counted in its group yet (rolled_up = 0, see ClientErrorRollups); answers its id.
   */
  async insertSubmission(
    manager: EntityManager,
    userId: string,
    eventId: string,
    mergeKey: string,
    now: number,
  ): Promise<string> {
    const sql =
      'INSERT INTO client_error_submissions (user_id, event_id, merge_key, created_at, rolled_up) VALUES (?, ?, ?, ?, 0)';
    const values = [userId, eventId, mergeKey, now];
    if (dialectOf(manager).returning) {
      const rows = (await manager.query(`${sql} RETURNING id`, values)) as Array<{ id: string | number }>;
      return String(rows[0].id);
    }
    const result = (await manager.query(sql, values)) as { insertId: number | string };
    return String(result.insertId);
  }

  /**
   * Counts one occurrence into the record of its merge key (creating it at 1) with a single
   * atomic upsert, so concurrent similar errors never lose an increment. Meant to be the last
   * statement before commit: it locks the shared record row.
   */
  async upsertOccurrence(manager: EntityManager, record: NewClientError): Promise<Occurrence> {
    const values = [
      record.eventId,
      record.mergeKey,
      record.userId,
      record.username,
      record.deviceId,
      record.platform,
      record.severity,
      record.errorCode,
      record.message,
      record.stackTrace,
      record.operation,
      record.buildId,
      record.conversationId,
      record.messageId,
      record.traceId,
      record.recovered ? 1 : 0,
      record.context,
      1,
      record.firstSeenAt,
      record.firstSeenAt,
    ];
    const placeholders = COLUMNS.map(() => '?').join(', ');
    if (!dialectOf(manager).returning) {
      // affectedRows is 1 for an insert and 2 for an update of an existing row; an update
      // hands the new count back through LAST_INSERT_ID (the statement has no RETURNING).
      const result = (await manager.query(
        `INSERT INTO client_errors (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON DUPLICATE KEY UPDATE occurrence_count = LAST_INSERT_ID(occurrence_count + 1), last_seen_at = GREATEST(last_seen_at, VALUES(last_seen_at)), recovered = VALUES(recovered)`,
        values,
      )) as { affectedRows: number; insertId: number | string };
      if (result.affectedRows === 1) return { created: true, count: 1, eventId: record.eventId };
      return {
        created: false,
        count: Number(result.insertId),
        eventId: this.knownRecords.get(record.mergeKey) ?? null,
      };
    }
    const rows = (await manager.query(
      `INSERT INTO client_errors (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT(merge_key) DO UPDATE SET occurrence_count = occurrence_count + 1, last_seen_at = MAX(last_seen_at, excluded.last_seen_at), recovered = excluded.recovered RETURNING event_id, occurrence_count`,
      values,
    )) as RecordRow[];
    const merged = toMergedRecord(rows[0]);
    return { created: merged.occurrenceCount === 1, count: merged.occurrenceCount, eventId: merged.eventId };
  }

  /** After commit: the record of a merge key is known to exist with this event_id. */
  recordCommitted(mergeKey: string, eventId: string): void {
    this.remember(mergeKey, eventId);
  }

  /** The (immutable) event_id of a merge key's record, read once per instance. */
  async recordEventId(mergeKey: string): Promise<string | null> {
    const known = this.knownRecords.get(mergeKey);
    if (known) return known;
    return (await this.findRecordByMergeKey(mergeKey))?.eventId ?? null;
  }

  /**
   * Drops the submission of (user, event_id) when the record it was counted into no longer
   * exists (deleted by retention before it), so that a retry can be counted again.
   */
  async deleteOrphanSubmission(userId: string, eventId: string): Promise<void> {
    await this.submissions.query(
      'DELETE FROM client_error_submissions WHERE user_id = ? AND event_id = ? AND NOT EXISTS (SELECT 1 FROM client_errors r WHERE r.merge_key = client_error_submissions.merge_key)',
      [userId, eventId],
    );
  }

  findByMergeKey(mergeKey: string): Promise<ClientErrorEntity | null> {
    return this.records.findOneBy({ mergeKey });
  }

  /**
   * The records of one group (error code, platform, build; '' for no build, which matches null
   * and "" alike), newest first, after the keyset position (last_seen_at, id).
   */
  listOfGroup(
    group: { errorCode: string; platform: string; build: string },
    after: [number, string] | null,
    limit: number,
  ): Promise<ClientErrorEntity[]> {
    const qb = this.records
      .createQueryBuilder('r')
      .where('r.error_code = :errorCode AND r.platform = :platform', group);
    if (group.build === '') qb.andWhere("(r.build_id IS NULL OR r.build_id = '')");
    else qb.andWhere('r.build_id = :build', { build: group.build });
    if (after)
      qb.andWhere('(r.last_seen_at < :at OR (r.last_seen_at = :at AND r.id < :id))', { at: after[0], id: after[1] });
    return qb.orderBy('r.last_seen_at', 'DESC').addOrderBy('r.id', 'DESC').limit(limit).getMany();
  }

  /**
   * Occurrences per hour since `from` (hour start in Unix ms → count), counted at the minute of
   * their record; with `like`, only errors of the same platform, error code, operation and build.
   */
  async countPerHour(from: number, like?: ClientErrorLikeness): Promise<Map<number, number>> {
    const qb = this.records
      .createQueryBuilder('r')
      .select('r.first_seen_at - (r.first_seen_at % 3600000)', 'hour')
      .addSelect('SUM(r.occurrence_count)', 'count')
      // last_seen_at is indexed and never before first_seen_at: it narrows the scan.
      .where('r.last_seen_at >= :from AND r.first_seen_at >= :from', { from });
    if (like) {
      qb.andWhere('r.platform = :platform AND r.error_code = :errorCode AND r.operation = :operation', like);
      if (like.buildId === null) qb.andWhere('r.build_id IS NULL');
      else qb.andWhere('r.build_id = :buildId', { buildId: like.buildId });
    }
    const rows = await qb.groupBy('hour').getRawMany<{ hour: string | number; count: string | number }>();
    return new Map(rows.map((row) => [Number(row.hour), Number(row.count)]));
  }

  /** Erasure: every stored error of the user and their submission keys; answers how many records went. */
  async deleteOfUser(userId: string): Promise<number> {
    const records = await this.records.delete({ userId });
    await this.submissions.delete({ userId });
    return records.affected ?? 0;
  }

  /** Retention: one batch of records whose last occurrence is before `cutoff`. */
  deleteRecordsOlderThan(cutoff: number, batchSize: number): Promise<number> {
    return pruneBatch(this.records, 'client_errors', 'last_seen_at', cutoff, batchSize);
  }

  /**
   * Retention: one batch of idempotency keys accepted before `cutoff` and counted in their group
   * (an un-counted one waits for the rollup). A retry of such an event_id afterwards is counted
   * as a new occurrence.
   */
  deleteSubmissionsOlderThan(cutoff: number, batchSize: number): Promise<number> {
    return pruneBatch(this.submissions, 'client_error_submissions', 'created_at', cutoff, batchSize, 'rolled_up = 1');
  }
}
