import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AnalyticsRollupsRepository } from './analytics-rollups.repository';
import { RollupIncrement, hourOf, requestOutcome } from './rollup';

interface HourCounts {
  requests: number;
  client_errors: number;
  server_errors: number;
}

/**
 * Counts this instance's API requests (paths under /app/) and their error replies per UTC hour
 * in memory (see requestOutcome for what counts as which), and adds the counts to the hourly
 * rollup every ANALYTICS_FLUSH_MS and at shutdown. Every instance adds its own share.
 */
@Injectable()
export class ApiTraffic implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Analytics');
  private counts = new Map<number, HourCounts>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly rollups: AnalyticsRollupsRepository,
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

  /** One finished request (status null: the client left before the reply, not counted). */
  record(path: string, status: number | null, code: number | undefined): void {
    if (status === null || !path.startsWith('/app/')) return;
    const hour = hourOf(this.clock.now());
    let counts = this.counts.get(hour);
    if (!counts) {
      counts = { requests: 0, client_errors: 0, server_errors: 0 };
      this.counts.set(hour, counts);
    }
    counts.requests++;
    const outcome = requestOutcome(status, code);
    if (outcome !== 'ok') counts[`${outcome}s`]++;
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.counts.size === 0) return;
    const counts = this.counts;
    this.counts = new Map();
    const items: RollupIncrement[] = [];
    for (const [hour, c] of counts)
      for (const metric of ['requests', 'client_errors', 'server_errors'] as const)
        if (c[metric] > 0) items.push({ bucket: hour, metric, dimension: '', value: c[metric] });
    try {
      await this.rollups.upsert('analytics_hourly', items, 'add');
    } catch (error) {
      // Kept for the next flush (added to what comes meanwhile), so a short outage loses nothing.
      for (const [hour, c] of counts) {
        const now = this.counts.get(hour) ?? { requests: 0, client_errors: 0, server_errors: 0 };
        now.requests += c.requests;
        now.client_errors += c.client_errors;
        now.server_errors += c.server_errors;
        this.counts.set(hour, now);
      }
      this.logger.warn(`writing request counts failed: ${(error as Error).message}`);
    }
  }
}
