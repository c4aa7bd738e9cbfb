import type { PresenceReply } from '../../../../src/contract/index.js';
import { Coalescer } from '../coalescer.js';
import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/** A friend's presence: connected on any device now, or when last seen (Unix ms; null when online or unknown). */
export type Presence = Omit<PresenceReply, 'user_id'>;

/** What {@link PresenceStore} shows: friends by external user ID. A new map at every change. */
export type PresenceSnapshot = ReadonlyMap<string, Readonly<Presence>>;

const EMPTY: PresenceSnapshot = new Map();

/** The service answers at most this many users per presence query. */
const QUERY_LIMIT = 100;
/** Friend list pages read at most per refresh (50 friends a page). */
const FRIEND_PAGES = 200;

/**
 * Friends' presence. At every recovery the client runs (login, reconnect, foreground, online)
 * it reads the friend list and their presence now (`users.presence`), since `presence.changed`
 * (sent to a user's friends when their first connection anywhere opens and when their last one
 * closes) is ephemeral and never replayed; between reads the events keep it current. A new
 * friend (`friend.added`) is read at once; one who stops being a friend (`friend.deleted`, or
 * absent from the friend list at the next read) is forgotten.
 *
 * A change heard while a read is on its way wins over the read, which may predate it.
 */
export class PresenceStore extends Observable<PresenceSnapshot> {
  private generation = 0;
  /** Counts the presence events heard, so a read knows which ones came after it began. */
  private tick = 0;
  /** The tick of the last event about each user: a read that began before it does not overwrite it. */
  private heardAt = new Map<string, number>();
  private readonly refreshes = new Coalescer<true>(() => this.refreshNow());

  /**
   * The client makes its stores (`client.conversationList`, `presence`, `typing`, `callState`).
   * @hidden
   */
  constructor(private readonly deps: StoreDeps) {
    super(EMPTY);
    deps.on('presence.changed', ({ data }) => {
      if (data.user_id === deps.userId()) return;
      this.heardAt.set(data.user_id, (this.tick += 1));
      this.put([data]);
    });
    deps.on('friend.deleted', ({ data }) => {
      // Both sides hear of it; each one's private part names the other.
      this.heardAt.set(data.user_id, (this.tick += 1));
      this.forget((id) => id === data.user_id);
    });
    deps.on('friend.added', ({ data }) => void this.read([data.friend.user.user_id]).catch(() => undefined));
    deps.on('recover', () => void this.refresh().catch(() => undefined));
  }

  /** A friend's presence, or undefined when the store does not know it (not a friend, or not read yet). */
  get(userId: string): Readonly<Presence> | undefined {
    return this.getSnapshot().get(userId);
  }

  /** Whether the friend is online; false when unknown. */
  isOnline(userId: string): boolean {
    return this.get(userId)?.online === true;
  }

  /**
   * Reads the friend list and their presence again (the client does it at every recovery).
   * Calls while one runs share it (at most one more follows).
   */
  refresh(): Promise<void> {
    return this.refreshes.trigger(true);
  }

  /** Forgets everything (logout, or another user logged in); replies still on their way are dropped. */
  reset(): void {
    this.generation += 1;
    this.heardAt = new Map();
    this.set(EMPTY);
  }

  private async refreshNow(): Promise<void> {
    const generation = this.generation;
    const since = this.tick;
    const friends: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < FRIEND_PAGES; page += 1) {
      const reply = await this.deps.friends.list(cursor === undefined ? {} : { cursor });
      if (generation !== this.generation) return;
      friends.push(...reply.items.map((friend) => friend.user.user_id));
      if (!reply.has_more || reply.next_cursor === null) break;
      cursor = reply.next_cursor;
    }
    const current = new Set(friends);
    // No longer friends (a friend.deleted missed while away): forgotten, unless an event since says otherwise.
    this.forget((id) => !current.has(id) && !this.heardSince(id, since));
    await this.read(friends, generation, since);
  }

  /** The presence of these users now, in queries of at most QUERY_LIMIT; events heard since `since` win. */
  private async read(userIds: readonly string[], generation = this.generation, since = this.tick): Promise<void> {
    const unique = [...new Set(userIds)];
    for (let i = 0; i < unique.length; i += QUERY_LIMIT) {
      const reply = await this.deps.users.presence(unique.slice(i, i + QUERY_LIMIT));
      if (generation !== this.generation) return;
      this.put(reply.items.filter((item) => !this.heardSince(item.user_id, since)));
    }
  }

  private heardSince(userId: string, since: number): boolean {
    return (this.heardAt.get(userId) ?? 0) > since;
  }

  private put(items: readonly PresenceReply[]): void {
    const current = this.getSnapshot();
    const changed = items.filter((item) => {
      const known = current.get(item.user_id);
      return !known || known.online !== item.online || known.last_seen_at !== item.last_seen_at;
    });
    if (changed.length === 0) return;
    const next = new Map(current);
    for (const item of changed)
      next.set(item.user_id, Object.freeze({ online: item.online, last_seen_at: item.last_seen_at }));
    this.set(next);
  }

  private forget(gone: (userId: string) => boolean): void {
    const current = this.getSnapshot();
    const dropped = [...current.keys()].filter(gone);
    if (dropped.length === 0) return;
    const next = new Map(current);
    for (const id of dropped) next.delete(id);
    this.set(next);
  }
}
