/**
 * The operator console's Users list: its orders and filters, and the keyset position a page
 * continues after. Every order ends with the row ID, so ties never reorder between pages.
 */
export const USER_SORTS = ['newest', 'last_active', 'name'] as const;
export type UserSort = (typeof USER_SORTS)[number];

export interface UserBrowseFilters {
  /** Exact external ID or username, or the start of a nickname (the search box). */
  q?: string;
  /** Disabled at `now` (a disable whose end has passed counts as enabled). */
  disabled?: boolean;
  /** Only these internal IDs (another module's answer, e.g. users with open reports). */
  onlyIds?: readonly string[];
}

/**
 * Where a page ended: the row ID plus the sort key of that row. `a` is last_active_at (null for
 * users never active: they come after all others), `n` the nickname.
 */
export interface UserPosition {
  id: string;
  a?: number | null;
  n?: string;
}

export function positionOfUser(
  sort: UserSort,
  user: { id: string; nickname: string; lastActiveAt: number | null },
): UserPosition {
  if (sort === 'last_active') return { id: user.id, a: user.lastActiveAt };
  if (sort === 'name') return { id: user.id, n: user.nickname };
  return { id: user.id };
}
