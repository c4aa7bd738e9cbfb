import type { User } from '../users/user';
import type { UserBrowseFilters, UserPosition, UserSort } from '../users/user-browse';
import { positionOfUser } from '../users/user-browse';

/** Rows examined per read while a filter the sorted read cannot apply is in force. */
export const SCAN_BATCH = 200;
/** Rows examined for one page of such a filter before it answers with what it found. */
export const SCAN_BUDGET = 2_000;

export interface UserQuery {
  filters: UserBrowseFilters;
  sort: UserSort;
  /** The online filter: kept users are those whose presence equals it. */
  online?: boolean;
  /**
   * The open-reports filter, when too many users have an open report for the read to take them
   * as a list (filters.onlyIds): each batch is checked against the reports instead.
   */
  openReportsPerBatch?: boolean;
}

export interface Scanned<T, P> {
  rows: T[];
  /** Where the next page continues (null: nothing follows). */
  next: P | null;
  /** The scan budget ended the page, not the list or a full page. */
  partial: boolean;
}

export type ScannedPage = Scanned<User, UserPosition>;

/**
 * One page of a sorted list with a filter the sorted read cannot apply: reads the list in
 * batches of `batch` and keeps the rows `keep` accepts, until the page is full, the list ends,
 * or SCAN_BUDGET rows were examined. The next page continues after the last row *examined* when
 * the budget ended it (so nothing is skipped or repeated), else after the last one kept.
 */
export async function scanInBatches<T, P>(
  after: P | null,
  want: number,
  batch: number,
  read: (after: P | null, limit: number) => Promise<T[]>,
  keep: (rows: T[]) => Promise<(row: T) => boolean>,
  positionOf: (row: T) => P,
): Promise<Scanned<T, P>> {
  const kept: T[] = [];
  let position = after;
  let examined = 0;
  for (;;) {
    const rows = await read(position, batch);
    const keeps = await keep(rows);
    for (const row of rows) {
      if (keeps(row) && kept.length === want) return { rows: kept, next: positionOf(kept[want - 1]), partial: false };
      if (keeps(row)) kept.push(row);
      examined += 1;
      position = positionOf(row);
    }
    if (rows.length < batch) return { rows: kept, next: null, partial: false };
    if (examined >= SCAN_BUDGET) return { rows: kept, next: position, partial: true };
  }
}

/**
 * One page of users in `query.sort` order. The online filter cannot be a database condition
 * (presence lives in the registry), so it scans the sorted list in batches (scanInBatches),
 * keeping the users the registry says are (or are not) connected; an open-reports filter over
 * more users than a list can name is checked the same way, batch by batch.
 */
export async function scanUsers(
  query: UserQuery,
  after: UserPosition | null,
  want: number,
  read: (after: UserPosition | null, limit: number) => Promise<User[]>,
  onlineAmong: (ids: string[]) => Promise<Set<string>>,
  reportedAmong: (ids: string[]) => Promise<Set<string>> = () => Promise.resolve(new Set()),
): Promise<ScannedPage> {
  const positionOf = (user: User) => positionOfUser(query.sort, user);
  if (query.online === undefined && !query.openReportsPerBatch) {
    const rows = await read(after, want + 1);
    const page = rows.slice(0, want);
    return { rows: page, next: rows.length > want ? positionOf(page[page.length - 1]) : null, partial: false };
  }
  const keep = async (batch: User[]) => {
    const ids = batch.map((u) => u.id);
    const [online, reported] = await Promise.all([
      query.online === undefined ? null : onlineAmong(ids),
      query.openReportsPerBatch ? reportedAmong(ids) : null,
    ]);
    return (user: User) =>
      (online === null || online.has(user.id) === query.online) && (reported === null || reported.has(user.id));
  };
  return scanInBatches(after, want, SCAN_BATCH, read, keep, positionOf);
}
