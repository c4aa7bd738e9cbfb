import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/** A store of the home list kept current from events: order, last message, unread, badge. */
export class ConversationListStore extends Observable<unknown> {
  constructor(protected readonly deps: StoreDeps) {
    super(null);
  }

  /** Forgets everything (logout, or another user logged in). */
  reset(): void {
    this.set(null);
  }
}
