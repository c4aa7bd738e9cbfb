import { createConnection } from 'mysql2/promise';
import { resolve } from 'node:path';
import type { Logger as PinoRoot } from 'pino';
import type { DatabaseConfig } from '../config/app-config';
import type { OperationsConfig } from '../config/operations-config';
import { prepareSqliteFile } from './sqlite-file';

/**
 * At start-up, waits until the database accepts a connection, retrying with doubling delays
 * (DB_CONNECT_RETRY_MS up to DB_CONNECT_RETRY_MAX_MS; DB_CONNECT_RETRIES attempts, 0 = for
 * ever). A database that comes up after the service (a restarted host, a compose file) then
 * needs no restart of the service. SQLite is a local file and needs no wait: it is created, or
 * its permissions tightened, here (sqlite-file.ts).
 */
export async function waitForDatabase(
  database: DatabaseConfig,
  limits: OperationsConfig['database'],
  log: PinoRoot,
  /** Called once, when the first attempt failed. */
  onWaiting: () => void,
): Promise<void> {
  if (database.type === 'sqlite') {
    if (database.path === ':memory:') return;
    for (const { file, was } of prepareSqliteFile(resolve(database.path))) {
      log.warn({ file }, `SQLite file ${file} was open to other users (mode ${was}); its mode is now 600`);
    }
    return;
  }
  let delay = limits.connectRetryMs;
  for (let attempt = 1; ; attempt++) {
    try {
      const connection = await createConnection({
        host: database.host,
        port: database.port,
        user: database.username,
        password: database.password,
        database: database.database,
        connectTimeout: limits.connectTimeoutMs,
      });
      await connection.end();
      if (attempt > 1) log.info({ attempt }, 'database reachable; starting');
      return;
    } catch (error) {
      // The driver's code and message name the cause (refused, timed out, access denied) and
      // never the password.
      const { code, message } = error as { code?: string; message?: string };
      if (limits.connectRetries > 0 && attempt >= limits.connectRetries) {
        throw new Error(
          `database ${database.host}:${database.port}/${database.database} unreachable after ${attempt} attempts: ${code ?? message}`,
        );
      }
      if (attempt === 1) onWaiting();
      log.warn(
        { attempt, code, retryInMs: delay },
        `database ${database.host}:${database.port}/${database.database} not reachable (${code ?? message}); retrying`,
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, limits.connectRetryMaxMs);
    }
  }
}
