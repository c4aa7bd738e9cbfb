import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { backoffMs } from '../common/backoff';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { PushConfig } from '../config/push-config';
import { MetricsService } from '../metrics/metrics.service';
import { DeadTokenGuard } from './dead-token-guard';
import type {
  PushDevice,
  PushNotification,
  PushProvider,
  PushProviderName,
  PushResult,
} from './providers/push-provider';
import {
  AttemptRecord,
  ClaimedNotification,
  FinalStatus,
  PushDeliveriesRepository,
} from './push-deliveries.repository';
import { PushProviders } from './push-providers';
import { PushRegistrationsRepository } from './push-registrations.repository';

const MAX_ERROR = 300;
/** Accepted notifications are recorded together, at most this long after the answer… */
const SENT_FLUSH_MS = 50;
/** …or as soon as this many are waiting. */
const SENT_FLUSH_COUNT = 64;
/**
 * Dead-token answers in a row, with no delivery between, after which registrations are kept
 * (DeadTokenGuard): far more than a day's uninstalls show in one run, far fewer than an app's users.
 */
const DEAD_TOKEN_RUN = 200;

/**
 * Sends the queued notifications: one worker per configured provider on every instance, each
 * with its own PUSH_CONCURRENCY slots, so a slow or failing provider fills only its own. A
 * worker claims due notifications for a lease (a conditional UPDATE), so two instances never
 * send the same one at once; a crash after the provider accepted and before the record lets
 * the lease run out and the notification be sent again, with the same collapse key (the event
 * ID), and the device shows it once.
 */
@Injectable()
export class PushSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Push');
  private readonly owner = randomUUID();
  private readonly workers: ProviderWorker[] = [];
  private readonly guards = new Map<string, DeadTokenGuard>();

  constructor(
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly providers: PushProviders,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly registrations: PushRegistrationsRepository,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    // PUSH_DISPATCH=false: another instance sends (the console's test send still works here).
    if (!this.appConfig.push.dispatch) return;
    for (const adapter of this.providers.adapters) {
      this.guards.set(adapter.name, new DeadTokenGuard(DEAD_TOKEN_RUN));
      const worker = new ProviderWorker(adapter, this.owner, this.appConfig.push, {
        now: () => this.clock.now(),
        deliveries: this.deliveries,
        outcome: (claimed, result, latencyMs) => this.recordAttempt(adapter, claimed, result, latencyMs),
        finished: (provider, status, count = 1) =>
          this.metrics.pushNotifications.inc({ provider, outcome: status }, count),
        deadToken: (claimed) => this.removeDead(adapter, claimed),
        delivered: () => this.guards.get(adapter.name)?.delivered(),
        logger: this.logger,
        providers: this.providers,
      });
      this.workers.push(worker);
    }
  }

  /** Queued work is there (for these registration providers, or any): their idle workers look now. */
  wake(providers?: ReadonlySet<string>): void {
    for (const worker of this.workers) if (!providers || worker.serves(providers)) worker.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const worker of this.workers) worker.stop();
    await Promise.all(this.workers.map((worker) => worker.done));
  }

  /** Sends one notification now, outside the queue (the console's test send). */
  async sendNow(
    provider: PushProviderName,
    device: { token: string; packageName: string | null; platform: string },
    notification: PushNotification,
  ): Promise<PushResult | null> {
    const adapter = this.providers.forProvider(provider);
    if (!adapter) return null;
    this.providers.started(adapter.name);
    const started = Date.now();
    const result = await safeSend(
      adapter,
      { provider, token: device.token, packageName: device.packageName, platform: platformOf(device.platform) },
      notification,
    );
    this.providers.finished(adapter.name, this.clock.now(), result.outcome === 'sent' ? null : reasonOf(result));
    this.metrics.pushAttempts.inc({ provider: adapter.name, result: result.outcome });
    this.metrics.pushSendSeconds.observe({ provider: adapter.name }, (Date.now() - started) / 1000);
    return result;
  }

  private recordAttempt(
    adapter: PushProvider,
    claimed: ClaimedNotification,
    result: PushResult,
    latencyMs: number,
  ): void {
    this.metrics.pushAttempts.inc({ provider: adapter.name, result: result.outcome });
    this.metrics.pushSendSeconds.observe({ provider: adapter.name }, latencyMs / 1000);
    if (result.outcome === 'sent')
      this.metrics.pushDelaySeconds.observe(
        { provider: adapter.name },
        Math.max(0, this.clock.now() - claimed.createdAt) / 1000,
      );
  }

  /** Removes a registration the provider called dead, unless the guard has tripped. */
  private async removeDead(adapter: PushProvider, claimed: ClaimedNotification): Promise<void> {
    const registration = claimed.registration;
    if (!registration) return;
    const guard = this.guards.get(adapter.name);
    if (guard && !guard.dead()) {
      if (guard.run === DEAD_TOKEN_RUN + 1)
        this.logger.error(
          `push ${adapter.name}: ${guard.run} dead-token answers in a row and no delivery: registrations are kept until one is delivered; check the provider's credentials and environment (APNS_ENVIRONMENT, APNS_TOPIC, the Firebase project)`,
        );
      return;
    }
    const removed = await this.registrations.deleteDead(
      claimed.registrationId,
      registration.tokenHash,
      registration.updatedAt,
    );
    if (removed > 0) this.metrics.pushDeadTokens.inc({ provider: adapter.name });
  }

  /** Whether a provider's dead-token guard keeps registrations now (the console shows it). */
  keepingDeadTokens(name: string): boolean {
    return this.guards.get(name)?.tripped ?? false;
  }
}

