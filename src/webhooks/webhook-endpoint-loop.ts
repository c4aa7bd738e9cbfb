import type { Logger } from '@nestjs/common';
import { signWebhook } from '../common/security/standard-webhook';
import type { WebhookDeliveryConfig } from '../config/webhook-delivery-config';
import { isWebhookEventType } from '../contract/webhooks';
import type { SharedStoredEvent } from '../outbox/event-stream.service';
import { DeliveryRecord, WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { afterFailure, backoffMs, breakerState } from './webhook-policy';
import type { SendOutcome, WebhookSender } from './webhook-sender';
import type { WebhookEndpointEntity } from './webhook.entities';

/** What a loop needs from its dispatcher (one per instance). */
export interface LoopContext {
  owner: string;
  config: WebhookDeliveryConfig;
  endpoints: WebhookEndpointsRepository;
  deliveries: WebhookDeliveriesRepository;
  sender: WebhookSender;
  now: () => number;
  eventsAfter: (position: string, limit: number) => Promise<SharedStoredEvent[]>;
  /** The bodies of events by event ID: the envelope the gateway emits, with the shared part as data. */
  bodiesOf: (events: readonly SharedStoredEvent[]) => Promise<Map<string, string>>;
  recordMetrics: (endpointId: string, kind: 'attempt' | 'done', label: string) => void;
  reportState: (endpoint: WebhookEndpointEntity, failures: number, openUntil: number | null) => Promise<void>;
  logger: Logger;
}

const BATCH = 100;
const REPLAY_BATCH = 20;
/**
 * Delivered events are recorded, and the cursor saved, at most this often or every
 * FLUSH_EVENTS events, not one by one: a crash in between re-sends what was not saved (at
 * least once, as always). Pause, deletion and secret changes are noticed at the same pace.
 */
const FLUSH_MS = 100;
const FLUSH_EVENTS = 100;

function resultOf(outcome: SendOutcome): string {
  if (outcome.ok) return 'success';
  if (outcome.statusCode !== null) return 'http_error';
  return outcome.error?.startsWith('timeout') ? 'timeout' : 'network';
}

/**
 * Delivers one endpoint's events in position order while this instance holds its lease:
 * head-of-line, each event retried with backoff until it succeeds or its retry window (from the
 * event's creation) ends and it is dead-lettered; only then does the cursor move past it.
 * Replays of dead letters go between events, out of the ordered stream. The loop ends when the
 * lease is lost, the endpoint is paused or deleted, or the instance stops.
 */
export class EndpointLoop {
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private idle = false;
  private failures = 0;
  private openUntil: number | null = null;
  /** The last position handled (delivered, dead-lettered or not wanted), saved or not yet. */
  private cursor = '0';
  /** Records of first-attempt deliveries not yet written, and the last of their times. */
  private pending: DeliveryRecord[] = [];
  private pendingDeliveredAt: number | null = null;
  private savedAt = 0;
  private renewedAt = 0;
  readonly done: Promise<void>;

  constructor(
    private readonly id: string,
    private readonly ctx: LoopContext,
  ) {
    this.done = this.run().catch((error: unknown) => {
      this.ctx.logger.warn(
        `webhook endpoint ${this.id}: loop stopped on ${(error as Error).message}; retried at the next scan`,
      );
    });
  }

  /** New events may be there: an idle loop looks now (a loop waiting out a backoff does not). */
  wake(): void {
    if (this.idle) this.wakeUp?.();
  }

  stop(): void {
    this.stopped = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    let endpoint = await this.current();
    if (!endpoint) return;
    this.failures = endpoint.consecutiveFailures;
    this.openUntil = endpoint.breakerOpenUntil;
    this.cursor = endpoint.cursorPosition;
    try {
      while (!this.stopped) {
        endpoint = await this.current();
        if (!endpoint || !(await this.renew())) return;
        await this.replays(endpoint);
        const events = await this.ctx.eventsAfter(this.cursor, BATCH);
        await this.ctx.reportState(endpoint, this.failures, this.openUntil);
        if (events.length === 0) {
          await this.sleep(this.ctx.config.pollMs, true);
          continue;
        }
        // Every event's body: the endpoint's types may change (and are re-read) within the batch.
        const bodies = await this.ctx.bodiesOf(events);
        // Only the first event after the saved cursor can have been attempted before (by this
        // instance before a restart, or by another before its lease ran out).
        let first = true;
        for (const event of events) {
          if (this.stopped) break;
          if (wanted(endpoint, event.type)) {
            const outcome = await this.deliver(endpoint, event, bodies.get(event.eventId)!, first);
            if (outcome === 'lost') return;
            first = false;
          } else {
            this.cursor = event.position;
          }
          if (this.pending.length >= FLUSH_EVENTS || this.ctx.now() - this.savedAt >= FLUSH_MS) {
            if (!(await this.flush())) return;
            endpoint = await this.current();
            if (!endpoint) return;
          }
        }
        if (!(await this.flush())) return;
      }
    } finally {
      // Deliveries done but not yet recorded are recorded (the cursor moves only with a lease).
      await this.flush().catch(() => undefined);
      await this.ctx.endpoints.release(this.id, this.ctx.owner).catch(() => undefined);
    }
  }

  /** The endpoint as stored, or null when it is gone, paused or no longer leased to this instance. */
  private async current(): Promise<WebhookEndpointEntity | null> {
    const endpoint = await this.ctx.endpoints.findById(this.id);
    if (!endpoint || endpoint.paused || endpoint.leaseOwner !== this.ctx.owner) return null;
    return endpoint;
  }

  private async renew(): Promise<boolean> {
    const now = this.ctx.now();
    const renewed = await this.ctx.endpoints.renew(this.id, this.ctx.owner, now, this.ctx.config.leaseMs);
    if (renewed) this.renewedAt = now;
    return renewed;
  }

  /**
   * Renews only once a third of the lease has passed since the last renewal (or save): an
   * attempt then starts with at least two thirds of the lease left, more than a request's
   * timeout (WEBHOOK_LEASE_MS >= 2 x WEBHOOK_TIMEOUT_MS + 500).
   */
  private renewIfDue(): Promise<boolean> {
    if (this.ctx.now() - this.renewedAt < this.ctx.config.leaseMs / 3) return Promise.resolve(true);
    return this.renew();
  }

  /** Writes the pending delivery records, then the cursor with the breaker state (and renews the lease). */
  private async flush(): Promise<boolean> {
    const now = this.ctx.now();
    if (this.pending.length > 0) {
      await this.ctx.deliveries.insertMany(this.pending);
      this.pending = [];
    }
    const saved = await this.ctx.endpoints.saveProgress(this.id, this.ctx.owner, now, {
      cursor: this.cursor,
      failures: this.failures,
      openUntil: this.openUntil,
      deliveredAt: this.pendingDeliveredAt,
      leaseUntil: now + this.ctx.config.leaseMs,
    });
    this.pendingDeliveredAt = null;
    this.savedAt = now;
    if (saved) this.renewedAt = now;
    return saved;
  }

  /** An event is done (delivered or dead): the cursor moves past it and is saved at once. */
  private settle(position: string, deliveredAt: number | null): Promise<boolean> {
    this.cursor = position;
    if (deliveredAt !== null) this.pendingDeliveredAt = deliveredAt;
    return this.flush();
  }

  private secretsOf(endpoint: WebhookEndpointEntity, now: number): string[] {
    const secrets = [endpoint.secret];
    if (endpoint.previousSecret && (endpoint.previousSecretUntil ?? 0) > now) secrets.push(endpoint.previousSecret);
    return secrets;
  }

  private async attempt(endpoint: WebhookEndpointEntity, eventId: string, body: string): Promise<SendOutcome> {
    const now = this.ctx.now();
    const headers = signWebhook(eventId, now, body, this.secretsOf(endpoint, now));
    const outcome = await this.ctx.sender.send(endpoint.url, body, { ...headers });
    this.ctx.recordMetrics(this.id, 'attempt', resultOf(outcome));
    if (outcome.ok) {
      this.failures = 0;
      this.openUntil = null;
    } else {
      const next = afterFailure(
        this.failures,
        this.ctx.config.breakerThreshold,
        this.ctx.config.breakerCooldownMs,
        this.ctx.now(),
      );
      this.failures = next.failures;
      this.openUntil = next.openUntil;
    }
    return outcome;
  }

  /** One event until delivered or dead ('done'), or 'lost' when the lease or the endpoint went. */
  private async deliver(
    initial: WebhookEndpointEntity,
    event: SharedStoredEvent,
    body: string,
    mayHaveBegun: boolean,
  ): Promise<'done' | 'lost'> {
    let endpoint = initial;
    const deadline = event.createdAt + this.ctx.config.retryMs;
    // A delivery another instance (or this one before a restart) began: its attempts go on counting.
    const earlier = mayHaveBegun ? await this.ctx.deliveries.findByEvent(this.id, event.eventId) : null;
    let attempts = earlier?.attempts ?? 0;
    const firstAttemptAt = earlier?.firstAttemptAt ?? null;
    let nextAt = earlier?.status === 'retrying' ? (earlier.nextAttemptAt ?? 0) : 0;
    const base = { endpointId: this.id, eventId: event.eventId, type: event.type, position: event.position };
    for (;;) {
      if (this.stopped) return 'lost';
      const now = this.ctx.now();
      const breakerWait =
        breakerState(this.failures, this.openUntil, this.ctx.config.breakerThreshold, now) === 'open'
          ? this.openUntil!
          : 0;
      if (breakerWait > now && now >= deadline) {
        // The breaker is open past this event's window: dead-letter it without a request, so a
        // long outage's backlog is worked off at once instead of one timeout per event.
        if (!(await this.flush())) return 'lost';
        await this.ctx.deliveries.record({
          ...base,
          status: 'dead',
          attempts,
          lastStatusCode: earlier?.lastStatusCode ?? null,
          lastError: 'retry window ended while the circuit breaker was open',
          latencyMs: null,
          firstAttemptAt: firstAttemptAt ?? now,
          lastAttemptAt: now,
          nextAttemptAt: null,
          body,
        });
        this.ctx.recordMetrics(this.id, 'done', 'dead');
        return (await this.settle(event.position, null)) ? 'done' : 'lost';
      }
      const due = Math.min(Math.max(nextAt, breakerWait), Math.max(deadline, now));
      if (due > now) {
        if (!(await this.flush())) return 'lost';
        await this.sleep(Math.min(due - now, this.ctx.config.leaseMs / 3), false);
        const fresh = await this.current();
        if (!fresh || !(await this.renew())) return 'lost';
        endpoint = fresh;
        continue;
      }
      if (!(await this.renewIfDue())) return 'lost';
      const outcome = await this.attempt(endpoint, event.eventId, body);
      attempts++;
      const at = this.ctx.now();
      const common = {
        ...base,
        attempts,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        latencyMs: outcome.latencyMs,
        firstAttemptAt: firstAttemptAt ?? at - outcome.latencyMs,
        lastAttemptAt: at,
      };
      if (outcome.ok) {
        this.ctx.recordMetrics(this.id, 'done', 'delivered');
        const record = { ...common, status: 'delivered', nextAttemptAt: null, body: null };
        if (attempts === 1 && !earlier) {
          // The common case: recorded and saved with the next flush.
          this.pending.push(record);
          this.cursor = event.position;
          this.pendingDeliveredAt = at;
          return 'done';
        }
        await this.ctx.deliveries.record(record);
        return (await this.settle(event.position, at)) ? 'done' : 'lost';
      }
      // A failure: what went before is recorded first, so records and cursor stay in order.
      if (!(await this.flush())) return 'lost';
      if (at >= deadline) {
        await this.ctx.deliveries.record({ ...common, status: 'dead', nextAttemptAt: null, body });
        this.ctx.recordMetrics(this.id, 'done', 'dead');
        this.ctx.logger.warn(
          `webhook endpoint ${this.id}: event ${event.eventId} dead-lettered after ${attempts} attempts (${outcome.error})`,
        );
        return (await this.settle(event.position, null)) ? 'done' : 'lost';
      }
      // The last attempt falls on the deadline, so that a failing event is dead-lettered on time.
      nextAt = Math.min(
        at + backoffMs(attempts, this.ctx.config.backoffBaseMs, this.ctx.config.backoffMaxMs),
        deadline,
      );
      await this.ctx.deliveries.record({ ...common, status: 'retrying', nextAttemptAt: nextAt, body: null });
      if (!(await this.flush())) return 'lost';
      await this.ctx.reportState(endpoint, this.failures, this.openUntil);
    }
  }

  /** Dead letters an operator asked to replay: one attempt each; a failure leaves it dead with the new error. */
  private async replays(endpoint: WebhookEndpointEntity): Promise<void> {
    const rows = await this.ctx.deliveries.replaying(this.id, REPLAY_BATCH);
    for (const row of rows) {
      if (this.stopped || !(await this.renew())) return;
      if (!row.body) continue;
      const outcome = await this.attempt(endpoint, row.eventId, row.body);
      const at = this.ctx.now();
      await this.ctx.deliveries.record({
        endpointId: this.id,
        eventId: row.eventId,
        type: row.type,
        position: row.position,
        status: outcome.ok ? 'replayed' : 'dead',
        attempts: row.attempts + 1,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        latencyMs: outcome.latencyMs,
        firstAttemptAt: row.firstAttemptAt,
        lastAttemptAt: at,
        nextAttemptAt: null,
        body: row.body,
      });
      this.ctx.recordMetrics(this.id, 'done', outcome.ok ? 'replayed' : 'replay_failed');
    }
  }

  private sleep(ms: number, idle: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.idle = idle;
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = null;
        this.idle = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}

function wanted(endpoint: WebhookEndpointEntity, type: string): boolean {
  if (!isWebhookEventType(type)) return false;
  if (endpoint.eventTypes === null) return true;
  return (JSON.parse(endpoint.eventTypes) as string[]).includes(type);
}
