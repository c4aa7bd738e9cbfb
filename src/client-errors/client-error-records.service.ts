import { Injectable } from '@nestjs/common';
import type { ClientErrorEntity } from './client-error.entity';
import { ClientErrorLikeness, ClientErrorRecord } from './client-error-record';
import { ClientErrorsRepository } from './client-errors.repository';
import { ClientErrorGroupsRepository, DAY_MS } from './client-error-groups.repository';
import { ClientErrorRollups } from './client-error-rollups.service';

/** How long the trend buckets are kept: the charts show the last 24 hours and 30 days (UTC), with a margin. */
export const CLIENT_ERROR_TREND_KEEP_MS = { hours: 2 * DAY_MS, days: 32 * DAY_MS } as const;

export function toClientErrorRecord(row: ClientErrorEntity): ClientErrorRecord {
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
  constructor(
    private readonly repository: ClientErrorsRepository,
    private readonly groups: ClientErrorGroupsRepository,
    private readonly rollups: ClientErrorRollups,
  ) {}

  async findByMergeKey(mergeKey: string): Promise<ClientErrorRecord | null> {
    const row = await this.repository.findByMergeKey(mergeKey);
    return row ? toClientErrorRecord(row) : null;
  }

  /** Occurrences per hour since `from` (hour start in Unix ms → count); with `like`, of similar errors only. */
  countPerHour(from: number, like?: ClientErrorLikeness): Promise<Map<number, number>> {
    return this.repository.countPerHour(
      from,
      like && { platform: like.platform, errorCode: like.errorCode, operation: like.operation, buildId: like.buildId },
    );
  }

  /**
   * Erasure (server API): every stored error of the user (internal ID); answers how many records
   * went. The user's un-counted submissions are counted first (occurrence counts outlive erasure),
   * and the submissions are deleted before the group identities: a rollup that holds some of them
   * locked commits first, and its identity rows of the user are then forgotten with the others.
   */
  async deleteOfUser(userId: string): Promise<number> {
    await this.rollups.rollUpOfUser(userId);
    const deleted = await this.repository.deleteOfUser(userId);
    await this.groups.forgetUser(userId);
    return deleted;
  }

  /**
   * Retention: one batch of records whose last occurrence is before `cutoff`; answers how many
   * went. Submissions of that age not counted yet (no instance ran for that long) are counted
   * first: the rollup reads their records.
   */
  async pruneRecordsBefore(cutoff: number, batchSize: number): Promise<number> {
    await this.rollups.sweep(cutoff);
    return this.repository.deleteRecordsOlderThan(cutoff, batchSize);
  }

  /**
   * Retention: one batch of groups whose last occurrence is before `cutoff` (the same cutoff as
   * the records': none of their records is left), with their users, devices and trend buckets.
   */
  async pruneGroupsBefore(cutoff: number, batchSize: number): Promise<number> {
    // Every submission accepted so far is counted first, on whichever instance holds it, so that
    // a group reported again lately has its last_seen_at moved and is kept, as when reports were
    // counted in their own transaction. One accepted during the prune and counted after it starts
    // the group afresh, as one accepted just after the prune would.
    await this.rollups.sweep(Number.MAX_SAFE_INTEGER);
    return this.groups.pruneGroupsBefore(cutoff, batchSize);
  }

  /** Retention of the trend buckets (see CLIENT_ERROR_TREND_KEEP_MS), whatever the records' retention. */
  pruneGroupBucketsBefore(bucket: 'hours' | 'days', cutoff: number, batchSize: number): Promise<number> {
    return this.groups.pruneBucketsBefore(bucket, cutoff, batchSize);
  }

  /**
   * Retention: one batch of idempotency keys accepted before `cutoff`, counted in their group
   * (un-counted ones stay for the rollup). A retry of such an event_id afterwards is counted as a
   * new occurrence.
   */
  pruneSubmissionsBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.repository.deleteSubmissionsOlderThan(cutoff, batchSize);
  }
}
