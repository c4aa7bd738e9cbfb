import type { Group, GroupRole } from './group';

/** The operator console's Groups list: orders, filters and the keyset position a page continues after. */
export const GROUP_SORTS = ['newest', 'name'] as const;
export type GroupSort = (typeof GROUP_SORTS)[number];

export interface GroupBrowseFilters {
  /** Exact public group ID, or the start of a name. */
  q?: string;
  disabled?: boolean;
  dismissed?: boolean;
  /** Only these internal IDs (another module's answer, e.g. groups with open reports). */
  onlyIds?: readonly string[];
}

/** Where a page ended: the row ID, plus the name for the name order. */
export interface GroupPosition {
  id: string;
  n?: string;
}

export function positionOfGroup(sort: GroupSort, group: Pick<Group, 'id' | 'name'>): GroupPosition {
  return sort === 'name' ? { id: group.id, n: group.name } : { id: group.id };
}

/** One of a user's current groups with the user's role there (the console's user page). */
export interface MembershipOfUser {
  group: Group;
  role: GroupRole;
  mutedUntil: number;
  joinedAt: number;
}
