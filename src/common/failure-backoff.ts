/**
 * The items of a background pass (a timer over due rows) that failed, kept out of the next
 * passes for a growing while: 1 s, doubling up to a cap. Retrying a failing item every pass
 * would let a few items that always fail fill every batch and starve the rest; backing off
 * keeps them retried while the others go on.
 */
export class FailureBackoff {
  private readonly failing = new Map<string, { failures: number; retryAt: number }>();

  constructor(
    private readonly baseMs = 1000,
    private readonly maxMs = 60_000,
    /** More failing items than this: the oldest entries are forgotten (and retried at once). */
    private readonly maxEntries = 500,
  ) {}

  /** Records a failure; returns when the item may be tried again. */
  failed(id: string, now: number): number {
    const failures = (this.failing.get(id)?.failures ?? 0) + 1;
    const retryAt = now + Math.min(this.maxMs, this.baseMs * 2 ** Math.min(failures - 1, 30));
    this.failing.delete(id);
    this.failing.set(id, { failures, retryAt });
    while (this.failing.size > this.maxEntries) this.failing.delete(this.failing.keys().next().value as string);
    return retryAt;
  }

  succeeded(id: string): void {
    this.failing.delete(id);
  }

  /**
   * The items to leave out of a pass at `now`. An entry whose retry time is long past was not
   * due again (another instance or a client settled it) and is forgotten.
   */
  waiting(now: number): string[] {
    const ids: string[] = [];
    for (const [id, entry] of this.failing) {
      if (entry.retryAt > now) ids.push(id);
      else if (entry.retryAt + this.maxMs < now) this.failing.delete(id);
    }
    return ids;
  }
}
