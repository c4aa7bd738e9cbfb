import { Injectable } from '@nestjs/common';
import { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import { DAY_MS } from './rollup';

/** Who was active on a day is kept 400 days (beyond MAU's 30 and a year's comparison); rollups stay. */
export const USER_DAYS_KEEP_MS = 400 * DAY_MS;

/** The retention pass's way into analytics. */
@Injectable()
export class AnalyticsRetentionService {
  constructor(private readonly userDays: AnalyticsUserDaysRepository) {}

  readonly userDaysKeepMs = USER_DAYS_KEEP_MS;

  pruneUserDaysBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.userDays.prune(cutoff, batchSize);
  }
}
