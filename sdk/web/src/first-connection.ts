import { ErrorCode, ImError } from './errors.js';

/**
 * The wait of a `login()` for its first ready connection: settled by the connection, by the
 * session ending first, by logout, or by the timeout (kind `network`). One wait at a time; a
 * new one settles nothing of the previous, which its own logout already ended.
 */
export class FirstConnection {
  private pending: { settle(error: ImError | null): void } | null = null;

  wait(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          waiter.settle(
            new ImError('network', ErrorCode.NETWORK, `no connection to the service within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      const waiter = {
        settle: (error: ImError | null) => {
          if (this.pending !== waiter) return;
          this.pending = null;
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        },
      };
      this.pending = waiter;
    });
  }

  /** Ends the pending wait, if any: resolved on null, rejected with the error otherwise. */
  settle(error: ImError | null): void {
    this.pending?.settle(error);
  }
}
