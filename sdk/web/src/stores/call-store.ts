import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/** A store of each call's state machine (incoming, ringing, ongoing, ended with its reason), driven by call events. */
export class CallStore extends Observable<unknown> {
  constructor(protected readonly deps: StoreDeps) {
    super(null);
  }

  /** Forgets everything (logout, or another user logged in). */
  reset(): void {
    this.set(null);
  }
}
