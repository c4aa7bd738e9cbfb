import type { Request } from 'express';

/**
 * The identity proven by a valid IM token (HTTP) or handshake (socket). A user has two IDs,
 * named so they cannot be mixed up: the internal one keys every table, the external one is the
 * host application's, the only one clients ever see.
 */
export interface AuthUser {
  /** Internal user ID (decimal string): `users.id`, and every other table's user columns. */
  internalId: string;
  /** External user ID: the host's `user_id`, the SDK identity in requests, replies and events. */
  externalId: string;
  /**
   * HTTP requests: the version of the IM token that authenticated them (the user's version when
   * it was issued). Writes that must not outlive a revocation check it against the stored one.
   */
  tokenVersion?: number;
}

/** A request that passed ImTokenGuard. */
export interface AuthenticatedRequest extends Request {
  authUser?: AuthUser;
}
