import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Clock } from '../common/clock';
import { TransactionRunner } from '../database/transaction-runner';
import { MetricsService } from '../metrics/metrics.service';
import type { SequencedBatch } from './deliverable-event';
import { OutboxSequenceRepository } from './outbox-sequence.repository';

const ROUND_LIMIT = 200;
/** Safety net for wake-ups that never came: a commit on an instance killed right after it. */
export const SEQUENCER_POLL_MS = 1000;

/**
 * Gives committed events their delivery positions, in commit order.
 *
 * A row's auto-increment ID is taken when its transaction inserts it, so IDs are not in
 * commit order: a transaction holding ID 9 can commit after ID 10 was read and delivered, and a
 * client that resumes "after 10" would never see 9. Positions are therefore assigned only to
 * events that have committed: a round locks the one sequence row (so rounds of every instance
 * run one at a time), reads the events still without a position with a plain read (an open
 * transaction's rows are invisible, never waited on), numbers them after the head and commits.
 * An event that commits later is numbered in a later round, above everything delivered before
 * it. Each round's positions commit together, so any reader sees a gap-free prefix.
 *
 * A round runs when a transaction that wrote events commits on this instance (the commit
 * subscriber), and every second in case the instance that committed died before its round.
 */
@Injectable()
export class OutboxSequencer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('OutboxSequencer');
  private readonly listeners: Array<(batch: SequencedBatch) => void> = [];
  private running: Promise<void> | null = null;
  private again = false;
  /** Rounds begun so far; a flush waits for one begun after it. */
  private started = 0;
  private waiters: Array<{ need: number; resolve: () => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private failing = false;

  constructor(
    private readonly sequence: OutboxSequenceRepository,
    private readonly tx: TransactionRunner,
    private readonly metrics: MetricsService,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.poll(), SEQUENCER_POLL_MS);
    this.timer.unref();
    this.kick();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Called with every batch this instance sequenced (after its commit). */
  onSequenced(listener: (batch: SequencedBatch) => void): void {
    this.listeners.push(listener);
  }

  /** A transaction with events committed: number them soon (rounds coalesce). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
      // A kick that came after the loop's last check would otherwise be lost.
      if (this.again && !this.stopped) this.kick();
    });
  }

  /**
   * Resolves once every event committed before the call has a position: after a round that
   * started after the call and found the rest of the queue shorter than a round (not when the
   * sequencer goes idle, which under steady writes it may not do for long), or when rounds
   * fail (the caller then reads what is numbered so far).
   */
  flush(): Promise<void> {
    const need = this.started + 1;
    const done = new Promise<void>((resolve) => this.waiters.push({ need, resolve }));
    this.kick();
    return done;
  }

  private async loop(): Promise<void> {
    let more = true;
    while (!this.stopped && (more || this.again)) {
      this.again = false;
      const number = ++this.started;
      try {
        more = await this.round();
        if (this.failing) this.logger.log('sequencing works again');
        this.failing = false;
        if (!more) this.release((waiter) => waiter.need <= number);
      } catch (error) {
        // The database is down or slow: the poll tries again; one line per outage.
        if (!this.failing)
          this.logger.warn(`sequencing failed, retrying every ${SEQUENCER_POLL_MS} ms: ${(error as Error).message}`);
        this.failing = true;
        this.release(() => true);
        return;
      }
    }
    if (this.stopped) this.release(() => true);
  }

  private release(which: (waiter: { need: number }) => boolean): void {
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (which(waiter)) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  /** One round; answers whether more events may be waiting. */
  private async round(): Promise<boolean> {
    const result = await this.tx.run(async (manager) => {
      const head = await this.sequence.lockHead(manager);
      const rows = await this.sequence.unsequenced(manager, ROUND_LIMIT);
      if (rows.length === 0) return null;
      const upTo = await this.sequence.assign(manager, rows, head);
      return { after: head, upTo, rows };
      // No gap locks: the index ranges it updates may border rows of transactions still open.
    }, 'READ COMMITTED');
    if (!result) return false;
    this.metrics.outboxSequenced.inc(result.rows.length);
    const events = await this.sequence.withRecipients(result.rows);
    const batch = { after: result.after, upTo: result.upTo, events };
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (error) {
        this.logger.error(`a delivery listener failed: ${(error as Error).message}`, (error as Error).stack);
      }
    }
    return result.rows.length === ROUND_LIMIT;
  }

  private async poll(): Promise<void> {
    if (this.stopped || this.running) return;
    try {
      const oldest = await this.sequence.oldestUnsequenced();
      this.metrics.outboxLag.set(oldest === null ? 0 : Math.max(0, (this.clock.now() - oldest) / 1000));
      if (oldest !== null) this.kick();
    } catch {
      // The round's own failure handling reports outages; a failed probe changes nothing.
    }
  }
}
