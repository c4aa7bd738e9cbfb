import 'reflect-metadata';
import { createConnection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';

/**
 * On MySQL every e2e file shares one database, so the schema is migrated once here (creating
 * the database if needed). On SQLite each file gets its own fresh file (see test-app.ts).
 */
export default async function globalSetup(): Promise<void> {
  const url = process.env.E2E_DATABASE_URL;
  if (!url || url.startsWith('sqlite')) return;
  const database = parseDatabaseUrl(url);
  if (database.type !== 'mysql') return;
  const admin = await createConnection({
    host: database.host,
    port: database.port,
    user: database.username,
    password: database.password,
  });
  await admin.query(`CREATE DATABASE IF NOT EXISTS \`${database.database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.end();
  const dataSource = new DataSource(buildDataSourceOptions(database));
  await dataSource.initialize();
  await dataSource.runMigrations();
  await dataSource.destroy();
}
