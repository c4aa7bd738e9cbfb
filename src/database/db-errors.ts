import { QueryFailedError } from 'typeorm';

interface DriverError {
  code?: string;
  errno?: number;
  message?: string;
}

function driverError(error: unknown): DriverError | null {
  if (error instanceof QueryFailedError) return error.driverError as DriverError;
  if (error && typeof error === 'object' && 'code' in error) return error as DriverError;
  return null;
}

/**
 * True when the error is a unique-key violation; with `key`, only when the violated index or
 * column name contains it (MySQL names the index, SQLite the columns).
 */
export function isUniqueViolation(error: unknown, key?: string): boolean {
  const e = driverError(error);
  if (!e) return false;
  const unique =
    e.code === 'ER_DUP_ENTRY' ||
    e.errno === 1062 ||
    e.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  return unique && (key === undefined || violatedConstraint(e.message ?? '').includes(key));
}

/**
 * The index (MySQL) or column list (SQLite) named by a unique-violation message. The
 * duplicated value itself is cut off, since user input could contain any key name.
 */
function violatedConstraint(message: string): string {
  const mysql = /for key '([^']*)'\s*$/.exec(message);
  if (mysql) return mysql[1];
  const sqlite = /UNIQUE constraint failed: (.*)$/.exec(message);
  return sqlite ? sqlite[1] : '';
}

/** Deadlocks and lock timeouts: the transaction may simply be run again. */
export function isTransientConflict(error: unknown): boolean {
  const e = driverError(error);
  if (!e) return false;
  // 1020 (ER_CHECKREAD): MariaDB 11.6+ with innodb_snapshot_isolation refuses a locking read of
  // a row changed since the transaction's snapshot; running the unit again is the remedy.
  return (
    e.code === 'ER_LOCK_DEADLOCK' ||
    e.code === 'ER_LOCK_WAIT_TIMEOUT' ||
    e.errno === 1213 ||
    e.errno === 1205 ||
    e.errno === 1020 ||
    e.code === 'SQLITE_BUSY'
  );
}

/** Driver and socket codes that say the database is out of reach, not that the request is wrong. */
const UNREACHABLE_CODES = new Set([
  'DB_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_QUERY_INTERRUPTED',
  'ER_CLIENT_INTERACTION_TIMEOUT',
]);
/**
 * Server errors of the same kind that mysql2 names no code for: a statement stopped by the
 * server's time limit (MariaDB 1969, MySQL 3024) or interrupted (1317), and a server that turned
 * read-only (1290, 1792, 1836: a fail-over in progress).
 */
const UNREACHABLE_ERRNOS = new Set([1969, 3024, 1317, 1290, 1792, 1836]);
// The last one is TypeORM's, for a query that arrives while the data source is closing at shutdown.
const UNREACHABLE_MESSAGES =
  /^(Pool is closed\.|Can't add new command when connection is in closed state|Connection lost: The server closed the connection\.|Connection is not established with \w+ database)$/;

/**
 * True when the database did not answer (timed out, unreachable, restarting) or a transient
 * conflict outlived its retries: the request may succeed later and answers 503 / 1500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = driverError(error) ?? (error instanceof Error ? (error as DriverError) : null);
  if (!e) return false;
  if (e.code !== undefined && UNREACHABLE_CODES.has(e.code)) return true;
  if (e.errno !== undefined && UNREACHABLE_ERRNOS.has(e.errno)) return true;
  if (e.message !== undefined && UNREACHABLE_MESSAGES.test(e.message)) return true;
  return isTransientConflict(error);
}
