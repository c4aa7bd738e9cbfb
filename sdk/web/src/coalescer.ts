/**
 * Spec 4.7 rule 1: adjacent triggers merge into one run in flight, with at most one trailing
 * run kept. A trigger during a run marks the trailing run; more triggers join it. The promise
 * of a trigger settles with the run that served it, rejecting when that run failed.
 */
export class Coalescer<R> {
  /** The run in flight, as a promise that never rejects. */
  private running: Promise<void> | null = null;
  private pending: R[] | null = null;

  constructor(private readonly run: (reasons: R[]) => Promise<void>) {}

  trigger(reason: R): Promise<void> {
    if (!this.running) return this.launch([reason]);
    if (!this.pending) this.pending = [reason];
    else if (!this.pending.includes(reason)) this.pending.push(reason);
    return this.running.then(() => this.drain());
  }

  private launch(reasons: R[]): Promise<void> {
    const run = this.run(reasons);
    this.running = run.then(
      () => undefined,
      () => undefined,
    );
    void this.running.then(() => {
      this.running = null;
    });
    return run;
  }

  private drain(): Promise<void> {
    // Another waiter started the trailing run already: wait for it.
    if (this.running) return this.running;
    const reasons = this.pending;
    if (!reasons) return Promise.resolve();
    this.pending = null;
    return this.launch(reasons);
  }
}
