import { Injectable } from '@nestjs/common';
import type { ClientErrorEntity } from './client-error.entity';
import { ClientErrorFilters, ClientErrorLikeness, ClientErrorRecord } from './client-error-record';
import { ClientErrorsRepository } from './client-errors.repository';

function toRecord(row: ClientErrorEntity): ClientErrorRecord {
  return {
    id: row.id,
    eventId: row.eventId,
    mergeKey: row.mergeKey,
    userId: row.userId,
    username: row.username,
    deviceId: row.deviceId,
    platform: row.platform,
    severity: row.severity,
    errorCode: row.errorCode,
    message: row.message,
    stackTrace: row.stackTrace,
    operation: row.operation,
    buildId: row.buildId,
    conversationId: row.conversationId,
    messageId: row.messageId,
    traceId: row.traceId,
    recovered: row.recovered,
    context: row.context,
    occurrenceCount: row.occurrenceCount,
    firstSeenAt: row.firstSeenAt,
    lastSeenAt: row.lastSeenAt,
  };
}

/** The stored client errors as the rest of the service reads and prunes them (admin console, retention). */
@Injectable()
export class ClientErrorRecordsService {
  constructor(private readonly repository: ClientErrorsRepository) {}

  /** One row per merge key, most recent first, before the record `beforeId`. */
  async list(filters: ClientErrorFilters, beforeId: string | null, limit: number): Promise<ClientErrorRecord[]> {
    return (await this.repository.list(filters, beforeId, limit)).map(toRecord);
  }

  async findByMergeKey(mergeKey: string): Promise<ClientErrorRecord | null> {
    const row = await this.repository.findByMergeKey(mergeKey);
    return row ? toRecord(row) : null;
  }

  /** Occurrences per hour since `from` (hour start in Unix ms → count); with `like`, of similar errors only. */
  countPerHour(from: number, like?: ClientErrorLikeness): Promise<Map<number, number>> {
    return this.repository.countPerHour(
      from,
      like && { platform: like.platform, errorCode: like.errorCode, operation: like.operation, buildId: like.buildId },
    );
  }

  /** Erasure (server API): every stored error of the user (internal ID); answers how many records went. */
  deleteOfUser(userId: string): Promise<number> {
    return this.repository.deleteOfUser(userId);
  }

  /** Retention: one batch of records whose last occurrence is before `cutoff`; answers how many went. */
  pruneRecordsBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.repository.deleteRecordsOlderThan(cutoff, batchSize);
  }

  /**
   * Retention: one batch of idempotency keys accepted before `cutoff`. A retry of such an
   * event_id afterwards is counted as a new occurrence.
   */
  pruneSubmissionsBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.repository.deleteSubmissionsOlderThan(cutoff, batchSize);
  }
}
