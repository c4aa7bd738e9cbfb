import type { Group, GroupRole } from './group';

/**
 * The operator console's Groups list: orders, filters and the keyset position a page continues
 * after. Every order ends with the row ID, so ties never reorder between pages. last_active is
 * the group conversation's last message: the conversations module orders by it, this module
 * filters the groups it names.
 */
export const GROUP_SORTS = ['newest', 'last_active', 'name'] as const;
export type GroupSort = (typeof GROUP_SORTS)[number];
/** The orders the groups table has an index for (last_active is the conversations table's). */
export type GroupTableSort = Exclude<GroupSort, 'last_active'>;

export interface GroupBrowseFilters {
  /** Exact public group ID, or the start of a name. */
  q?: string;
  disabled?: boolean;
  dismissed?: boolean;
  /** Only these internal IDs (another module's answer, e.g. groups with open reports). */
  onlyIds?: readonly string[];
}

/**
 * Where a page ended: the row ID plus the sort key of that row. `n` is the name, `a` the
 * conversation's last message time (0 for a group never messaged: those come after all others).
 */
export interface GroupPosition {
  id: string;
  n?: string;
  a?: number;
}

export function positionOfGroup(sort: GroupTableSort, group: Pick<Group, 'id' | 'name'>): GroupPosition {
  return sort === 'name' ? { id: group.id, n: group.name } : { id: group.id };
}

/** One of a user's current groups with the user's role there (the console's user page). */
export interface MembershipOfUser {
  group: Group;
  role: GroupRole;
  mutedUntil: number;
  joinedAt: number;
}
