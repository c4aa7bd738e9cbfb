import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { ClientErrorSubmissionEntity } from './client-error-submission.entity';
import { ClientErrorEntity } from './client-error.entity';

export type NewClientError = Omit<ClientErrorEntity, 'id' | 'occurrenceCount' | 'lastSeenAt'>;

export interface MergedRecord {
  eventId: string;
  occurrenceCount: number;
}

/** What one counted occurrence did: created the record (reply known) or merged into it. */
export type Occurrence = { created: true; record: MergedRecord } | { created: false; record: MergedRecord | null };

interface RecordRow {
  event_id: string;
  occurrence_count: string | number;
}

function toMergedRecord(row: RecordRow): MergedRecord {
  return { eventId: row.event_id, occurrenceCount: Number(row.occurrence_count) };
}

const COLUMNS = [
  'event_id', 'merge_key', 'user_id', 'username', 'device_id', 'platform', 'severity', 'error_code', 'message', 'stack_trace', 'operation',
  'build_id', 'conversation_id', 'message_id', 'trace_id', 'recovered', 'context', 'occurrence_count', 'first_seen_at', 'last_seen_at',
];

@Injectable()
export class ClientErrorsRepository {
  constructor(
    @InjectRepository(ClientErrorSubmissionEntity) private readonly submissions: Repository<ClientErrorSubmissionEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  /** The record a (user, event_id) was counted into, if that event was accepted before. */
  async findRecordBySubmission(userId: string, eventId: string): Promise<MergedRecord | null> {
    const rows = (await this.submissions.query(
      'SELECT r.event_id, r.occurrence_count FROM client_error_submissions s JOIN client_errors r ON r.merge_key = s.merge_key WHERE s.user_id = ? AND s.event_id = ?',
      [userId, eventId],
    )) as RecordRow[];
    return rows[0] ? toMergedRecord(rows[0]) : null;
  }

  async findRecordByMergeKey(mergeKey: string): Promise<MergedRecord | null> {
    const rows = (await this.submissions.query('SELECT event_id, occurrence_count FROM client_errors WHERE merge_key = ?', [mergeKey])) as RecordRow[];
    return rows[0] ? toMergedRecord(rows[0]) : null;
  }

  /** Claims the idempotency key; a unique violation means the event was already counted. */
  async insertSubmission(manager: EntityManager, userId: string, eventId: string, mergeKey: string, now: number): Promise<void> {
    await manager.query('INSERT INTO client_error_submissions (user_id, event_id, merge_key, created_at) VALUES (?, ?, ?, ?)', [userId, eventId, mergeKey, now]);
  }

  /**
   * Counts one occurrence into the record of its merge key (creating it at 1) with a single
   * atomic upsert, so concurrent similar errors never lose an increment. Meant to be the last
   * statement before commit: it locks the shared record row.
   */
  async upsertOccurrence(manager: EntityManager, record: NewClientError): Promise<Occurrence> {
    const values = [
      record.eventId, record.mergeKey, record.userId, record.username, record.deviceId, record.platform, record.severity, record.errorCode,
      record.message, record.stackTrace, record.operation, record.buildId, record.conversationId, record.messageId, record.traceId,
      record.recovered ? 1 : 0, record.context, 1, record.firstSeenAt, record.firstSeenAt,
    ];
    const placeholders = COLUMNS.map(() => '?').join(', ');
    if (this.tx.driver === 'mysql') {
      // affectedRows is 1 for an insert and 2 for an update of an existing row.
      const result = (await manager.query(
        `INSERT INTO client_errors (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON DUPLICATE KEY UPDATE occurrence_count = occurrence_count + 1, last_seen_at = GREATEST(last_seen_at, VALUES(last_seen_at)), recovered = VALUES(recovered)`,
        values,
      )) as { affectedRows: number };
      return result.affectedRows === 1 ? { created: true, record: { eventId: record.eventId, occurrenceCount: 1 } } : { created: false, record: null };
    }
    const rows = (await manager.query(
      `INSERT INTO client_errors (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT(merge_key) DO UPDATE SET occurrence_count = occurrence_count + 1, last_seen_at = MAX(last_seen_at, excluded.last_seen_at), recovered = excluded.recovered RETURNING event_id, occurrence_count`,
      values,
    )) as RecordRow[];
    const merged = toMergedRecord(rows[0]);
    return { created: merged.occurrenceCount === 1, record: merged };
  }
}
