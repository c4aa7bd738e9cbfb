import type { Logger } from '@nestjs/common';
import { backoffMs } from '../common/backoff';
import type { PushConfig } from '../config/push-config';
import type {
  PushDevice,
  PushNotification,
  PushProvider,
  PushProviderName,
  PushResult,
} from './providers/push-provider';
import type {
  AttemptRecord,
  ClaimedNotification,
  FinalStatus,
  PushDeliveriesRepository,
} from './push-deliveries.repository';
import type { PushProviders } from './push-providers';

const MAX_ERROR = 300;
/** Accepted notifications are recorded together, at most this long after the answer… */
const SENT_FLUSH_MS = 50;
/** …or as soon as this many are waiting. */
const SENT_FLUSH_COUNT = 64;

/** What a worker needs from the PushSender of its instance. */
export interface WorkerContext {
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
export function reasonOf(result: PushResult): string {
  return (result.outcome === 'sent' ? '' : result.reason).slice(0, MAX_ERROR);
}

/** Adapters answer every failure as a result; one that throws anyway is a retry, never a lost slot. */
export async function safeSend(
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

export function platformOf(platform: string): 'ios' | 'android' | 'harmony' {
  return platform === 'ios' || platform === 'harmony' ? platform : 'android';
}

/** One provider's claims and sends on this instance. */
export class ProviderWorker {
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
