/**
 * A value an application can bind to: `subscribe` and `getSnapshot` have the shapes React's
 * `useSyncExternalStore`, Vue's `shallowRef` wrappers and Svelte's stores expect. The snapshot
 * is replaced, never mutated, so identity comparison tells a change.
 *
 * ```ts
 * const list = useSyncExternalStore(client.conversationList.subscribe, client.conversationList.getSnapshot);
 * ```
 */
export class Observable<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /** @param value The first snapshot. */
  constructor(private value: T) {}

  /** The current snapshot: the same object until something changed (bound: pass it as is). */
  getSnapshot = (): T => this.value;

  /**
   * Calls `listener` with each new snapshot; returns the function that stops it (bound: pass it
   * as is). A listener that throws does not stop the others.
   */
  subscribe = (listener: (value: T) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Replaces the snapshot and tells the listeners; the same object again changes nothing. */
  protected set(next: T): void {
    if (next === this.value) return;
    this.value = next;
    for (const listener of [...this.listeners]) {
      try {
        listener(next);
      } catch (error) {
        // One subscriber failing must not stop the others.
        setTimeout(() => {
          throw error;
        });
      }
    }
  }
}
