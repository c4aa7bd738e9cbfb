import type { EntityManager } from 'typeorm';

/** A stored host-app session: its account, when it was created (login) and when it was last used. */
export interface StoredHostSession {
  accountId: string;
  createdAt: number;
  lastSeenAt: number;
}

/**
 * Whose sessions. The table keys them by account ID; Redis by the account's random IM user ID,
 * which stays unique when several databases (deployments, test runs) share one Redis.
 */
export interface SessionOwner {
  id: string;
  imUserId: string;
}

/**
 * Where host-app sessions live, found by the SHA-256 of their ID: the `host_sessions` table
 * (`HOST_SESSION_STORE=database`, the default) or Redis (`HOST_SESSION_STORE=redis`). Expiry is
 * decided by the caller from `createdAt` and `lastSeenAt` on the service's clock; `ttlMs` only
 * lets a store drop a session by itself once no request can use it any more.
 */
export abstract class HostSessionStore {
  abstract insert(hash: string, owner: SessionOwner, now: number, ttlMs: number): Promise<void>;

  abstract findByHash(hash: string): Promise<StoredHostSession | null>;

  /** Records a use; a session deleted meanwhile stays deleted. */
  abstract touch(hash: string, now: number, ttlMs: number): Promise<void>;

  abstract deleteByHash(hash: string): Promise<void>;

  /**
   * Every session of the owner except, when given, the one with `keepHash`. The table store
   * deletes within `manager`'s transaction; Redis at once (before the caller's commit, so that a
   * failed commit leaves at worst sessions ended, never a changed password with them alive).
   */
  abstract deleteOfAccount(owner: SessionOwner, manager?: EntityManager, keepHash?: string): Promise<void>;

  async close(): Promise<void> {}
}
