import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig, ConfigError } from '../config/app-config';
import type { SeededWebhookEndpoint } from '../config/webhook-delivery-config';
import { WEBHOOK_EVENT_TYPES, isWebhookEventType } from '../contract/webhooks';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { EventStream } from '../outbox/event-stream.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** The event types of a seeded endpoint as stored (JSON or null), or the problem with them. */
export function seededTypes(endpoint: SeededWebhookEndpoint, index: number): string | null {
  if (endpoint.eventTypes === null) return null;
  const unknown = endpoint.eventTypes.filter((type) => !isWebhookEventType(type));
  if (unknown.length || endpoint.eventTypes.length === 0)
    throw new ConfigError([
      `WEBHOOK_ENDPOINTS[${index}].event_types must be a non-empty list of ${WEBHOOK_EVENT_TYPES.join(', ')}` +
        (unknown.length ? ` (unknown: ${unknown.slice(0, 5).join(', ')})` : ''),
    ]);
  return JSON.stringify([...new Set(endpoint.eventTypes)]);
}

/**
 * Endpoints given by WEBHOOK_ENDPOINTS, written at boot, idempotent by URL: a new URL is
 * created (delivering from the newest event on), a known one takes the configured secret (the
 * one it replaces signs beside it for WEBHOOK_SECRET_ROTATION_HOURS), types and description. Endpoints added in the console are left alone, and a URL removed from
 * the setting is not deleted (the console deletes it, audited).
 */
@Injectable()
export class WebhookSeeder {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly stream: EventStream,
    private readonly tx: TransactionRunner,
  ) {}

  async seed(): Promise<void> {
    const seeded = this.config.webhookDelivery.endpoints;
    const types = seeded.map((endpoint, i) => seededTypes(endpoint, i));
    if (seeded.length === 0) return;
    const head = await this.stream.head();
    for (const [i, endpoint] of seeded.entries()) {
      const now = this.clock.now();
      const values = { description: endpoint.description, eventTypes: types[i], secret: endpoint.secret };
      try {
        const created = await this.tx.run(async (manager) => {
          const existing = await this.endpoints.findByUrl(endpoint.url, manager);
          if (existing) {
            await this.endpoints.updateSeeded(
              manager,
              existing.id,
              values,
              now,
              now + this.config.webhookDelivery.rotationMs,
            );
            return false;
          }
          await this.endpoints.insert(manager, { url: endpoint.url, ...values, cursorPosition: head, now });
          return true;
        });
        if (created) this.logger.log(`webhook endpoint ${i} of WEBHOOK_ENDPOINTS created`);
      } catch (error) {
        // Another instance booting at the same moment created it: the same values either way.
        if (!isUniqueViolation(error)) throw error;
      }
    }
  }
}
