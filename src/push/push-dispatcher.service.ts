import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TransactionRunner } from '../database/transaction-runner';
import { MetricsService } from '../metrics/metrics.service';
import { EventStream } from '../outbox/event-stream.service';
import { PushDeliveriesRepository, QueuedNotification } from './push-deliveries.repository';
import { PushDispatchRepository } from './push-dispatch.repository';
import { PushFanout } from './push-fanout';
import { PushProviders } from './push-providers';
import { PushSender } from './push-sender.service';

const BATCH = 100;
/** Events fanned out at a time. */
const SLICE = 10;
/** A step stops taking events once it has queued this many notifications. */
const MAX_QUEUED_PER_STEP = 2_000;

class LeaseLost extends Error {}

/**
 * Reads the outbox after the real-time gateway and queues a notification for each device of
 * each offline recipient (PushFanout). One instance at a time holds the dispatcher's lease;
 * the notifications of a batch and the cursor past it commit in one transaction, and the
 * queue's unique key (event, device) makes a batch read again after a crash queue nothing
 * twice. Runs only where at least one provider is configured; nothing on the send path waits
 * for it.
 */
@Injectable()
export class PushDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Push');
  private readonly owner = randomUUID();
  private stopped = false;
  private holding = false;
  private failing = false;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private done: Promise<void> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly dispatch: PushDispatchRepository,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly stream: EventStream,
    private readonly fanout: PushFanout,
    private readonly sender: PushSender,
    private readonly providers: PushProviders,
    private readonly tx: TransactionRunner,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    if (this.providers.adapters.length === 0 || !this.config.push.dispatch) return;
    this.stream.onSequenced(() => this.wake());
    this.done = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.done;
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        let more = false;
        try {
          more = await this.step();
          if (this.failing) this.logger.log('push dispatch works again');
          this.failing = false;
        } catch (error) {
          if (error instanceof LeaseLost) {
            this.logger.log('push dispatch: lease lost to another instance');
            this.holding = false;
          } else {
            if (!this.failing) this.logger.warn(`push dispatch failed, retrying: ${(error as Error).message}`);
            this.failing = true;
          }
        }
        if (!more) {
          await this.sleep(this.config.push.pollMs);
          // Let the burst that woke it gather: one step then serves many events.
          if (!this.stopped && this.config.push.batchWaitMs > 0)
            await new Promise((resolve) => setTimeout(resolve, this.config.push.batchWaitMs));
        }
      }
    } finally {
      if (this.holding) await this.dispatch.release(this.owner, this.clock.now()).catch(() => undefined);
    }
  }

  /** One batch; true when more events may be waiting. */
  private async step(): Promise<boolean> {
    const now = this.clock.now();
    if (!(await this.dispatch.claim(this.owner, now, this.config.push.leaseMs))) {
      this.holding = false;
      return false;
    }
    if (!this.holding) this.logger.log('push dispatch: reading the outbox from this instance');
    this.holding = true;
    const state = await this.dispatch.find();
    if (!state) return false;
    const head = await this.stream.head();
    this.metrics.pushLagEvents.set(Number(BigInt(head) - BigInt(state.cursorPosition)));
    if (BigInt(head) <= BigInt(state.cursorPosition)) return false;
    const events = await this.stream.sequencedBetween(state.cursorPosition, head, BATCH);
    if (events.length === 0) return false;
    // The lease is renewed while a large batch is read (a group of thousands), so that no other
    // instance takes it over and starts the same batch.
    const renewal = setInterval(
      () => {
        void this.dispatch.claim(this.owner, this.clock.now(), this.config.push.leaseMs).catch(() => undefined);
      },
      Math.max(100, Math.floor(this.config.push.leaseMs / 3)),
    );
    try {
      // Events a slice at a time, until a step has queued enough: one transaction stays bounded.
      const queued: QueuedNotification[] = [];
      let last = state.cursorPosition;
      let taken = 0;
      for (let i = 0; i < events.length && queued.length < MAX_QUEUED_PER_STEP; i += SLICE) {
        const slice = events.slice(i, i + SLICE);
        queued.push(
          ...(await this.fanout.notificationsFor(slice, this.clock.now(), (reason, count) =>
            this.metrics.pushSkipped.inc({ reason }, count),
          )),
        );
        last = slice[slice.length - 1].position;
        taken += slice.length;
      }
      await this.tx.run(async (manager) => {
        await this.deliveries.enqueue(manager, queued);
        if (!(await this.dispatch.advance(manager, this.owner, this.clock.now(), last, this.config.push.leaseMs)))
          throw new LeaseLost();
      });
      if (queued.length > 0) this.sender.wake(new Set(queued.map((item) => item.provider)));
      return taken < events.length || events.length === BATCH;
    } finally {
      clearInterval(renewal);
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
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }
}
