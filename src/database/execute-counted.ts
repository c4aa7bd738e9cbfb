import { EntityManager } from 'typeorm';

/**
 * Runs an UPDATE or DELETE inside a transaction and returns how many rows it changed, the same
 * way on both drivers (a plain `manager.query` hands back the driver's raw result).
 */
export async function executeCounted(manager: EntityManager, sql: string, params: unknown[]): Promise<number> {
  if (!manager.queryRunner) throw new Error('executeCounted must run inside a transaction');
  const result = await manager.queryRunner.query(sql, params, true);
  return result.affected ?? 0;
}
