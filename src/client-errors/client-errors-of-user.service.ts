import { Injectable } from '@nestjs/common';
import { ClientErrorsOfUserRepository } from './client-errors-of-user.repository';

/** One merged client error of a user, as the console's user page lists it (already scrubbed). */
export interface ClientErrorOfUser {
  mergeKey: string;
  platform: string;
  severity: string;
  errorCode: string;
  message: string;
  occurrenceCount: number;
  lastSeenAt: number;
}

/** The console's user page: how many client errors the user's devices reported, and the latest. */
@Injectable()
export class ClientErrorsOfUser {
  constructor(private readonly records: ClientErrorsOfUserRepository) {}

  async summary(userId: string, limit: number): Promise<{ count: number; latest: ClientErrorOfUser[] }> {
    const [count, rows] = await Promise.all([this.records.count(userId), this.records.latest(userId, limit)]);
    return {
      count,
      latest: rows.map((r) => ({
        mergeKey: r.mergeKey,
        platform: r.platform,
        severity: r.severity,
        errorCode: r.errorCode,
        message: r.message,
        occurrenceCount: r.occurrenceCount,
        lastSeenAt: r.lastSeenAt,
      })),
    };
  }
}
