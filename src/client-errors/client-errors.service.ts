import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { AuthUser } from '../im-token/auth-user';
import { ClientErrorsRepository, MergedRecord } from './client-errors.repository';
import { ReportClientErrorDto } from './dto/report-client-error.dto';
import { mergeKey } from './merge-key';
import { Scrubber } from './scrub';

export interface ClientErrorReply {
  event_id: string;
  occurrence_count: number;
}

function toReply(record: MergedRecord): ClientErrorReply {
  return { event_id: record.eventId, occurrence_count: record.occurrenceCount };
}

@Injectable()
export class ClientErrorsService {
  private readonly scrubber: Scrubber;

  constructor(
    private readonly repository: ClientErrorsRepository,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.scrubber = new Scrubber([config.sdkSecret, config.jwtSecret, config.rtc.callbackSecret]);
  }

  /**
   * Stores one client error (spec 4.2). Idempotent per (user, event_id): the key is claimed
   * and the occurrence counted in one transaction, key first, so a retry (even a concurrent
   * one) fails on the key before touching the shared record, and answers with the record the
   * first attempt counted into.
   */
  async report(auth: AuthUser, dto: ReportClientErrorDto): Promise<ClientErrorReply> {
    if (dto.user_id !== auth.userId) throw AppError.invalid('user_id', 'does not match the user of the token');
    // No look-up first: a new event (the usual case) goes straight to the transaction, and a
    // retry is recognised there by the unique key and answered from the stored submission.

    const now = this.clock.now();
    const key = mergeKey(
      { userId: auth.id, deviceId: dto.device_id, platform: dto.platform, severity: dto.severity, errorCode: dto.error_code, operation: dto.operation, buildId: dto.build_id },
      now,
    );
    const record = {
      eventId: dto.event_id,
      mergeKey: key,
      userId: auth.id,
      username: dto.username,
      deviceId: dto.device_id,
      platform: dto.platform,
      severity: dto.severity,
      errorCode: dto.error_code,
      message: this.scrubber.text(dto.message),
      stackTrace: this.scrubber.nullableText(dto.stack_trace),
      operation: dto.operation,
      buildId: dto.build_id,
      conversationId: dto.conversation_id,
      messageId: dto.message_id,
      traceId: dto.trace_id,
      recovered: dto.recovered,
      context: JSON.stringify(this.scrubber.json(dto.context)),
      firstSeenAt: now,
    };
    try {
      const occurrence = await this.tx.run(async (manager) => {
        await this.repository.insertSubmission(manager, auth.id, dto.event_id, key, now);
        return this.repository.upsertOccurrence(manager, record);
      });
      // A merge on MySQL reports the new count but not the record's event_id: unless this
      // instance has seen the record, it is read after commit, without locks.
      const eventId = occurrence.eventId ?? (await this.repository.recordEventId(key));
      if (!eventId) throw new Error('client error record vanished after commit');
      this.repository.recordCommitted(key, eventId);
      return toReply({ eventId, occurrenceCount: occurrence.count });
    } catch (error) {
      if (!isUniqueViolation(error, 'client_error_submissions')) throw error;
      const counted = await this.repository.findRecordBySubmission(auth.id, dto.event_id);
      if (!counted) throw error;
      return toReply(counted);
    }
  }
}
