import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { UsersService } from '../users/users.service';
import { AnalyticsJobsRepository } from './analytics-jobs.repository';
import { AnalyticsRollupsRepository } from './analytics-rollups.repository';
import { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import { DAY_MS, HOUR_MS, MAU_DAYS, RollupIncrement, bucketStarts, dayOf, hourOf } from './rollup';

/** Days whose DAU/MAU the job has not stored yet are counted live, at most this many (today and the day before). */
const LIVE_DAYS = 2;
export const HOURS_SHOWN = 48;

export interface ActiveUsers {
  dau: number;
  mau: number;
}

export interface AnalyticsDay {
  day: number;
  /** Null on a finished day the job has not stored yet (it lags) and that is older than the live days. */
  dau: number | null;
  mau: number | null;
  /** Messages by type (only types with messages). */
  messages: Map<string, number>;
  calls: number;
  callSeconds: number;
}

export interface AnalyticsHour {
  hour: number;
  peakConnections: number;
  requests: number;
  clientErrors: number;
  serverErrors: number;
}

export interface AnalyticsOverview {
  days: AnalyticsDay[];
  hours: AnalyticsHour[];
  messageTypes: string[];
  today: ActiveUsers;
  generatedAt: number;
}

/**
 * The figures of the analytics page and the dashboard, read from the rollups only (never the
 * messages table). DAU/MAU of days the job has not finished yet (today) are counted live from
 * the user-days index, bounded to MAU's 30 days.
 */
@Injectable()
export class AnalyticsService {
  constructor(
    @Inject(Clock) private readonly clock: Clock,
    private readonly rollups: AnalyticsRollupsRepository,
    private readonly userDays: AnalyticsUserDaysRepository,
    private readonly jobs: AnalyticsJobsRepository,
    private readonly users: UsersService,
  ) {}

  async overview(rangeDays: number): Promise<AnalyticsOverview> {
    const now = this.clock.now();
    const today = dayOf(now);
    const from = today - (rangeDays - 1) * DAY_MS;
    const lastHour = hourOf(now);
    const firstHour = lastHour - (HOURS_SHOWN - 1) * HOUR_MS;
    const [daily, hourly, finished] = await Promise.all([
      this.rollups.read('analytics_daily', from, today, ['messages', 'calls', 'call_seconds', 'dau', 'mau']),
      this.rollups.read('analytics_hourly', firstHour, lastHour, [
        'peak_connections',
        'requests',
        'client_errors',
        'server_errors',
      ]),
      this.jobs.cursor('active_days'),
    ]);
    const days = new Map<number, AnalyticsDay>(
      bucketStarts(from, today, DAY_MS).map((day) => [
        day,
        { day, dau: 0, mau: 0, messages: new Map(), calls: 0, callSeconds: 0 },
      ]),
    );
    const types = new Set<string>();
    for (const row of daily) applyDaily(days.get(row.bucket), row, types);
    const liveFrom = Math.max(from, finished.at + DAY_MS, today - (LIVE_DAYS - 1) * DAY_MS);
    // A lagging job (stopped, lease stuck, catching up) leaves days between its cursor and the live
    // days: unknown, not zero. Before the first day on record there is nothing to compute.
    const pendingFrom = finished.at > 0 ? finished.at + DAY_MS : await this.userDays.firstDay();
    if (pendingFrom !== null)
      for (const day of bucketStarts(Math.max(from, pendingFrom), liveFrom - DAY_MS, DAY_MS))
        Object.assign(days.get(day)!, { dau: null, mau: null });
    const live = bucketStarts(liveFrom, today, DAY_MS);
    const counted = await Promise.all(live.map((day) => this.activeOn(day)));
    live.forEach((day, i) => Object.assign(days.get(day)!, counted[i]));
    const hours = new Map<number, AnalyticsHour>(
      bucketStarts(firstHour, lastHour, HOUR_MS).map((hour) => [
        hour,
        { hour, peakConnections: 0, requests: 0, clientErrors: 0, serverErrors: 0 },
      ]),
    );
    for (const row of hourly) applyHourly(hours.get(row.bucket), row);
    const todayDay = days.get(today)! as AnalyticsDay & ActiveUsers;
    return {
      days: [...days.values()],
      hours: [...hours.values()],
      messageTypes: [...types].sort(),
      today: { dau: todayDay.dau, mau: todayDay.mau },
      generatedAt: now,
    };
  }

  /** Users active today and over the 30 days ending today (live). */
  activeToday(): Promise<ActiveUsers> {
    return this.activeOn(dayOf(this.clock.now()));
  }

  /** Messages per UTC day (all types) from `from` to `to`, as rolled up so far. */
  async messagesPerDay(from: number, to: number): Promise<Map<number, number>> {
    const totals = new Map<number, number>();
    for (const row of await this.rollups.read('analytics_daily', from, to, ['messages']))
      totals.set(row.bucket, (totals.get(row.bucket) ?? 0) + row.value);
    return totals;
  }

  /**
   * DAU from the day's rows. Today's MAU is the users whose last_active_at falls in the 30 days
   * (an index range of users, written by the same tracker): a COUNT DISTINCT over 30 days of
   * user-days rows costs about a second at 35,000 monthly users (docs/benchmark.md), so it is
   * left to the job, once per finished day, and to a finished day the job has not reached yet.
   */
  private async activeOn(day: number): Promise<ActiveUsers> {
    const since = day - (MAU_DAYS - 1) * DAY_MS;
    const [dau, mau] = await Promise.all([
      this.userDays.countDay(day),
      day === dayOf(this.clock.now()) ? this.users.countActiveSince(since) : this.userDays.countDistinct(since, day),
    ]);
    return { dau, mau };
  }
}

function applyDaily(day: AnalyticsDay | undefined, row: RollupIncrement, types: Set<string>): void {
  if (!day) return;
  if (row.metric === 'messages') {
    day.messages.set(row.dimension, (day.messages.get(row.dimension) ?? 0) + row.value);
    types.add(row.dimension);
  } else if (row.metric === 'calls') day.calls += row.value;
  else if (row.metric === 'call_seconds') day.callSeconds += row.value;
  else if (row.metric === 'dau') day.dau = row.value;
  else if (row.metric === 'mau') day.mau = row.value;
}

function applyHourly(hour: AnalyticsHour | undefined, row: RollupIncrement): void {
  if (!hour) return;
  if (row.metric === 'peak_connections') hour.peakConnections = Math.max(hour.peakConnections, row.value);
  else if (row.metric === 'requests') hour.requests += row.value;
  else if (row.metric === 'client_errors') hour.clientErrors += row.value;
  else if (row.metric === 'server_errors') hour.serverErrors += row.value;
}
