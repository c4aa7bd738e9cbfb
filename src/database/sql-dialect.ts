import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';

/**
 * What differs between the two databases the service runs on, in one place. Repositories ask
 * their manager's dialect for a clause instead of branching on the driver, so every place where
 * the SQL text depends on the database reads the same way and is found by searching for it.
 *
 * The differences come from two facts:
 * - MySQL/MariaDB runs transactions concurrently and serialises writers with row locks, so a
 *   read that a later write depends on must lock (`FOR UPDATE`, `LOCK IN SHARE MODE`); SQLite
 *   runs one writing transaction at a time (TransactionRunner queues them), so its locking reads
 *   are plain reads.
 * - Their SQL differs in upserts, string concatenation, multi-table UPDATE and how a statement
 *   hands a generated value back (LAST_INSERT_ID versus RETURNING).
 */
export interface SqlDialect {
  readonly name: 'mysql' | 'sqlite';
  /** Whether locking reads lock anything (false: transactions are serial). */
  readonly locksRows: boolean;
  /** Suffix of a SELECT that locks the rows it reads for writing until commit. */
  readonly forUpdate: string;
  /** Suffix of a SELECT that takes shared locks on what it reads, so it sees the latest commits. */
  readonly forShare: string;
  /**
   * Whether `UPDATE a JOIN b ... SET a.x, b.y` changes two tables in one statement. Where it
   * does not, the caller writes each table with its own statement.
   */
  readonly updatesJoinedTables: boolean;
  /**
   * A table hint that keeps a statement on the named index. MySQL's optimizer prefers a full
   * scan of a small table, and a scanning UPDATE locks every row it passes until commit.
   */
  forceIndex(index: string): string;
  /**
   * Suffix of an INSERT that skips a row whose unique `key` exists (and fails on any other error, unlike INSERT
   * IGNORE).
   */
  onConflictDoNothing(key: string): string;
  /** String concatenation of SQL expressions. */
  concat(...parts: string[]): string;
  /**
   * Whether UPDATE and INSERT take a RETURNING clause. Where they do not (MySQL), a statement
   * hands one generated value back through LAST_INSERT_ID(expr) and the result's insertId.
   */
  readonly returning: boolean;
  /** A placeholder compared with an integer column (SQLite compares a text parameter as text). */
  readonly integerParam: string;
  /** Adds a row lock to a query builder's read where rows lock (see locksRows). */
  lockForWrite<T extends object>(query: SelectQueryBuilder<T>): SelectQueryBuilder<T>;
}

const MYSQL: SqlDialect = {
  name: 'mysql',
  locksRows: true,
  forUpdate: ' FOR UPDATE',
  forShare: ' LOCK IN SHARE MODE',
  updatesJoinedTables: true,
  returning: false,
  forceIndex: (index) => ` FORCE INDEX (${index})`,
  // Assigning the key to itself makes the duplicate a no-op that still counts 0 affected rows.
  onConflictDoNothing: (key) => `ON DUPLICATE KEY UPDATE ${key} = ${key}`,
  concat: (...parts) => `CONCAT(${parts.join(', ')})`,
  integerParam: '?',
  lockForWrite: (query) => query.setLock('pessimistic_write'),
};

const SQLITE: SqlDialect = {
  name: 'sqlite',
  locksRows: false,
  forUpdate: '',
  forShare: '',
  updatesJoinedTables: false,
  returning: true,
  forceIndex: () => '',
  onConflictDoNothing: (key) => `ON CONFLICT (${key}) DO NOTHING`,
  concat: (...parts) => parts.join(' || '),
  integerParam: 'CAST(? AS INTEGER)',
  lockForWrite: (query) => query,
};

/** The dialect of a manager's (or data source's) database. */
export function dialectOf(source: EntityManager | DataSource): SqlDialect {
  const options = 'connection' in source ? source.connection.options : source.options;
  return options.type === 'mysql' || options.type === 'mariadb' ? MYSQL : SQLITE;
}
