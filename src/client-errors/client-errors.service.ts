import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { Scrubber } from '../common/scrubbing/scrub';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { AuthUser } from '../common/auth-user';
import { ClientErrorsRepository, MergedRecord, NewClientError } from './client-errors.repository';
import { ReportClientErrorDto } from './dto/report-client-error.dto';
import { mergeKey } from './merge-key';
import { ClientErrorReply } from './client-errors.reply';
import { ClientErrorRollups } from './client-error-rollups.service';

function toReply(record: MergedRecord): ClientErrorReply {
  return { event_id: record.eventId, occurrence_count: record.occurrenceCount };
}

/** Field limits of spec 4.2; a scrubbed value is cut back to them. */
const LIMITS = {
  username: 64,
  message: 4096,
  stackTrace: 32768,
  operation: 128,
  buildId: 128,
  conversationId: 512,
  messageId: 128,
} as const;
/**
 * The spec sets no size for `context`; without one, a single report could store a whole
 * request body (1 MiB) and have every string of it scrubbed. Twice the longest stack trace.
 */
export const MAX_CONTEXT_BYTES = 65536;

@Injectable()
export class ClientErrorsService {
  private readonly scrubber: Scrubber;

  constructor(
    private readonly repository: ClientErrorsRepository,
    private readonly rollups: ClientErrorRollups,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.scrubber = Scrubber.forConfig(config);
  }

  /**
   * Stores one client error (spec 4.2). Idempotent per (user, event_id): the key is claimed
   * and the occurrence counted in one transaction, key first, so a retry (even a concurrent
   * one) fails on the key before touching the shared record, and answers with the record the
   * first attempt counted into.
   */
  async report(auth: AuthUser, dto: ReportClientErrorDto): Promise<ClientErrorReply> {
    if (dto.user_id !== auth.externalId) throw AppError.invalid('user_id', 'does not match the user of the token');
    // Identifiers with a strict pattern cannot hold a marker: a credential there is refused.
    for (const [field, value] of [
      ['device_id', dto.device_id],
      ['error_code', dto.error_code],
    ] as const) {
      if (this.scrubber.hasCredential(value)) throw AppError.invalid(field, 'must not contain a token or a secret');
    }
    if (Buffer.byteLength(JSON.stringify(dto.context), 'utf8') > MAX_CONTEXT_BYTES)
      throw AppError.invalid('context', `must be at most ${MAX_CONTEXT_BYTES} bytes as JSON`);
    // No look-up first: a new event (the usual case) goes straight to the transaction, and a
    // retry is recognised there by the unique key and answered from the stored submission.

    const now = this.clock.now();
    const operation = this.scrubber.field(dto.operation, LIMITS.operation);
    const buildId = this.scrubber.nullableField(dto.build_id, LIMITS.buildId);
    const key = mergeKey(
      {
        userId: auth.internalId,
        deviceId: dto.device_id,
        platform: dto.platform,
        severity: dto.severity,
        errorCode: dto.error_code,
        operation,
        buildId,
      },
      now,
    );
    const record: NewClientError = {
      eventId: dto.event_id,
      mergeKey: key,
      userId: auth.internalId,
      username: this.scrubber.nullableField(dto.username, LIMITS.username),
      deviceId: dto.device_id,
      platform: dto.platform,
      severity: dto.severity,
      errorCode: dto.error_code,
      message: this.scrubber.field(dto.message, LIMITS.message),
      stackTrace: this.scrubber.nullableField(dto.stack_trace, LIMITS.stackTrace),
      operation,
      buildId,
      conversationId: this.scrubber.nullableField(dto.conversation_id, LIMITS.conversationId),
      messageId: this.scrubber.nullableField(dto.message_id, LIMITS.messageId),
      traceId: dto.trace_id,
      recovered: dto.recovered,
      context: JSON.stringify(this.scrubber.json(dto.context)),
      firstSeenAt: now,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.store(auth, dto.event_id, record);
      } catch (error) {
        if (!isUniqueViolation(error, 'client_error_submissions')) throw error;
        const counted = await this.repository.findRecordBySubmission(auth.internalId, dto.event_id);
        if (counted) return toReply(counted);
        // Retention deleted the record this event was counted into, but not (yet) its
        // submission: the retry is counted again, as a new occurrence.
        // Pruning racing the same retry three times over: nothing was stored; let the SDK retry.
        if (attempt >= 3) throw AppError.unavailable('the client error could not be stored');
        await this.repository.deleteOrphanSubmission(auth.internalId, dto.event_id);
      }
    }
  }

  private async store(auth: AuthUser, eventId: string, record: NewClientError): Promise<ClientErrorReply> {
    const key = record.mergeKey;
    // The console's groups are counted after commit, in batches (ClientErrorRollups): a retry that
    // fails on the submission key hands nothing over, and a submission this instance never hands
    // over (it crashed) is committed un-counted, for the sweep.
    const { submissionId, occurrence } = await this.tx.run(async (manager) => ({
      submissionId: await this.repository.insertSubmission(manager, auth.internalId, eventId, key, record.firstSeenAt),
      occurrence: await this.repository.upsertOccurrence(manager, record),
    }));
    this.rollups.add(submissionId);
    // A merge on MySQL reports the new count but not the record's event_id: unless this
    // instance has seen the record, it is read after commit, without locks.
    const recordEventId = occurrence.eventId ?? (await this.repository.recordEventId(key));
    if (!recordEventId) throw new Error('client error record vanished after commit');
    this.repository.recordCommitted(key, recordEventId);
    return toReply({ eventId: recordEventId, occurrenceCount: occurrence.count });
  }
}
