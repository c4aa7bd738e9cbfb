import type { Repository } from 'typeorm';
import { isTransientConflict } from './db-errors';
import { executeCountedAlone } from './execute-counted';

const DELETE_ATTEMPTS = 3;

/**
 * Deletes up to `batchSize` rows of `table` whose `timeColumn` is before `cutoff`, oldest
 * first, and returns how many this call deleted. Two short statements, outside any transaction:
 * the ids are read by the time index, then deleted by primary key (with the time condition
 * again), so no lock is held between them and no range of the time index is locked. Another
 * instance running the same batch at once deletes the rows the first has not, and counts only
 * those: together they delete each row once, and neither fails. `table` and `timeColumn` are
 * the caller's constants, never input, and so is `condition`, an extra SQL condition on the rows
 * that may go (it must not turn false for a row once true).
 */
export async function pruneBatch<T extends object>(
  repository: Repository<T>,
  table: string,
  timeColumn: string,
  cutoff: number,
  batchSize: number,
  condition?: string,
): Promise<number> {
  const also = condition ? ` AND ${condition}` : '';
  const rows = (await repository.query(
    `SELECT id FROM ${table} WHERE ${timeColumn} < ?${also} ORDER BY ${timeColumn}, id LIMIT ?`,
    [cutoff, batchSize],
  )) as Array<{ id: string | number }>;
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => String(row.id));
  const sql = `DELETE FROM ${table} WHERE id IN (${ids.map(() => '?').join(', ')}) AND ${timeColumn} < ?${also}`;
  // The delete can meet a concurrent write to the same rows' indexes (a merge into a client
  // error being pruned) in a deadlock; it is one statement, so it is simply run again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await executeCountedAlone(repository.manager.connection, sql, [...ids, cutoff]);
    } catch (error) {
      if (attempt >= DELETE_ATTEMPTS || !isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
    }
  }
}
