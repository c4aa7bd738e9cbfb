import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { CLIENT_ERROR_TREND_KEEP_MS, ClientErrorRecordsService } from '../client-errors/client-error-records.service';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { RetentionConfig } from '../config/retention-config';
import { HostAppRetentionService } from '../host-app/host-app-retention.service';
import { OutboxRetention } from '../outbox/outbox-retention.service';
import { RtcCallbackService } from '../rtc-callback/rtc-callback.service';
import { WebhookRetentionService } from '../webhooks/webhook-retention.service';
import { PushRetentionService } from '../push/push-retention.service';
import { ServerRequestsService } from '../server-api/server-requests.service';
import { AnalyticsRetentionService } from '../analytics/analytics-retention.service';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Batches per table and run: a large backlog is worked off over several runs, never in one long burst. */
export const MAX_BATCHES_PER_RUN = 100;

/** What one run deleted, per table, and which tables failed (they are tried again next run). */
export interface RetentionRun {
  deleted: Record<string, number>;
  failed: string[];
}

interface PrunedTable {
  table: string;
  /** How long rows are kept; 0 keeps them for ever. */
  keepMs: number;
  prune: (cutoff: number, batchSize: number) => Promise<number>;
}

/** ±25 % around the interval, so that instances started together do not prune together. */
export function jitteredDelayMs(intervalSeconds: number, random: () => number = Math.random): number {
  return Math.round(intervalSeconds * 1000 * (0.75 + 0.5 * random()));
}

/**
 * Deletes client errors, room-callback events, idempotency records and delivered outbox events
 * (after REALTIME_BACKLOG_SECONDS) once they are older than their configured retention, in small batches, every RETENTION_INTERVAL_SECONDS (jittered).
 * Every instance runs it: a batch is deleted by primary key, so instances running at the same
 * moment delete each row once between them and never wait on each other for long.
 */
