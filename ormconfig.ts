import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { parseDatabaseUrl } from './src/config/app-config';
import { buildDataSourceOptions } from './src/database/data-source-options';

/**
 * The DataSource of the TypeORM CLI (npm run migration:generate|run|revert), reading the same
 * DATABASE_URL as the service. Migrations are hand-checked to stay portable between MySQL and
 * SQLite: review generated SQL, prefer the Table API (see the initial migration).
 */
export default new DataSource(
  buildDataSourceOptions(parseDatabaseUrl(process.env.DATABASE_URL || 'sqlite:./data/im.sqlite'), [
    'src/**/*.entity.ts',
  ]),
);
