import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { parseDatabaseUrl } from '../../src/config/app-config';

/**
 * A database of the test's own, for tests that change what every user of the database sees
 * (the runtime settings: closing a capability in the shared MySQL database would fail the
 * other spec files running beside it). Pass `env` to startTestApp (every instance of the test
 * the same, to share it); the first instance migrates it. `drop()` removes it. The env names
 * a Redis prefix of its own too: its users are numbered from 1 like every other isolated
 * database's, so on the shared Redis their presence and sockets would otherwise meet.
 */
export interface IsolatedDatabase {
  env: Record<string, string>;
  drop(): Promise<void>;
}

export async function isolatedDatabase(): Promise<IsolatedDatabase> {
  const redis = { REDIS_KEY_PREFIX: `e2e-${randomBytes(6).toString('hex')}:` };
  const url = process.env.E2E_DATABASE_URL;
  if (!url || url.startsWith('sqlite')) {
    const file = join(tmpdir(), `im-e2e-isolated-${randomBytes(6).toString('hex')}.sqlite`);
    return {
      env: { DATABASE_URL: `sqlite:${file}`, MIGRATIONS_RUN: 'true', ...redis },
      drop: async () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      },
    };
  }
  const database = parseDatabaseUrl(url);
  if (database.type !== 'mysql') throw new Error('isolatedDatabase: MySQL or SQLite only');
  const name = `${database.database}_iso_${randomBytes(4).toString('hex')}`.slice(0, 64);
  const connect = () =>
    createConnection({
      host: database.host,
      port: database.port,
      user: database.username,
      password: database.password,
    });
  const admin = await connect();
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const isolated = new URL(url);
  isolated.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: isolated.toString(), MIGRATIONS_RUN: 'true', ...redis },
    drop: async () => {
      const admin = await connect();
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}
