import { Inject, Injectable, Logger, OnApplicationBootstrap, BeforeApplicationShutdown } from '@nestjs/common';
import { Clock } from '../common/clock';
import { UsersRepository } from './users.repository';

const INTERVAL_MS = 60_000;
const BATCH = 500;

/**
 * Flips back disables whose end has passed, once a minute on every instance (the update only
 * touches rows still carrying that lapsed end, so instances running it together agree). Nothing
 * waits for it: every check of the flag treats a lapsed disable as enabled (isDisabledAt); it
 * keeps the stored flag true for lists and filters that read the column.
 */
@Injectable()
export class DisableExpiryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('DisableExpiry');
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<number> | null = null;

  constructor(
    private readonly users: UsersRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runOnce().catch(() => 0), INTERVAL_MS);
    // A pending sweep never keeps the process alive.
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.current?.catch(() => 0);
  }

  /** How many users were flipped back (a run already in progress on this instance is joined). */
  runOnce(): Promise<number> {
    this.current ??= this.run().finally(() => {
      this.current = null;
    });
    return this.current;
  }

  private async run(): Promise<number> {
    let total = 0;
    for (;;) {
      const cleared = await this.users.clearLapsedDisables(this.clock.now(), BATCH);
      total += cleared.length;
      if (cleared.length < BATCH) break;
    }
    if (total > 0) this.logger.log(`${total} timed disable(s) ended`);
    return total;
  }
}
