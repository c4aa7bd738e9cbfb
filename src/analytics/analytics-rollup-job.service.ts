import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { CallHistory } from '../calls/call-history.service';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MessageHistory } from '../conversations/message-history.service';
import { TransactionRunner } from '../database/transaction-runner';
import { SocketCensus } from '../realtime/socket-census';
import { AnalyticsCursor, AnalyticsCursorName, AnalyticsJobsRepository } from './analytics-jobs.repository';
import { AnalyticsRollupsRepository } from './analytics-rollups.repository';
import { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import {
  DAY_MS,
  MAU_DAYS,
  RollupIncrement,
  callIncrements,
  dayOf,
  hourOf,
  messageIncrements,
  settledPrefix,
} from './rollup';

/** Rows read per batch; each batch commits with its cursor in one transaction. */
export const ROLLUP_BATCH = 5_000;
/** Finished days whose DAU/MAU one run stores at most (a first run catches up over several). */
const DAYS_PER_RUN = 31;

/** Another instance holds the lease, or moved the cursor: the batch is not added. */
class Superseded extends Error {}

export interface RollupRun {
  /** False when another instance holds the lease (nothing was done). */
  held: boolean;
  messages: number;
  calls: number;
  days: number;
}

/**
 * The scheduled rollup, run by one instance at a time (a lease row): every
 * ANALYTICS_INTERVAL_SECONDS it samples the connection count of every instance into the hour's
 * peak, adds the messages and finished calls past its cursors to the daily figures, and stores
 * DAU/MAU of the days that have ended. Each batch's figures and its cursor commit together, the
 * cursor by compare-and-set after renewing the lease: a batch is added once, whoever runs it.
 */
@Injectable()
export class AnalyticsRollupJob implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Analytics');
  private readonly owner = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<RollupRun> | null = null;
  private stopped = false;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly jobs: AnalyticsJobsRepository,
    private readonly rollups: AnalyticsRollupsRepository,
    private readonly userDays: AnalyticsUserDaysRepository,
    private readonly messages: MessageHistory,
    private readonly calls: CallHistory,
    private readonly census: SocketCensus,
    private readonly tx: TransactionRunner,
  ) {}

  private get leaseMs(): number {
    return Math.max(30_000, 3 * this.config.analytics.intervalMs);
  }

  onApplicationBootstrap(): void {
    // Never at boot itself: the first run (possibly a long catch-up) starts a while after.
    if (this.config.analytics.job) this.schedule(Math.min(10_000, this.config.analytics.intervalMs));
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current?.catch(() => undefined);
    await this.jobs.release(this.owner).catch(() => undefined);
  }

  /** One run (a run in progress on this instance is joined). */
  runOnce(): Promise<RollupRun> {
    this.current ??= this.run().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    try {
      await this.runOnce();
      if (this.failing) this.logger.log('analytics rollup works again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn(`analytics rollup failed, retrying: ${(error as Error).message}`);
      this.failing = true;
    }
    this.schedule(this.config.analytics.intervalMs);
  }

  private async run(): Promise<RollupRun> {
    const result: RollupRun = { held: false, messages: 0, calls: 0, days: 0 };
    if (!(await this.jobs.claim(this.owner, this.clock.now(), this.leaseMs))) return result;
    result.held = true;
    try {
      await this.samplePeak();
      for (let n = -1; n !== 0 && !this.stopped;) result.messages += n = Math.max(0, await this.messageBatch());
      for (let n = -1; n !== 0 && !this.stopped;) result.calls += n = Math.max(0, await this.callBatch());
      result.days = await this.finishDays();
    } catch (error) {
      if (!(error instanceof Superseded)) throw error;
      this.logger.log('analytics rollup: another instance took the job over');
    }
    return result;
  }

  private async samplePeak(): Promise<void> {
    const count = await this.census.count();
    const hour = hourOf(this.clock.now());
    await this.rollups.upsert(
      'analytics_hourly',
      [{ bucket: hour, metric: 'peak_connections', dimension: '', value: count.sockets }],
      'max',
    );
  }

  /** One batch of messages; how many were added (0: none settled yet). */
  private async messageBatch(): Promise<number> {
    const from = await this.jobs.cursor('messages');
    const rows = await this.messages.typesAfter(from.id, ROLLUP_BATCH);
    const settled = settledPrefix(rows, this.clock.now() - this.config.analytics.settleMs);
    if (settled.length === 0) return 0;
    await this.commit('messages', from, { id: settled[settled.length - 1].id, at: 0 }, messageIncrements(settled));
    return settled.length;
  }

  /** One batch of calls that ended at least the settle time ago. */
  private async callBatch(): Promise<number> {
    const from = await this.jobs.cursor('calls');
    const rows = await this.calls.finishedAfter(
      from.at,
      from.id,
      this.clock.now() - this.config.analytics.settleMs,
      ROLLUP_BATCH,
    );
    if (rows.length === 0) return 0;
    const last = rows[rows.length - 1];
    await this.commit('calls', from, { id: last.id, at: last.endedAt }, callIncrements(rows));
    return rows.length;
  }

  /**
   * DAU and MAU of each day that ended (with room for the last activity flushes and a late
   * rollup) after the last one stored, oldest first.
   */
  private async finishDays(): Promise<number> {
    const from = await this.jobs.cursor('active_days');
    const margin = Math.max(this.config.analytics.settleMs, 3 * this.config.analytics.flushMs);
    const lastEnded = dayOf(this.clock.now() - margin) - DAY_MS;
    let day = from.at > 0 ? from.at + DAY_MS : await this.userDays.firstDay();
    let done = 0;
    let cursor = from;
    while (day !== null && day <= lastEnded && done < DAYS_PER_RUN && !this.stopped) {
      const [dau, mau] = await Promise.all([
        this.userDays.countDay(day),
        this.userDays.countDistinct(day - (MAU_DAYS - 1) * DAY_MS, day),
      ]);
      const next = { id: '0', at: day };
      await this.commit(
        'active_days',
        cursor,
        next,
        [
          { bucket: day, metric: 'dau', dimension: '', value: dau },
          { bucket: day, metric: 'mau', dimension: '', value: mau },
        ],
        'set',
      );
      cursor = next;
      day += DAY_MS;
      done++;
    }
    return done;
  }

  private async commit(
    name: AnalyticsCursorName,
    from: AnalyticsCursor,
    to: AnalyticsCursor,
    items: RollupIncrement[],
    mode: 'add' | 'set' = 'add',
  ): Promise<void> {
    await this.tx.run(async (manager) => {
      const now = this.clock.now();
      // The lease row first: on MySQL its lock makes a second holder (after a lease ran out) wait here.
      if (!(await this.jobs.renew(manager, this.owner, now, this.leaseMs))) throw new Superseded();
      if (!(await this.jobs.advance(manager, name, from, to, now))) throw new Superseded();
      await this.rollups.upsert('analytics_daily', items, mode, manager);
    });
  }
}
