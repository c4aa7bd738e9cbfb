import { Injectable } from '@nestjs/common';
import { HostSessionsRepository } from './host-sessions.repository';
import { SmsCodesRepository } from './sms-codes.repository';

/** What retention deletes of the host application's tables, one batch per call; each answers how many rows went. */
@Injectable()
export class HostAppRetentionService {
  constructor(
    private readonly sessions: HostSessionsRepository,
    private readonly smsCodes: SmsCodesRepository,
  ) {}

  /** Sessions created before `createdBefore` (absolute limit) or last seen before `seenBefore` (idle limit). */
  pruneSessions(createdBefore: number, seenBefore: number, batchSize: number): Promise<number> {
    return this.sessions.pruneExpired(createdBefore, seenBefore, batchSize);
  }

  /** SMS codes that expired before `cutoff`. */
  pruneSmsCodes(cutoff: number, batchSize: number): Promise<number> {
    return this.smsCodes.pruneExpired(cutoff, batchSize);
  }

  /** When each number last got a code, for numbers last sent a code before `cutoff`. */
  pruneSmsSendsBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.smsCodes.pruneSendsBefore(cutoff, batchSize);
  }
}
