import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs an UPDATE or DELETE inside a transaction and returns how many rows it changed, the same
 * way on both drivers (a plain `manager.query` hands back the driver's raw result).
 */
export async function executeCounted(manager: EntityManager, sql: string, params: unknown[]): Promise<number> {
  if (!manager.queryRunner) throw new Error('executeCounted must run inside a transaction');
  const result = await manager.queryRunner.query(sql, params, true);
  return result.affected ?? 0;
}

/**
 * Runs one INSERT, UPDATE or DELETE outside any transaction, on its own pooled connection, and
 * returns how many rows it changed, the same way on both drivers (SQLite's raw result is the row
 * ID, MySQL's a result header).
 */
export async function executeCountedAlone(dataSource: DataSource, sql: string, params: unknown[]): Promise<number> {
  const runner = dataSource.createQueryRunner();
  try {
    const result = await runner.query(sql, params, true);
    return result.affected ?? 0;
  } finally {
    await runner.release();
  }
}
