/**
 * The event IDs already processed (spec 6 rule 2), the most recent `capacity` of them: an
 * insertion-ordered Map drops the oldest first, so memory stays bounded for a long session.
 */
export class EventDedup {
  private readonly seen = new Map<string, true>();

  constructor(private readonly capacity = 10_000) {}

  /** True the first time `eventId` is offered, false after. */
  firstTime(eventId: string): boolean {
    if (this.seen.has(eventId)) return false;
    this.seen.set(eventId, true);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value as string);
    return true;
  }

  clear(): void {
    this.seen.clear();
  }
}
