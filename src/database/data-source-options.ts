import { resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config';
import type { OperationsConfig } from '../config/operations-config';
import { MIGRATIONS } from './migrations';
import { prepareSqliteFile } from './sqlite-file';

/**
 * One description of the database for the app, the migration CLI (ormconfig.ts) and the tests.
 * Entities are registered by their modules (autoLoadEntities) in the app, and listed by
 * `entities` for the CLI.
 */
export function buildDataSourceOptions(
  database: DatabaseConfig,
  entities: DataSourceOptions['entities'] = [],
  timeouts: Pick<OperationsConfig['database'], 'connectTimeoutMs'> = { connectTimeoutMs: 10_000 },
): DataSourceOptions {
  const common = {
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    synchronize: false,
    logging: false,
  } as const;
  if (database.type === 'sqlite') {
    const inMemory = database.path === ':memory:';
    // main.ts prepares (and logs tightening) first; this covers the migration CLI and the tests.
    if (!inMemory) prepareSqliteFile(resolve(database.path));
    return {
      ...common,
      type: 'better-sqlite3',
      database: inMemory ? ':memory:' : resolve(database.path),
      enableWAL: !inMemory,
      prepareDatabase: (db: { pragma: (sql: string) => unknown }) => {
        db.pragma('busy_timeout = 5000');
        db.pragma('synchronous = NORMAL');
      },
    };
  }
  return {
    ...common,
    type: 'mysql',
    host: database.host,
    port: database.port,
    username: database.username,
    password: database.password,
    database: database.database,
    charset: 'utf8mb4_bin',
    timezone: 'Z',
    // BIGINT values come back as numbers while exact (as SQLite returns them) and as decimal
    // strings beyond 2^53, never rounded; every reader converts (columns.ts, the row mappers).
    // Always-strings made mysql2 build each binary-protocol (prepared statement) BIGINT through
    // a 64-bit integer library: a few percent of sync's server CPU.
    supportBigNumbers: true,
    bigNumberStrings: false,
    // Statement and pool-wait limits are added once the pool exists (pool-guard.ts).
    connectTimeout: timeouts.connectTimeoutMs,
    extra: { connectionLimit: 20, waitForConnections: true },
  };
}
