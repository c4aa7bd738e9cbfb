import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ClientErrorRollupsRepository } from './client-error-rollups.repository';

/** A batch is counted at most this long after its first report (and across instances, groups trail by this much). */
export const ROLLUP_FLUSH_MS = 200;
/** Pending submissions that make a flush start at once; also the most one transaction counts. */
export const ROLLUP_BATCH = 500;
/** Submissions held while the database is slow; beyond it they are left to the sweep. */
const MAX_PENDING = 50_000;
/** How often each instance looks for submissions no instance counted (one that crashed holding them). */
export const ROLLUP_SWEEP_MS = 30_000;
/** A submission this old and still un-counted is no longer in any live instance's batch (or is, and is skipped there). */
export const ROLLUP_SWEEP_AGE_MS = 10_000;

/**
 * Counts accepted client error reports into the console's groups off the request path. The
 * report's transaction stores the submission (rolled_up = 0) and the record only, then hands the
 * submission here; every ROLLUP_FLUSH_MS (or ROLLUP_BATCH submissions) one transaction counts
 * the batch (ClientErrorRollupsRepository.rollUp). At most one flush runs and one more waits; a
 * waiting flush takes everything pending when it starts. Nothing is lost when this instance
 * stops: shutdown flushes, and what a crash leaves un-counted is committed with rolled_up = 0,
 * which a sweep on any instance counts; the row locks and the rolled_up check under them count
 * each submission exactly once whoever gets there first.
 */
@Injectable()
export class ClientErrorRollups implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ClientErrorRollups');
  private pending: string[] = [];
  /** The last flush chained (running or waiting); never rejects. */
  private flushing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  /** The timer's sweep, while it runs (the next tick skips rather than overlaps it). */
  private sweeping: Promise<number> | null = null;
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly repository: ClientErrorRollupsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timers = [
      setInterval(() => {
        if (this.pending.length > 0) void this.flush();
      }, ROLLUP_FLUSH_MS),
      setInterval(() => {
        if (this.sweeping) return;
        this.sweeping = this.sweep()
          .catch(() => 0)
          .finally(() => (this.sweeping = null));
      }, ROLLUP_SWEEP_MS),
    ];
    for (const timer of this.timers) timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.flush();
  }

  /** A submission (id) committed with rolled_up = 0; only memory is touched here. */
  add(submissionId: string): void {
    if (this.pending.length >= MAX_PENDING) return; // the sweep counts it
    this.pending.push(submissionId);
    if (this.pending.length >= ROLLUP_BATCH) void this.flush();
  }

  /**
   * Counts what this instance holds. The console's group reads call it first, so a report is in
   * the groups as soon as its request has answered, when both reach the same instance.
   */
  flush(): Promise<void> {
    if (this.queued) return this.flushing;
    const next = this.flushing.then(() => {
      this.queued = null;
      return this.write();
    });
    this.queued = next;
    this.flushing = next.catch((error: Error) =>
      this.logger.warn(`client error rollup failed (the sweep counts it later): ${error.message}`),
    );
    return this.flushing;
  }

  /**
   * Counts un-counted submissions accepted before `cutoff` (by default ROLLUP_SWEEP_AGE_MS ago),
   * a batch per transaction, and answers how many it counted. Any instance may sweep at any time.
   */
  async sweep(cutoff = this.clock.now() - ROLLUP_SWEEP_AGE_MS): Promise<number> {
    let counted = 0;
    try {
      for (;;) {
        const ids = await this.repository.unrolledBefore(cutoff, ROLLUP_BATCH);
        counted += await this.repository.rollUp(ids);
        if (ids.length < ROLLUP_BATCH) break;
      }
    } catch (error) {
      this.logger.warn(`client error rollup sweep failed: ${(error as Error).message}`);
      throw error;
    }
    if (counted > 0) this.logger.log(`swept ${counted} client error submission(s) into their groups`);
    return counted;
  }

  /** Erasure: counts the user's submissions not counted yet, before they and the user's identities go. */
  async rollUpOfUser(userId: string): Promise<void> {
    const ids = await this.repository.unrolledOfUser(userId);
    for (let i = 0; i < ids.length; i += ROLLUP_BATCH) await this.repository.rollUp(ids.slice(i, i + ROLLUP_BATCH));
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    for (let i = 0; i < batch.length; i += ROLLUP_BATCH) await this.repository.rollUp(batch.slice(i, i + ROLLUP_BATCH));
  }
}