interface WorkerContext {
  now: () => number;
  deliveries: PushDeliveriesRepository;
  outcome: (claimed: ClaimedNotification, result: PushResult, latencyMs: number) => void;
  finished: (provider: string, status: FinalStatus, count?: number) => void;
  deadToken: (claimed: ClaimedNotification) => Promise<void>;
  delivered: () => void;
  logger: Logger;
  providers: PushProviders;
}

/** The adapter's reason (it names the status where it matters; the status is recorded beside it). */
function reasonOf(result: PushResult): string {
  return (result.outcome === 'sent' ? '' : result.reason).slice(0, MAX_ERROR);
}

/** Adapters answer every failure as a result; one that throws anyway is a retry, never a lost slot. */
async function safeSend(
  adapter: PushProvider,
  device: PushDevice,
  notification: PushNotification,
): Promise<PushResult> {
  try {
    return await adapter.send(device, notification);
  } catch (error) {
    return { outcome: 'retry', status: null, reason: `adapter error: ${(error as Error).message}`.slice(0, MAX_ERROR) };
  }
}

/**
 * Writes an outcome, again after a moment when the database fails: a notification the provider
 * accepted whose record is lost would be sent again once its claim runs out.
 */
async function persist<T>(write: () => Promise<T>): Promise<T> {
  for (const wait of [200, 1_000]) {
    try {
      return await write();
    } catch {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  return write();
}

function platformOf(platform: string): 'ios' | 'android' | 'harmony' {
  return platform === 'ios' || platform === 'harmony' ? platform : 'android';
}

/** One provider's claims and sends on this instance. */
class ProviderWorker {
  readonly done: Promise<void>;
  private stopped = false;
  private inFlight = 0;
  private wakeUp: (() => void) | null = null;
  /** A wake that came while the worker was busy claiming: its next sleep returns at once. */
  private woken = false;
  private claims = 0;
  private failing = false;
  private readonly running = new Set<Promise<void>>();
  /** The last claim took as many as it could: more may be due, so a finished send looks again. */
  private backlog = false;
  /** Accepted notifications not yet recorded, written together (SENT_FLUSH_MS, SENT_FLUSH_COUNT). */
  private sent: Array<{ id: string; claim: string; lastStatus: number | null; latencyMs: number }> = [];
  private sentTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** Claims with a send in flight, and how many each has: extended every third of a lease. */
  private readonly held = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly adapter: PushProvider,
    private readonly owner: string,
    private readonly config: PushConfig,
    private readonly ctx: WorkerContext,
  ) {
    this.heartbeat = setInterval(() => this.extendHeld(), Math.max(100, Math.floor(config.leaseMs / 3)));
    this.heartbeat.unref();
    this.done = this.run().finally(() => clearInterval(this.heartbeat));
  }

  /** Keeps the claims of sends still in flight alive, so that another instance never takes one over meanwhile. */
  private extendHeld(): void {
    if (this.held.size === 0) return;
    this.ctx.deliveries
      .extend([...this.held.keys()], this.ctx.now() + this.config.leaseMs)
      .catch((error: unknown) =>
        this.ctx.logger.warn(`push ${this.adapter.name}: extending claims failed: ${(error as Error).message}`),
      );
  }

  /** Whether it sends any of these registration providers. */
  serves(providers: ReadonlySet<string>): boolean {
    return this.adapter.serves.some((provider) => providers.has(provider));
  }

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  stop(): void {
    this.stopped = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const free = this.config.concurrency - this.inFlight;
      let claimed: ClaimedNotification[] = [];
      const claim = `${this.owner}:${++this.claims}`;
      if (free > 0) {
        try {
          const now = this.ctx.now();
          claimed = await this.ctx.deliveries.claimDue(
            this.adapter.serves,
            claim,
            now,
            now + this.config.leaseMs,
            free,
          );
          if (this.failing) this.ctx.logger.log(`push ${this.adapter.name}: the queue answers again`);
          this.failing = false;
        } catch (error) {
          if (!this.failing)
            this.ctx.logger.warn(`push ${this.adapter.name}: claiming failed, retrying: ${(error as Error).message}`);
          this.failing = true;
        }
      }
      for (const item of claimed) {
        this.inFlight++;
        this.held.set(claim, (this.held.get(claim) ?? 0) + 1);
        const running: Promise<void> = this.process(item, claim)
          .catch((error: unknown) =>
            this.ctx.logger.warn(
              `push ${this.adapter.name}: notification ${item.id} failed: ${(error as Error).message}`,
            ),
          )
          .finally(() => {
            this.inFlight--;
            const left = (this.held.get(claim) ?? 1) - 1;
            if (left > 0) this.held.set(claim, left);
            else this.held.delete(claim);
            this.running.delete(running);
            // More may be due: claim again once a quarter of the slots is free (a claim a slot would
            // cost three statements a notification).
            if (this.backlog && this.config.concurrency - this.inFlight >= Math.ceil(this.config.concurrency / 4))
              this.wake();
          });
        this.running.add(running);
      }
      // A full claim may have left more due: look again at once; otherwise wait for a wake or the poll.
      // With no slot free the last full claim still stands: a finished send wakes the worker.
      if (free > 0) this.backlog = claimed.length === free;
      if (free > 0 && this.backlog) continue;
      await this.sleep(this.config.pollMs);
    }
    await Promise.all([...this.running]);
    await this.flushSent();
  }

  /** Records an accepted notification with the others of the next few milliseconds, in one write. */
  private recordSent(item: { id: string; claim: string; lastStatus: number | null; latencyMs: number }): void {
    this.sent.push(item);
    if (this.sent.length >= SENT_FLUSH_COUNT) void this.flushSent();
    else this.sentTimer ??= setTimeout(() => void this.flushSent(), SENT_FLUSH_MS);
  }

  private flushSent(): Promise<void> {
    if (this.sentTimer) clearTimeout(this.sentTimer);
    this.sentTimer = null;
    const batch = this.sent;
    this.sent = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing
      .then(() =>
        persist(() =>
          this.ctx.deliveries.finishSent(batch, [...new Set(batch.map((item) => item.claim))], this.ctx.now()),
        ),
      )
      .then((changed) => {
        if (changed > 0) this.ctx.finished(this.adapter.name, 'sent', changed);
      })
      .catch((error: unknown) =>
        this.ctx.logger.warn(
          `push ${this.adapter.name}: recording sent notifications failed: ${(error as Error).message}`,
        ),
      );
    return this.flushing;
  }

  private async process(item: ClaimedNotification, claim: string): Promise<void> {
    const now = this.ctx.now();
    const finish = async (status: FinalStatus, attempt: AttemptRecord): Promise<void> => {
      if (await persist(() => this.ctx.deliveries.finish(item.id, claim, status, attempt, this.ctx.now())))
        this.ctx.finished(this.adapter.name, status);
    };
    const none: AttemptRecord = { lastStatus: null, lastError: null, latencyMs: null };
    // Unregistered since it was queued, or the token moved to another user: never to that device.
    if (!item.registration || item.registration.userId !== item.userId || item.payload === null)
      return finish('dropped', none);
    if (now >= item.deadlineAt) return finish('expired', { ...none, lastError: 'deadline passed before an attempt' });
    const notification = JSON.parse(item.payload) as PushNotification;
    this.ctx.providers.started(this.adapter.name);
    const started = Date.now();
    const result = await safeSend(
      this.adapter,
      {
        provider: item.provider as PushProviderName,
        token: item.registration.token,
        packageName: item.registration.packageName,
        platform: platformOf(item.registration.platform),
      },
      notification,
    );
    const latencyMs = Date.now() - started;
    const at = this.ctx.now();
    this.ctx.providers.finished(this.adapter.name, at, result.outcome === 'sent' ? null : reasonOf(result));
    this.ctx.outcome(item, result, latencyMs);
    const record: AttemptRecord = {
      lastStatus: result.status,
      lastError: result.outcome === 'sent' ? null : reasonOf(result),
      latencyMs,
    };
    switch (result.outcome) {
      case 'sent':
        this.ctx.delivered();
        return this.recordSent({ id: item.id, claim, lastStatus: result.status, latencyMs });
      case 'dead_token':
        await finish('dead_token', record);
        return this.ctx.deadToken(item);
      case 'failed':
        this.ctx.logger.warn(`push ${this.adapter.name}: notification ${item.id} refused: ${record.lastError}`);
        return finish('failed', record);
      case 'retry': {
        const wait = Math.max(
          backoffMs(item.attempts, this.config.backoffBaseMs, this.config.backoffMaxMs),
          result.retryAfterMs ?? 0,
        );
        if (at + wait >= item.deadlineAt) return finish('expired', record);
        return persist(() => this.ctx.deliveries.reschedule(item.id, claim, at + wait, record));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped || this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
