import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/** A store of friends' presence, from presence.changed. */
export class PresenceStore extends Observable<unknown> {
  constructor(protected readonly deps: StoreDeps) {
    super(null);
  }

  /** Forgets everything (logout, or another user logged in). */
  reset(): void {
    this.set(null);
  }
}
