import type { User } from '../users/user';
import type { UserBrowseFilters, UserPosition, UserSort } from '../users/user-browse';
import { positionOfUser } from '../users/user-browse';

/** Users examined per read while a presence filter applies. */
export const SCAN_BATCH = 200;
/** Users examined for one page of the online filter before it answers with what it found. */
export const SCAN_BUDGET = 2_000;

export interface UserQuery {
  filters: UserBrowseFilters;
  sort: UserSort;
  /** The online filter: kept users are those whose presence equals it. */
  online?: boolean;
}

export interface ScannedPage {
  rows: User[];
  /** Where the next page continues (null: nothing follows). */
  next: UserPosition | null;
  /** The scan budget ended the page, not the list or a full page. */
  partial: boolean;
}

/**
 * One page of users in `query.sort` order. The online filter cannot be a database condition
 * (presence lives in the registry), so it reads the sorted list in batches and keeps the users
 * the registry says are (or are not) connected, until the page is full, the list ends, or
 * SCAN_BUDGET users were examined. The next page continues after the last user *examined*
 * when the budget ended it (so nothing is skipped or repeated), else after the last one kept.
 */
export async function scanUsers(
  query: UserQuery,
  after: UserPosition | null,
  want: number,
  read: (after: UserPosition | null, limit: number) => Promise<User[]>,
  onlineAmong: (ids: string[]) => Promise<Set<string>>,
): Promise<ScannedPage> {
  if (query.online === undefined) {
    const rows = await read(after, want + 1);
    const page = rows.slice(0, want);
    return {
      rows: page,
      next: rows.length > want ? positionOfUser(query.sort, page[page.length - 1]) : null,
      partial: false,
    };
  }
  const kept: User[] = [];
  let position = after;
  let examined = 0;
  for (;;) {
    const batch = await read(position, SCAN_BATCH);
    const online = await onlineAmong(batch.map((u) => u.id));
    for (const user of batch) {
      if (online.has(user.id) !== query.online) {
        examined += 1;
        position = positionOfUser(query.sort, user);
        continue;
      }
      if (kept.length === want) return { rows: kept, next: positionOfUser(query.sort, kept[want - 1]), partial: false };
      kept.push(user);
      examined += 1;
      position = positionOfUser(query.sort, user);
    }
    if (batch.length < SCAN_BATCH) return { rows: kept, next: null, partial: false };
    if (examined >= SCAN_BUDGET) return { rows: kept, next: position, partial: true };
  }
}
