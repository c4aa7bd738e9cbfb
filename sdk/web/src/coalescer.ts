/**
 * Spec 4.7 rule 1: adjacent triggers merge into one run in flight, with at most one trailing
 * run kept. A trigger during a run marks the trailing run; more triggers join it.
 */
export class Coalescer<R> {
  private running: Promise<void> | null = null;
  private pending: R[] | null = null;

  constructor(private readonly run: (reasons: R[]) => Promise<void>) {}

  trigger(reason: R): Promise<void> {
    if (this.running) {
      if (this.pending) {
        if (!this.pending.includes(reason)) this.pending.push(reason);
      } else this.pending = [reason];
      return this.running.then(() => this.drain());
    }
    this.running = this.start([reason]);
    return this.running;
  }

  private async start(reasons: R[]): Promise<void> {
    try {
      await this.run(reasons);
    } catch {
      // The run reports its own failures; the next trigger tries again.
    } finally {
      this.running = null;
    }
  }

  private drain(): Promise<void> {
    if (this.running) return this.running.then(() => this.drain());
    const reasons = this.pending;
    if (!reasons) return Promise.resolve();
    this.pending = null;
    this.running = this.start(reasons);
    return this.running;
  }
}
