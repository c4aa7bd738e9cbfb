import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/** A store of who is typing in each conversation, and the user's own typing notices throttled to the server's relay. */
export class TypingStore extends Observable<unknown> {
  constructor(protected readonly deps: StoreDeps) {
    super(null);
  }

  /** Forgets everything (logout, or another user logged in). */
  reset(): void {
    this.set(null);
  }
}
