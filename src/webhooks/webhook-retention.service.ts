import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** The retention pass's way into webhooks: old delivery records, and how far the outbox may be pruned. */
@Injectable()
export class WebhookRetentionService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  /** Delivery records kept this long (0: for ever). */
  get deliveriesKeepMs(): number {
    return this.config.webhookDelivery.deliveriesRetentionDays * 24 * 3_600_000;
  }

  pruneDeliveriesBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.deliveries.prune(cutoff, batchSize);
  }

  /**
   * The last outbox position every endpoint not paused has handled: later events are kept for
   * it. An endpoint falls at most WEBHOOK_RETRY_HOURS behind (older events are dead-lettered),
   * so this holds the outbox back by that much at most. Paused endpoints hold nothing back.
   */
  outboxFloor(): Promise<string | null> {
    return this.endpoints.lowestActiveCursor();
  }
}