@Injectable()
export class RetentionService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Retention');
  private readonly settings: RetentionConfig;
  private readonly tables: PrunedTable[];
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<RetentionRun> | null = null;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    clientErrors: ClientErrorRecordsService,
    roomEvents: RtcCallbackService,
    outbox: OutboxRetention,
    hostApp: HostAppRetentionService,
    serverRequests: ServerRequestsService,
    webhooks: WebhookRetentionService,
    push: PushRetentionService,
    analytics: AnalyticsRetentionService,
  ) {
    this.settings = config.retention;
    this.tables = [
      {
        table: 'client_errors',
        keepMs: this.settings.clientErrorsDays * DAY_MS,
        prune: (cutoff, size) => clientErrors.pruneRecordsBefore(cutoff, size),
      },
      // A group goes with its last record (same cutoff); its counters until then are lifetime.
      {
        table: 'client_error_groups',
        keepMs: this.settings.clientErrorsDays * DAY_MS,
        prune: (cutoff, size) => clientErrors.pruneGroupsBefore(cutoff, size),
      },
      {
        table: 'client_error_group_hours',
        keepMs: CLIENT_ERROR_TREND_KEEP_MS.hours,
        prune: (cutoff, size) => clientErrors.pruneGroupBucketsBefore('hours', cutoff, size),
      },
      {
        table: 'client_error_group_days',
        keepMs: CLIENT_ERROR_TREND_KEEP_MS.days,
        prune: (cutoff, size) => clientErrors.pruneGroupBucketsBefore('days', cutoff, size),
      },
      {
        table: 'client_error_submissions',
        keepMs: this.settings.idempotencyDays * DAY_MS,
        prune: (cutoff, size) => clientErrors.pruneSubmissionsBefore(cutoff, size),
      },
      {
        table: 'rtc_room_events',
        keepMs: this.settings.roomEventsDays * DAY_MS,
        prune: (cutoff, size) => roomEvents.pruneEventsBefore(cutoff, size),
      },
      // Events older than the resume backlog can never be replayed (resume refuses such points);
      // those a webhook endpoint or the push dispatcher has not handled yet stay until it has.
      {
        table: 'outbox_events',
        keepMs: config.realtime.backlogSeconds * 1000,
        prune: async (cutoff, size) =>
          outbox.prune(cutoff, size, lowestFloor(await webhooks.outboxFloor(), await push.outboxFloor())),
      },
      {
        table: 'webhook_deliveries',
        keepMs: webhooks.deliveriesKeepMs,
        prune: (cutoff, size) => webhooks.pruneDeliveriesBefore(cutoff, size),
      },
      {
        table: 'push_deliveries',
        keepMs: push.deliveriesKeepMs,
        prune: (cutoff, size) => push.pruneDeliveriesBefore(cutoff, size),
      },
      // Host application sessions past their idle limit (cutoff) or their absolute one.
      {
        table: 'host_sessions',
        keepMs: config.hostApp.sessionIdleSeconds * 1000,
        prune: (cutoff, size) =>
          hostApp.pruneSessions(
            cutoff + (config.hostApp.sessionIdleSeconds - config.hostApp.sessionAbsoluteSeconds) * 1000,
            cutoff,
            size,
          ),
      },
      // SMS codes past their 5 minutes (keepMs 1: the cutoff is now, and never 0, which would keep them).
      { table: 'host_sms_codes', keepMs: 1, prune: (cutoff, size) => hostApp.pruneSmsCodes(cutoff, size) },
      // When each number last got a code, once SMS_PHONE_INTERVAL_SECONDS has passed (it holds nothing back then).
      {
        table: 'host_sms_phone_sends',
        keepMs: Math.max(1, config.hostApp.sms.phoneIntervalSeconds * 1000),
        prune: (cutoff, size) => hostApp.pruneSmsSendsBefore(cutoff, size),
      },
      // The server API's request_id records, like the other idempotency keys.
      {
        table: 'server_requests',
        keepMs: this.settings.idempotencyDays * DAY_MS,
        prune: (cutoff, size) => serverRequests.pruneBefore(cutoff, size),
      },
      // Who was active on which day (DAU/MAU); the rollups stay.
      {
        table: 'analytics_user_days',
        keepMs: analytics.userDaysKeepMs,
        prune: (cutoff, size) => analytics.pruneUserDaysBefore(cutoff, size),
      },
    ];
  }

  onApplicationBootstrap(): void {
    if (this.tables.some((table) => table.keepMs > 0)) this.schedule();
  }

  /** Stops the timer and lets a run in progress finish its batch before the pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }

  /** One pass over every table (a run already in progress on this instance is joined). */
  runOnce(): Promise<RetentionRun> {
    this.current ??= this.run().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  private schedule(): void {
    if (this.stopped) return;
    // unref: a pending pruning run never keeps the process alive.
    this.timer = setTimeout(() => void this.tick(), jitteredDelayMs(this.settings.intervalSeconds));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    const result = await this.runOnce();
    const total = Object.values(result.deleted).reduce((sum, n) => sum + n, 0);
    if (total > 0)
      this.logger.log(
        `pruned ${Object.entries(result.deleted)
          .map(([table, n]) => `${n} ${table}`)
          .join(', ')}`,
      );
    this.schedule();
  }

  private async run(): Promise<RetentionRun> {
    const result: RetentionRun = { deleted: {}, failed: [] };
    const now = this.clock.now();
    for (const { table, keepMs, prune } of this.tables) {
      if (keepMs === 0 || this.stopped) continue;
      const cutoff = now - keepMs;
      let deleted = 0;
      try {
        for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !this.stopped; batch++) {
          const count = await prune(cutoff, this.settings.batchSize);
          deleted += count;
          if (count === 0) break;
        }
      } catch (error) {
        // A deadlock, a timeout or an outage: the rows stay for the next run.
        result.failed.push(table);
        this.logger.warn(`pruning ${table} failed and is retried next run: ${(error as Error).message}`);
      }
      result.deleted[table] = deleted;
    }
    return result;
  }
}

/** The lower of two outbox floors (null: holds nothing back). */
function lowestFloor(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return BigInt(a) < BigInt(b) ? a : b;
}
