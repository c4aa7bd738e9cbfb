/** The user object of spec 2.3. */
export interface UserReply {
  /** Internal IM user ID (decimal string). */
  id: string;
  /** External user ID. */
  user_id: string;
  /** Public account name; "" when none. */
  username: string;
  nickname: string;
  /** URL; the default avatar when none was set. */
  avatar: string;
  signature: string;
  /** Unix ms of the last real profile change. */
  profile_updated_at: number;
}

/** One user: the host's upsert and the SDK's profile reads (`/app/sdk/users/me`, `profile`, `lookup`). */
export interface ProfileReply {
  user: UserReply;
}

/** `POST /app/sdk/users/me/update`: `event_id` is null when nothing changed. */
export interface ProfileUpdateReply {
  user: UserReply;
  event_id: string | null;
}

/** `POST /app/sdk/token` (host, signed): the IM token for one user. */
export interface TokenReply {
  user: UserReply;
  /** HS256 JWT; its payload carries `user_id` and `exp` equal to this reply. */
  token: string;
  /** Unix SECONDS; equals the JWT `exp`. */
  expire_at: number;
  /** Native push initialisation; {} when no rule matches (Web). */
  push: Record<string, unknown>;
}

/** `POST /app/sdk/users/status` and `/users/revoke-tokens` (host, signed). */
export interface UserStatusReply {
  user_id: string;
  disabled: boolean;
}

/** A friend's presence, as `presence.changed` tells its changes. */
export interface PresenceReply {
  user_id: string;
  /** Connected on any device and instance now. */
  online: boolean;
  /** When offline: the last time the user was seen connected (Unix ms); null when online or unknown. */
  last_seen_at: number | null;
}

/** `POST /app/sdk/presence/query`: the asked users who are the caller's friends, in the order asked. */
export interface PresenceQueryReply {
  items: PresenceReply[];
}
