/** A user came online or went offline (across all devices and instances). */
export interface PresenceTransition {
  userId: string;
  online: boolean;
  /** null when online; when offline, the last time the user was seen connected (Unix ms). */
  lastSeenAt: number | null;
}

export interface PresenceState {
  online: boolean;
  /** null when online, or when the user has not been seen within the last-seen retention. */
  lastSeenAt: number | null;
}

/** Heartbeat lifetime of a connection: a crashed instance's connections count as gone after it. */
export const DEFAULT_PRESENCE_TTL_MS = 60_000;
/** How long a user's last-seen time is kept after they went offline. */
export const DEFAULT_LAST_SEEN_RETENTION_MS = 30 * 24 * 3600_000;

/** The only rejection of a registry: `stateOf` while the shared store does not answer. */
export class PresenceUnavailableError extends Error {
  constructor() {
    super('presence store unavailable');
    this.name = 'PresenceUnavailableError';
  }
}

/**
 * Which users are connected, counted across devices and instances. Each instance (gateway process)
 * owns one registry object and reports its own sockets; transitions are decided atomically by the
 * shared store, so that concurrent connects and disconnects on several instances produce exactly
 * one `online: true` when the first connection anywhere opens and exactly one `online: false` when
 * the last one closes.
 *
 * A connection counts as live while its heartbeat (`connected` or `refresh`) is younger than the
 * TTL; connection IDs must be unique across instances (socket.io's `socket.id` is).
 */
export abstract class PresenceRegistry {
  /** A connection opened on this instance; a transition when the user was offline before. */
  abstract connected(userId: string, connectionId: string, now: number): Promise<PresenceTransition | null>;
  /** A connection closed; a transition (online false, lastSeenAt now) when it was the user's last anywhere. */
  abstract disconnected(userId: string, connectionId: string, now: number): Promise<PresenceTransition | null>;
  /** Heartbeat for this instance's live connections (called every ttl/3); keeps them from expiring. */
  abstract refresh(connections: ReadonlyArray<{ userId: string; connectionId: string }>, now: number): Promise<void>;
  /**
   * Drops connections whose heartbeat is older than the TTL (an instance that crashed) and returns the users that went
   * offline. Safe when several instances run it at once: each transition is returned by exactly one caller.
   */
  abstract sweep(now: number): Promise<PresenceTransition[]>;
  /** Current state of some users (for a presence query). */
  abstract stateOf(userIds: readonly string[], now: number): Promise<Map<string, PresenceState>>;
  abstract close(): Promise<void>;
}
