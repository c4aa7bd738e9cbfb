import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { WebhookDeliveryConfig } from '../config/webhook-delivery-config';
import { MetricsService } from '../metrics/metrics.service';
import { EventStream, SharedStoredEvent } from '../outbox/event-stream.service';
import { UsersService } from '../users/users.service';
import { EndpointLoop, LoopContext } from './webhook-endpoint-loop';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { breakerState } from './webhook-policy';
import { WebhookSender } from './webhook-sender';
import type { WebhookEndpointEntity } from './webhook.entities';
import { WebhookSeeder } from './webhook-seeder';

const BREAKER_GAUGE = { closed: 0, half_open: 1, open: 2 } as const;

/**
 * Runs one delivery loop per endpoint whose lease this instance holds. Every poll it tries to
 * claim the endpoints no live instance holds (a conditional UPDATE on the lease row), so each
 * endpoint is worked by one instance at a time and picked up by another within a lease's time
 * when its instance dies. Nothing on the send path awaits it: a sequenced batch only wakes the
 * idle loops.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly owner = randomUUID();
  private readonly config: WebhookDeliveryConfig;
  private readonly sender: WebhookSender;
  private readonly loops = new Map<string, EndpointLoop>();
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) appConfig: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly stream: EventStream,
    private readonly users: UsersService,
    private readonly metrics: MetricsService,
    private readonly seeder: WebhookSeeder,
  ) {
    this.config = appConfig.webhookDelivery;
    this.sender = new WebhookSender(this.config.timeoutMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.seeder.seed();
    this.stream.onSequenced(() => {
      for (const loop of this.loops.values()) loop.wake();
    });
    this.timer = setInterval(() => this.scan(), this.config.pollMs);
    this.timer.unref();
    this.scan();
  }

  /** Stops every loop (an attempt in flight ends within the request timeout) and gives the leases back. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.scanning;
    for (const loop of this.loops.values()) loop.stop();
    await Promise.all([...this.loops.values()].map((loop) => loop.done));
    this.sender.close();
  }

  /** Looks for endpoints to claim now (after a change in the console), instead of at the next poll. */
  scan(): void {
    if (this.stopped || this.scanning) return;
    this.scanning = this.claimFree()
      .then(() => {
        if (this.failing) this.logger.log('webhook scheduling works again');
        this.failing = false;
      })
      .catch((error: unknown) => {
        if (!this.failing) this.logger.warn(`webhook scheduling failed, retrying: ${(error as Error).message}`);
        this.failing = true;
      })
      .finally(() => {
        this.scanning = null;
      });
  }

  private async claimFree(): Promise<void> {
    const now = this.clock.now();
    for (const endpoint of await this.endpoints.list()) {
      if (this.stopped) return;
      if (endpoint.paused || this.loops.has(endpoint.id)) continue;
      if (endpoint.leaseOwner !== null && endpoint.leaseOwner !== this.owner && endpoint.leaseUntil >= now) continue;
      if (!(await this.endpoints.claim(endpoint.id, this.owner, now, this.config.leaseMs))) continue;
      // Once per claim (a start, a takeover after another instance died, a resume): where an endpoint is served.
      this.logger.log(`webhook endpoint ${endpoint.id}: delivering from this instance`);
      const loop = new EndpointLoop(endpoint.id, this.context());
      this.loops.set(endpoint.id, loop);
      void loop.done.finally(() => {
        this.loops.delete(endpoint.id);
        this.clearGauges(endpoint.id);
      });
    }
  }

  private context(): LoopContext {
    return {
      owner: this.owner,
      config: this.config,
      endpoints: this.endpoints,
      deliveries: this.deliveries,
      sender: this.sender,
      now: () => this.clock.now(),
      eventsAfter: (position, limit) => this.stream.sharedAfter(position, limit),
      bodiesOf: (events) => this.bodiesOf(events),
      recordMetrics: (endpointId, kind, label) => {
        if (kind === 'attempt') this.metrics.webhookAttempts.inc({ endpoint: endpointId, result: label });
        else this.metrics.webhookDeliveries.inc({ endpoint: endpointId, outcome: label });
      },
      reportState: (endpoint, failures, openUntil) => this.reportState(endpoint, failures, openUntil),
      logger: this.logger,
    };
  }

  /** The bodies of a batch of events, by event ID (bodyOf). */
  private async bodiesOf(events: readonly SharedStoredEvent[]): Promise<Map<string, string>> {
    // One lookup of the members' external IDs for the whole batch.
    const memberIds = [...new Set(events.flatMap((event) => event.memberIds ?? []))];
    const external = memberIds.length > 0 ? await this.users.externalIds(memberIds) : new Map<string, string>();
    return new Map(events.map((event) => [event.eventId, bodyOf(event, external)]));
  }

  private async reportState(
    endpoint: WebhookEndpointEntity,
    failures: number,
    openUntil: number | null,
  ): Promise<void> {
    const now = this.clock.now();
    const labels = { endpoint: endpoint.id };
    this.metrics.webhookBreaker.set(
      labels,
      BREAKER_GAUGE[breakerState(failures, openUntil, this.config.breakerThreshold, now)],
    );
    const head = BigInt(await this.stream.head());
    const cursor = BigInt(endpoint.cursorPosition);
    this.metrics.webhookLagEvents.set(labels, Number(head > cursor ? head - cursor : 0n));
    const oldest = await this.stream.firstCreatedAfter(endpoint.cursorPosition);
    this.metrics.webhookLagSeconds.set(labels, oldest === null ? 0 : Math.max(0, now - oldest) / 1000);
  }

  private clearGauges(endpointId: string): void {
    for (const gauge of [this.metrics.webhookBreaker, this.metrics.webhookLagEvents, this.metrics.webhookLagSeconds])
      gauge.remove({ endpoint: endpointId });
  }
}

/**
 * The envelope the gateway emits, with the shared part as `data`, its text kept as stored.
 * One-to-one message events add `user_ids`: the shared part does not name the two members
 * (each socket learns its own side from its private part), and a host needs them.
 */
function bodyOf(event: SharedStoredEvent, external: ReadonlyMap<string, string>): string {
  let data = event.payload;
  if (event.memberIds?.length) {
    const userIds = event.memberIds.map((id) => external.get(id)).filter((id): id is string => id !== undefined);
    data =
      data === '{}'
        ? `{"user_ids":${JSON.stringify(userIds)}}`
        : `${data.slice(0, -1)},"user_ids":${JSON.stringify(userIds)}}`;
  }
  const type = JSON.stringify(event.type);
  return `{"event_id":${JSON.stringify(event.eventId)},"type":${type},"position":${JSON.stringify(event.position)},"created_at":${event.createdAt},"data":${data}}`;
}
