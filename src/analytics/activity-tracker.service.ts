import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { UsersService } from '../users/users.service';
import { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import { DAY_MS, dayOf } from './rollup';

/** A user's last_active_at is written at most this often per instance. */
export const LAST_ACTIVE_EVERY_MS = 60_000;
/** Users remembered for the minute's throttle; beyond it the oldest are forgotten (one extra write each). */
const MAX_REMEMBERED = 100_000;
/** Users remembered as already recorded today; beyond it the set restarts (the insert skips duplicates). */
const MAX_TODAY = 200_000;
/** Pending users that make a flush start at once rather than at the next tick. */
const FLUSH_AT = 5_000;
/**
 * Pending entries held while the database is slow; beyond it new ones are dropped (counted in
 * im_analytics_activity_dropped_total) and left unmarked, so the user's next request queues them again.
 */
export const MAX_PENDING = 100_000;
/** Users per statement: SQLite binds at most 32766 variables, and smaller statements hold locks briefly. */
export const WRITE_CHUNK = 500;

/**
 * Marks users active when they make an authenticated SDK request or open a socket: their
 * `last_active_at` and a row for the UTC day (DAU/MAU). The request path only touches memory;
 * writes are batched every ANALYTICS_FLUSH_MS (an UPDATE and an INSERT per 500 users) and at
 * shutdown. At most one write runs and one more waits, whatever the request rate; a waiting
 * write takes everything pending when it starts. Memory stays bounded: the throttle and the
 * day's set forget their oldest entries, and pending entries beyond MAX_PENDING are dropped.
 */
@Injectable()
export class ActivityTracker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Analytics');
  /** User → when its last_active_at was last queued; in that order (re-set entries move to the end). */
  private readonly queuedAt = new Map<string, number>();
  private today = -1;
  private readonly recordedToday = new Set<string>();
  private pendingActive = new Set<string>();
  private pendingDays = new Map<number, Set<string>>();
  private pendingCount = 0;
  /** The last write chained (running or waiting); never rejects. */
  private flushing: Promise<void> = Promise.resolve();
  /** The write waiting behind the running one, if any: further flushes join it instead of chaining more. */
  private queued: Promise<void> | null = null;
  /** Entries dropped since the last successful write began; logged once per such episode. */
  private dropping = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly userDays: AnalyticsUserDaysRepository,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.flush(), this.config.analytics.flushMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** The user (internal ID) did something; only memory is touched here. */
  seen(userId: string): void {
    const now = this.clock.now();
    const queued = this.queuedAt.get(userId);
    if ((queued === undefined || now - queued >= LAST_ACTIVE_EVERY_MS) && this.room(userId, 'active')) {
      this.queuedAt.delete(userId);
      this.queuedAt.set(userId, now);
      if (!this.pendingActive.has(userId)) this.pendingCount++;
      this.pendingActive.add(userId);
      this.forgetOldest(now);
    }
    const day = dayOf(now);
    if (day !== this.today) {
      this.today = day;
      this.recordedToday.clear();
    }
    if (!this.recordedToday.has(userId) && this.room(userId, 'day')) {
      if (this.recordedToday.size >= MAX_TODAY) this.recordedToday.clear();
      this.recordedToday.add(userId);
      const pending = this.pendingDays.get(day) ?? new Set<string>();
      pending.add(userId);
      this.pendingDays.set(day, pending);
      this.pendingCount++;
    }
    if (this.pendingCount >= FLUSH_AT) void this.flush();
  }

  /**
   * Writes what is pending (tests call it instead of waiting for the timer). Writes run one at a
   * time; while one runs, every flush shares the single write queued behind it.
   */
  flush(): Promise<void> {
    if (this.queued) return this.flushing;
    const next = this.flushing.then(() => {
      this.queued = null;
      return this.write();
    });
    this.queued = next;
    this.flushing = next.catch((error: Error) => this.logger.warn(`analytics flush failed: ${error.message}`));
    return this.flushing;
  }

  /** The erased user's activity history, and whatever of theirs this instance still holds. */
  async eraseUser(userId: string): Promise<number> {
    this.queuedAt.delete(userId);
    this.recordedToday.delete(userId);
    if (this.pendingActive.delete(userId)) this.pendingCount--;
    for (const ids of this.pendingDays.values()) if (ids.delete(userId)) this.pendingCount--;
    return this.userDays.deleteOfUser(userId, dayOf(this.clock.now()) + DAY_MS);
  }

  /** Whether a new pending entry fits; if not it is counted as dropped (and the first of an episode logged). */
  private room(userId: string, kind: 'active' | 'day'): boolean {
    if (this.pendingCount < MAX_PENDING) return true;
    if (kind === 'active' && this.pendingActive.has(userId)) return true;
    if (this.dropping++ === 0)
      this.logger.warn(`analytics activity: ${MAX_PENDING} entries wait for the database; further ones are dropped`);
    this.metrics.analyticsActivityDropped.inc({ kind });
    return false;
  }

  private async write(): Promise<void> {
    this.dropping = 0;
    if (this.pendingCount === 0) return;
    const active = [...this.pendingActive];
    const days = this.pendingDays;
    this.pendingActive = new Set();
    this.pendingDays = new Map();
    this.pendingCount = 0;
    try {
      const at = this.clock.now();
      for (let i = 0; i < active.length; i += WRITE_CHUNK)
        await this.users.touchLastActive(active.slice(i, i + WRITE_CHUNK), at);
    } catch (error) {
      // last_active_at is a hint: a lost batch is written again at the users' next request after a minute.
      for (const id of active) this.queuedAt.delete(id);
      this.logger.warn(`writing last_active_at failed: ${(error as Error).message}`);
    }
    for (const [day, ids] of days) {
      try {
        await this.userDays.record(day, [...ids]);
      } catch (error) {
        // Forgotten, so the users' next request queues them for the day again.
        for (const id of ids) if (day === this.today) this.recordedToday.delete(id);
        this.logger.warn(`recording active users failed: ${(error as Error).message}`);
      }
    }
  }

  private forgetOldest(now: number): void {
    if (this.queuedAt.size <= MAX_REMEMBERED) return;
    for (const [id, at] of this.queuedAt) {
      if (this.queuedAt.size <= MAX_REMEMBERED / 2 && now - at < LAST_ACTIVE_EVERY_MS) break;
      this.queuedAt.delete(id);
    }
  }
}
