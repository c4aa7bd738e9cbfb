import type { EntityManager } from 'typeorm';
import { dialectOf } from './sql-dialect';
import { insideGuardedTransaction } from './transaction-runner';

interface PreparingPool {
  execute(sql: string, params: unknown[], callback: (error: Error | null, rows: unknown) => void): void;
}

/**
 * A read outside any transaction. On MySQL it runs as a server-side prepared statement (mysql2
 * keeps it prepared per pooled connection, keyed by the SQL text), which spares the server
 * parsing the statement on every call: for the home list's statement that was about a fifth of
 * its database time. SQLite (better-sqlite3 prepares every statement anyway) runs it as usual.
 * `sql` must take every value as a parameter, so the texts, and the statements kept prepared,
 * stay few.
 */
export function queryPrepared<T>(
  manager: EntityManager,
  sql: string,
  params: Array<string | number | null>,
): Promise<T[]> {
  // Both ways of getting it wrong: a transaction's manager (the statement would run outside the
  // transaction), and the pool's manager from inside a transaction (TransactionRunner's guard
  // watches createQueryRunner, which a prepared statement does not go through).
  if (manager.queryRunner || insideGuardedTransaction())
    throw new Error('queryPrepared runs outside transactions: it takes its own pooled connection');
  if (dialectOf(manager).name !== 'mysql') return manager.query(sql, params);
  const pool = (manager.connection.driver as unknown as { pool: PreparingPool }).pool;
  return new Promise((resolve, reject) =>
    pool.execute(sql, params, (error, rows) => (error ? reject(error) : resolve(rows as T[]))),
  );
}
