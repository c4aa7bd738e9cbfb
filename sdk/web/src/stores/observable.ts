/**
 * A value an application can bind to: `subscribe` and `getSnapshot` have the shapes React's
 * `useSyncExternalStore`, Vue's `shallowRef` wrappers and Svelte's stores expect. The snapshot
 * is replaced, never mutated, so identity comparison tells a change.
 */
export class Observable<T> {
  private readonly listeners = new Set<(value: T) => void>();

  constructor(private value: T) {}

  getSnapshot = (): T => this.value;

  subscribe = (listener: (value: T) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

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
