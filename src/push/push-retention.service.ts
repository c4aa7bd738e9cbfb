import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { PushDeliveriesRepository } from './push-deliveries.repository';
import { PushDispatchRepository } from './push-dispatch.repository';
import { PushProviders } from './push-providers';

/** The retention pass's way into push: old notification records, and how far the outbox may be pruned. */
@Injectable()
export class PushRetentionService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly dispatch: PushDispatchRepository,
    private readonly providers: PushProviders,
    private readonly metrics: MetricsService,
  ) {}

  /** Final notification records kept this long (0: for ever). */
  get deliveriesKeepMs(): number {
    return this.config.push.deliveriesRetentionDays * 24 * 3_600_000;
  }

  /** Gives up what no sender will finish, then deletes final records created before `cutoff`. */
  async pruneDeliveriesBefore(cutoff: number, batchSize: number): Promise<number> {
    const expired = await this.deliveries.expireAbandoned(this.clock.now(), batchSize);
    for (const [provider, count] of expired)
      this.metrics.pushNotifications.inc({ provider, outcome: 'expired' }, count);
    return this.deliveries.prune(cutoff, batchSize);
  }

  /**
   * The dispatcher's cursor while push runs: later events wait for it. It falls behind only
   * while the database fails it, and events older than PUSH_RETRY_SECONDS are not pushed
   * anyway. Nothing is held back without a configured provider, nor when no instance has held
   * the dispatcher's lease for longer than that (every instance runs with PUSH_DISPATCH=false):
   * the outbox must not grow for a reader that is not there.
   */
  async outboxFloor(): Promise<string | null> {
    if (this.providers.adapters.length === 0) return null;
    const state = await this.dispatch.find();
    if (!state || state.leaseUntil < this.clock.now() - this.config.push.retryMs) return null;
    return state.cursorPosition;
  }
}
