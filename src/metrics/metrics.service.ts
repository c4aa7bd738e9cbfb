import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface PoolUse {
  used: number;
  free: number;
  waiting: number;
}

/**
 * The service's Prometheus metrics, in a registry of its own per application instance (tests
 * boot many applications in one process; the global registry would refuse the second).
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'im_http_requests_total',
    help: 'HTTP requests by route template, HTTP status (aborted: the client left before the reply) and envelope code',
    labelNames: ['method', 'route', 'status', 'code'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'im_http_request_duration_seconds',
    help: 'Time from the request to the end of its reply, by route template, HTTP status and envelope code',
    labelNames: ['method', 'route', 'status', 'code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly connectionErrors = new Counter({
    name: 'im_http_connection_errors_total',
    help: 'Replies the HTTP server wrote itself (408 headers or body not received in time, 431 headers too large, 400 malformed HTTP), by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly rateLimitRefusals = new Counter({
    name: 'im_rate_limit_refusals_total',
    help: 'Requests refused with code 1005, by limit name',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  readonly redisUp = new Gauge({
    name: 'im_redis_up',
    help: '1 while the shared rate-limit store (REDIS_URL) answers, 0 during an outage; absent without REDIS_URL',
    registers: [this.registry],
  });

  readonly redisFallbacks = new Counter({
    name: 'im_redis_fallbacks_total',
    help: 'Rate-limit checks answered by the in-memory limiter because Redis did not answer in time',
    registers: [this.registry],
  });

  readonly databaseTimeouts = new Counter({
    name: 'im_db_timeouts_total',
    help: 'Database waits given up: acquire (no free pooled connection in time) or query (statement too slow)',
    labelNames: ['phase'] as const,
    registers: [this.registry],
  });

  readonly transactionRetries = new Counter({
    name: 'im_db_transaction_retries_total',
    help: 'Write transactions run again after a deadlock, lock-wait timeout or snapshot conflict',
    registers: [this.registry],
  });

  readonly databaseUnavailable = new Counter({
    name: 'im_db_unavailable_replies_total',
    help: 'Requests answered 503 / 1500 because the database did not answer',
    registers: [this.registry],
  });

  readonly outboxLag = new Gauge({
    name: 'im_outbox_lag_seconds',
    help: 'Age of the oldest committed event still waiting for a delivery position (0 when none), checked every second',
    registers: [this.registry],
  });

  readonly outboxSequenced = new Counter({
    name: 'im_outbox_sequenced_total',
    help: 'Events given a delivery position by this instance',
    registers: [this.registry],
  });

  readonly realtimeSockets = new Gauge({
    name: 'im_realtime_sockets',
    help: 'Authenticated socket.io connections on this instance',
    registers: [this.registry],
  });

  readonly realtimeDeliveries = new Counter({
    name: 'im_realtime_deliveries_total',
    help: 'Events emitted to sockets on this instance, by how: live or replay (resume)',
    labelNames: ['via'] as const,
    registers: [this.registry],
  });

  readonly realtimeRefusals = new Counter({
    name: 'im_realtime_refusals_total',
    help: 'Handshakes and client messages refused, by code',
    labelNames: ['stage', 'code'] as const,
    registers: [this.registry],
  });

  readonly analyticsActivityDropped = new Counter({
    name: 'im_analytics_activity_dropped_total',
    help: "Activity marks (active: last_active_at, day: the day's DAU row) not queued because 100,000 already waited for the database; the user's next request queues them again",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly backgroundItemFailures = new Counter({
    name: 'im_background_item_failures_total',
    help: 'Items of a background pass (a call of the call timers, a user of the presence sweep) that failed on their own while the pass went on, by pass',
    labelNames: ['pass'] as const,
    registers: [this.registry],
  });

  readonly beforeSendOutcomes = new Counter({
    name: 'im_before_send_outcomes_total',
    help: 'Calls of the before-send hook by outcome: allow, reject, replace, or failure_allowed / failure_rejected (timeout, network error, non-2xx or malformed answer, settled by WEBHOOK_BEFORE_SEND_ON_FAILURE)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'im_webhook_deliveries_total',
    help: 'Webhook events finished per endpoint (ID) by outcome: delivered, dead (dead-lettered), replayed, replay_failed',
    labelNames: ['endpoint', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'im_webhook_attempts_total',
    help: 'Webhook HTTP attempts per endpoint (ID) by result: success, http_error, timeout, network',
    labelNames: ['endpoint', 'result'] as const,
    registers: [this.registry],
  });

  readonly webhookLagEvents = new Gauge({
    name: 'im_webhook_lag_events',
    help: 'Events sequenced after the endpoint cursor, set by the instance delivering to it',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly webhookLagSeconds = new Gauge({
    name: 'im_webhook_lag_seconds',
    help: 'Age of the oldest event after the endpoint cursor (0 when caught up), set by the instance delivering to it',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly webhookBreaker = new Gauge({
    name: 'im_webhook_breaker_state',
    help: 'Endpoint circuit breaker: 0 closed, 1 half-open, 2 open, set by the instance delivering to it',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly pushNotifications = new Counter({
    name: 'im_push_notifications_total',
    help: 'Push notifications finished per provider by outcome: sent, dead_token, failed, expired (given up after retries), dropped (device unregistered or moved to another user)',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly pushAttempts = new Counter({
    name: 'im_push_attempts_total',
    help: "Push provider requests per provider by the provider's answer: sent, dead_token, retry, failed",
    labelNames: ['provider', 'result'] as const,
    registers: [this.registry],
  });

  readonly pushSendSeconds = new Histogram({
    name: 'im_push_send_seconds',
    help: 'Time of one provider request, per provider',
    labelNames: ['provider'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly pushDelaySeconds = new Histogram({
    name: 'im_push_delay_seconds',
    help: "Time from an event to its notification's acceptance by the provider, per provider",
    labelNames: ['provider'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly pushDeadTokens = new Counter({
    name: 'im_push_dead_tokens_removed_total',
    help: 'Registrations removed because the provider answered that the token is dead, per provider',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });

  readonly pushSkipped = new Counter({
    name: 'im_push_skipped_total',
    help: 'Recipients with a registered device not notified of an event, by reason: online, muted, quiet_hours, no_device, stale',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly pushInFlight = new Gauge({
    name: 'im_push_in_flight',
    help: 'Provider requests in flight on this instance, per provider',
    labelNames: ['provider'] as const,
    registers: [this.registry],
  });

  readonly pushLagEvents = new Gauge({
    name: 'im_push_lag_events',
    help: "Events sequenced after the push dispatcher's cursor, set by the instance holding its lease",
    registers: [this.registry],
  });

  private poolUse: (() => PoolUse | null) | null = null;

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'im_' });
    const poolUse = (): PoolUse | null => this.poolUse?.() ?? null;
    new Gauge({
      name: 'im_db_pool_connections',
      help: 'Pooled database connections by state (MySQL only): used, free, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        const use = poolUse();
        if (!use) return;
        this.set({ state: 'used' }, use.used);
        this.set({ state: 'free' }, use.free);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
  }

  /** Read at every scrape. */
  watchPool(read: () => PoolUse | null): void {
    this.poolUse = read;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
