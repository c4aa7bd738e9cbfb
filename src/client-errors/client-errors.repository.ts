import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { TransactionRunner } from '../database/transaction-runner';
import { ClientErrorSubmissionEntity } from './client-error-submission.entity';
import { ClientErrorEntity } from './client-error.entity';

export type NewClientError = Omit<ClientErrorEntity, 'id' | 'occurrenceCount' | 'lastSeenAt'>;

export interface MergedRecord {
  id: string;
  eventId: string;
  occurrenceCount: number;
}

interface RecordRow {
  id: string | number;
  event_id: string;
  occurrence_count: string | number;
}

function toMergedRecord(row: RecordRow): MergedRecord {
  return { id: String(row.id), eventId: row.event_id, occurrenceCount: Number(row.occurrence_count) };
}

const COLUMNS = [
  'event_id', 'merge_key', 'user_id', 'username', 'device_id', 'platform', 'severity', 'error_code', 'message', 'stack_trace', 'operation',
  'build_id', 'conversation_id', 'message_id', 'trace_id', 'recovered', 'context', 'occurrence_count', 'first_seen_at', 'last_seen_at',
];

@Injectable()
export class ClientErrorsRepository {
  constructor(
    @InjectRepository(ClientErrorEntity) private readonly records: Repository<ClientErrorEntity>,
    @InjectRepository(ClientErrorSubmissionEntity) private readonly submissions: Repository<ClientErrorSubmissionEntity>,
    private readonly tx: TransactionRunner,
  ) {}

  /** The record a (user, event_id) was counted into, if that event was accepted before. */
  async findRecordBySubmission(userId: string, eventId: string): Promise<MergedRecord | null> {
    const rows = (await this.submissions.query(
      'SELECT r.id, r.event_id, r.occurrence_count FROM client_error_submissions s JOIN client_errors r ON r.id = s.record_id WHERE s.user_id = ? AND s.event_id = ?',
      [userId, eventId],
    )) as RecordRow[];
    return rows[0] ? toMergedRecord(rows[0]) : null;
  }

  /**
   * Counts one occurrence into the record of its merge key (creating it at 1) with a single
   * atomic upsert, so concurrent similar errors never lose an increment or deadlock on a
   * read-then-write.
   */
  async upsertOccurrence(manager: EntityManager, record: NewClientError): Promise<MergedRecord> {
    const values = [
      record.eventId, record.mergeKey, record.userId, record.username, record.deviceId, record.platform, record.severity, record.errorCode,
      record.message, record.stackTrace, record.operation, record.buildId, record.conversationId, record.messageId, record.traceId,
      record.recovered ? 1 : 0, record.context, 1, record.firstSeenAt, record.firstSeenAt,
    ];
    const placeholders = COLUMNS.map(() => '?').join(', ');
    const sql =
      this.tx.driver === 'mysql'
        ? `INSERT INTO client_errors (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON DUPLICATE KEY UPDATE occurrence_count = occurrence_count + 1, last_seen_at = GREATEST(last_seen_at, VALUES(last_seen_at)), recovered = VALUES(recovered)`
        : `INSERT INTO client_errors (${COLUMNS.join(', ')}) VALUES (${placeholders}) ON CONFLICT(merge_key) DO UPDATE SET occurrence_count = occurrence_count + 1, last_seen_at = MAX(last_seen_at, excluded.last_seen_at), recovered = excluded.recovered`;
    await manager.query(sql, values);
    const rows = (await manager.query('SELECT id, event_id, occurrence_count FROM client_errors WHERE merge_key = ?', [record.mergeKey])) as RecordRow[];
    if (!rows[0]) throw new Error('client error record vanished after upsert');
    return toMergedRecord(rows[0]);
  }

  /** Claims the idempotency key; a unique violation means the event was already counted. */
  async insertSubmission(manager: EntityManager, userId: string, eventId: string, recordId: string, now: number): Promise<void> {
    await insertRow(manager, ClientErrorSubmissionEntity, { userId, eventId, recordId, createdAt: now });
  }
}
