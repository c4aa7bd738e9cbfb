import type { Repository } from 'typeorm';
import { executeCountedAlone } from './execute-counted';

/**
 * Deletes up to `batchSize` rows of `table` whose `timeColumn` is before `cutoff`, oldest
 * first, and returns how many this call deleted. Two short statements, outside any transaction:
 * the ids are read by the time index, then deleted by primary key (with the time condition
 * again), so no lock is held between them and no range of the time index is locked. Another
 * instance running the same batch at once deletes the rows the first has not, and counts only
 * those: together they delete each row once, and neither fails. `table` and `timeColumn` are
 * the caller's constants, never input.
 */
export async function pruneBatch<T extends object>(repository: Repository<T>, table: string, timeColumn: string, cutoff: number, batchSize: number): Promise<number> {
  const rows = (await repository.query(`SELECT id FROM ${table} WHERE ${timeColumn} < ? ORDER BY ${timeColumn}, id LIMIT ?`, [cutoff, batchSize])) as Array<{ id: string | number }>;
  if (rows.length === 0) return 0;
  const ids = rows.map((row) => String(row.id));
  return executeCountedAlone(repository.manager.connection, `DELETE FROM ${table} WHERE id IN (${ids.map(() => '?').join(', ')}) AND ${timeColumn} < ?`, [...ids, cutoff]);
}
