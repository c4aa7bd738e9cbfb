/**
 * The transaction acted on a row that another request changed after it was read (a
 * conditional update matched nothing): running the whole operation again, with a fresh read,
 * reaches the state the other request left.
 */
export class StaleRead extends Error {
  constructor() {
    super('stale read');
    this.name = 'StaleRead';
  }
}

const MAX_ATTEMPTS = 5;

/**
 * Runs `work` again after a {@link StaleRead} or an error `isConflict` accepts (typically a
 * unique violation that a concurrent request won). Each attempt opens its own transaction,
 * so it sees what the winner committed.
 */
export async function converging<T>(
  work: () => Promise<T>,
  isConflict: (error: unknown) => boolean = () => false,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !(error instanceof StaleRead || isConflict(error))) throw error;
    }
  }
}
