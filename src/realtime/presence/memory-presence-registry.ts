import {
  DEFAULT_LAST_SEEN_RETENTION_MS,
  DEFAULT_PRESENCE_TTL_MS,
  PresenceRegistry,
  PresenceState,
  PresenceTransition,
} from './presence-registry';

/**
 * The state the Redis registry keeps in Redis, kept in memory. One store per process; tests hand
 * the same store to several registries to stand for several instances.
 */
export class MemoryPresenceStore {
  /** userId → connectionId → expiry (heartbeat + TTL). Expired entries stay until pruned. */
  readonly connections = new Map<string, Map<string, number>>();
  /** Users that have any entry in `connections` → their latest expiry (where sweep looks). */
  readonly users = new Map<string, number>();
  readonly lastSeen = new Map<string, { at: number; keepUntil: number }>();
}

export interface MemoryPresenceOptions {
  ttlMs?: number;
  lastSeenRetentionMs?: number;
  /** Shared with other registries to model several instances; a new one by default. */
  store?: MemoryPresenceStore;
}

/**
 * A single instance: the same rules as the Redis registry, in memory (nothing can fail, nothing
 * rejects). Each method runs without an await, so it is as atomic as a Redis script.
 */
export class MemoryPresenceRegistry extends PresenceRegistry {
  private readonly ttlMs: number;
  private readonly retentionMs: number;
  private readonly store: MemoryPresenceStore;
  /** This instance's open connections (connectionId → userId): the only ones `refresh` extends. */
  private readonly open = new Map<string, string>();

  constructor(options: MemoryPresenceOptions = {}) {
    super();
    this.ttlMs = options.ttlMs ?? DEFAULT_PRESENCE_TTL_MS;
    this.retentionMs = options.lastSeenRetentionMs ?? DEFAULT_LAST_SEEN_RETENTION_MS;
    this.store = options.store ?? new MemoryPresenceStore();
  }

  connected(userId: string, connectionId: string, now: number): Promise<PresenceTransition | null> {
    this.open.set(connectionId, userId);
    const set = this.store.connections.get(userId) ?? new Map<string, number>();
    const wasOnline = [...set.values()].some((expiry) => expiry > now);
    prune(set, now);
    set.set(connectionId, now + this.ttlMs);
    this.store.connections.set(userId, set);
    this.store.users.set(userId, latest(set)!);
    return Promise.resolve(wasOnline ? null : { userId, online: true, lastSeenAt: null });
  }

  disconnected(userId: string, connectionId: string, now: number): Promise<PresenceTransition | null> {
    if (this.open.get(connectionId) === userId) this.open.delete(connectionId);
    const set = this.store.connections.get(userId);
    const removed = set?.delete(connectionId) ?? false;
    const prunedLatest = set ? prune(set, now) : null;
    if (set && set.size > 0) {
      this.store.users.set(userId, latest(set)!);
      // Another instance's connection may be from a crash; then the user was last seen here and now.
      if (removed) this.bumpLastSeen(userId, now, now);
      return Promise.resolve(null);
    }
    this.store.connections.delete(userId);
    const userLatest = this.store.users.get(userId);
    if (userLatest === undefined) return Promise.resolve(null);
    this.store.users.delete(userId);
    // Without this connection among them, the user's remaining connections had all expired.
    const seenAt = removed ? now : Math.min((prunedLatest ?? userLatest) - this.ttlMs, now);
    return Promise.resolve({ userId, online: false, lastSeenAt: this.bumpLastSeen(userId, seenAt, now) });
  }

  refresh(connections: ReadonlyArray<{ userId: string; connectionId: string }>, now: number): Promise<void> {
    for (const { userId, connectionId } of connections) {
      if (this.open.get(connectionId) !== userId) continue;
      const set = this.store.connections.get(userId) ?? new Map<string, number>();
      prune(set, now);
      set.set(connectionId, now + this.ttlMs);
      this.store.connections.set(userId, set);
      this.store.users.set(userId, latest(set)!);
    }
    return Promise.resolve();
  }

  sweep(now: number): Promise<PresenceTransition[]> {
    for (const [userId, seen] of this.store.lastSeen) if (seen.keepUntil <= now) this.store.lastSeen.delete(userId);
    const wentOffline: PresenceTransition[] = [];
    for (const [userId, userLatest] of this.store.users) {
      if (userLatest > now) continue;
      const set = this.store.connections.get(userId);
      const prunedLatest = set ? prune(set, now) : null;
      if (set && set.size > 0) {
        this.store.users.set(userId, latest(set)!);
        continue;
      }
      this.store.connections.delete(userId);
      this.store.users.delete(userId);
      const seenAt = Math.min((prunedLatest ?? userLatest) - this.ttlMs, now);
      wentOffline.push({ userId, online: false, lastSeenAt: this.bumpLastSeen(userId, seenAt, now) });
    }
    return Promise.resolve(wentOffline);
  }

  stateOf(userIds: readonly string[], now: number): Promise<Map<string, PresenceState>> {
    const states = new Map<string, PresenceState>();
    for (const userId of userIds) {
      const set = this.store.connections.get(userId);
      if (set && [...set.values()].some((expiry) => expiry > now)) {
        states.set(userId, { online: true, lastSeenAt: null });
        continue;
      }
      const seen = this.store.lastSeen.get(userId);
      let lastSeenAt = seen && seen.keepUntil > now ? seen.at : null;
      // Expired but not yet swept: the last heartbeat is when the user was last seen.
      const userLatest = (set && latest(set)) ?? this.store.users.get(userId);
      if (userLatest !== undefined && userLatest !== null)
        lastSeenAt = Math.max(lastSeenAt ?? -Infinity, Math.min(userLatest - this.ttlMs, now));
      states.set(userId, { online: false, lastSeenAt });
    }
    return Promise.resolve(states);
  }

  close(): Promise<void> {
    this.open.clear();
    return Promise.resolve();
  }

  /** Last seen never moves backwards; returns the value kept. */
  private bumpLastSeen(userId: string, at: number, now: number): number {
    const old = this.store.lastSeen.get(userId);
    const kept = old && old.keepUntil > now && old.at >= at ? old.at : at;
    this.store.lastSeen.set(userId, { at: kept, keepUntil: now + this.retentionMs });
    return kept;
  }
}

/** Drops expired entries (expiry <= now); returns the latest expiry dropped, or null. */
function prune(set: Map<string, number>, now: number): number | null {
  let dropped: number | null = null;
  for (const [connectionId, expiry] of set) {
    if (expiry > now) continue;
    set.delete(connectionId);
    dropped = Math.max(dropped ?? -Infinity, expiry);
  }
  return dropped;
}

function latest(set: Map<string, number>): number | null {
  let max: number | null = null;
  for (const expiry of set.values()) max = Math.max(max ?? -Infinity, expiry);
  return max;
}
