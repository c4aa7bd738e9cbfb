import type { EphemeralEventMap } from '../../../../src/contract/index.js';
import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/** A friend's presence as `presence.changed` last told it. */
export type Presence = Omit<EphemeralEventMap['presence.changed'], 'user_id'>;

/** What {@link PresenceStore} shows: friends by external user ID. A new map at every change. */
export type PresenceSnapshot = ReadonlyMap<string, Readonly<Presence>>;

const EMPTY: PresenceSnapshot = new Map();

/**
 * Friends' presence, from `presence.changed` (spec: sent to a user's friends when their first
 * connection anywhere opens and when their last one closes; never stored or replayed).
 *
 * The service tells changes only: its friend list carries no presence and no endpoint reads
 * it, so a friend who was already online when this client connected stays unknown
 * (`get` answers undefined) until they next change. What the store learned stays across a
 * reconnect (changes made meanwhile are not replayed), and a user who stops being a friend
 * (`friend.deleted`) is forgotten.
 */
export class PresenceStore extends Observable<PresenceSnapshot> {
  /**
   * The client makes its stores (`client.conversationList`, `presence`, `typing`, `callState`).
   * @hidden
   */
  constructor(private readonly deps: StoreDeps) {
    super(EMPTY);
    deps.on('presence.changed', ({ data }) => {
      if (data.user_id === deps.userId()) return;
      const current = this.get(data.user_id);
      if (current && current.online === data.online && current.last_seen_at === data.last_seen_at) return;
      const next = new Map(this.getSnapshot());
      next.set(data.user_id, Object.freeze({ online: data.online, last_seen_at: data.last_seen_at }));
      this.set(next);
    });
    deps.on('friend.deleted', ({ data }) => {
      // Both sides hear of it; each one's private part names the other.
      this.forget(data.user_id);
    });
  }

  /** A friend's presence, or undefined when the store has not heard of it since login. */
  get(userId: string): Readonly<Presence> | undefined {
    return this.getSnapshot().get(userId);
  }

  /** Whether the friend is online; false when unknown. */
  isOnline(userId: string): boolean {
    return this.get(userId)?.online === true;
  }

  /** Forgets everything (logout, or another user logged in). */
  reset(): void {
    this.set(EMPTY);
  }

  private forget(userId: string): void {
    if (!this.getSnapshot().has(userId)) return;
    const next = new Map(this.getSnapshot());
    next.delete(userId);
    this.set(next);
  }
}
