/**
 * A user as other modules see it: a plain record, never the TypeORM entity (which stays inside
 * the users module). Reads hand out this shape; writes go through UsersService.
 */
export interface User {
  id: string;
  /** The host's external user ID (spec `user.user_id`): the SDK identity, never changed. */
  externalId: string;
  username: string | null;
  nickname: string;
  /** Stored as sent; an empty value is shown as the configured default avatar. */
  avatar: string;
  signature: string;
  profileUpdatedAt: number;
  tokenVersion: number;
  /** The stored flag; whether the user is disabled now is isDisabledAt (a disable with an end lapses by itself). */
  disabled: boolean;
  /** Unix ms at which a disable ends by itself; null: for good (or not disabled). */
  disabledUntil: number | null;
  /** The operator's reason, shown to the user's client as the 1003 error's `msg`; null when none was given. */
  disabledReason: string | null;
  /** Unix ms of the last authenticated SDK request or socket connection (written at most once a minute); null: never. */
  lastActiveAt: number | null;
  /** When the user was erased (server API); such a row is anonymised and disabled for good. */
  erasedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What the IM token guard needs on every request: one primary-key lookup of a few columns. */
export type UserAuthState = Pick<
  User,
  'id' | 'externalId' | 'tokenVersion' | 'disabled' | 'disabledUntil' | 'disabledReason'
>;

/**
 * Whether a user is disabled at `now`: a disable with an end lapses by itself at `disabledUntil`,
 * so every check of the flag goes through here (the stored row is flipped back later, lazily).
 */
export function isDisabledAt(state: Pick<User, 'disabled' | 'disabledUntil'>, now: number): boolean {
  return state.disabled && (state.disabledUntil === null || state.disabledUntil > now);
}

/** The 1003 error's `msg` for a disabled user: the operator's reason when one was given. */
export function disabledMessage(state: Pick<User, 'disabledReason'>): string {
  return state.disabledReason ?? 'user is disabled';
}

/**
 * The users table's columns and row shape for read models that join it in plain SQL (a
 * conversation with its peer on the send path). Such joins only read; every write is the users
 * module's.
 */
export const USER_COLUMNS =
  'id, external_id, username, nickname, avatar, signature, profile_updated_at, token_version, disabled, disabled_until, disabled_reason, last_active_at, erased_at, created_at, updated_at';

export interface UserRow {
  id: string | number;
  external_id: string;
  username: string | null;
  nickname: string;
  avatar: string;
  signature: string;
  profile_updated_at: string | number;
  token_version: string | number;
  disabled: number | boolean;
  disabled_until: string | number | null;
  disabled_reason: string | null;
  last_active_at: string | number | null;
  erased_at: string | number | null;
  created_at: string | number;
  updated_at: string | number;
}

/** A users row read in plain SQL, its columns optionally prefixed (`p_id`, ...), as a User. */
export function userFromRow(source: UserRow | Record<string, unknown>, p = ''): User {
  const row = source as Record<string, string | number | boolean | null>;
  return {
    id: String(row[`${p}id`]),
    externalId: String(row[`${p}external_id`]),
    username: row[`${p}username`] === null ? null : String(row[`${p}username`]),
    nickname: String(row[`${p}nickname`]),
    avatar: String(row[`${p}avatar`]),
    signature: String(row[`${p}signature`]),
    profileUpdatedAt: Number(row[`${p}profile_updated_at`]),
    tokenVersion: Number(row[`${p}token_version`]),
    disabled: Boolean(Number(row[`${p}disabled`])),
    disabledUntil: nullableNumber(row[`${p}disabled_until`]),
    disabledReason:
      row[`${p}disabled_reason`] === null || row[`${p}disabled_reason`] === undefined
        ? null
        : String(row[`${p}disabled_reason`]),
    lastActiveAt: nullableNumber(row[`${p}last_active_at`]),
    erasedAt: row[`${p}erased_at`] === null || row[`${p}erased_at`] === undefined ? null : Number(row[`${p}erased_at`]),
    createdAt: Number(row[`${p}created_at`]),
    updatedAt: Number(row[`${p}updated_at`]),
  };
}

function nullableNumber(value: string | number | boolean | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}
