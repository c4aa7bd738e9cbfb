import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex, TableIndexOptions } from 'typeorm';

/**
 * Analytics (src/analytics): the users active on each UTC day (DAU/MAU), daily and hourly
 * rollups (metric × dimension → value), and the rollup job's cursors and lease. The job reads
 * messages by ID and finished calls by end time past its cursors; both start at the beginning
 * and catch up in batches in the background. `calls(ended_at, id)` is the index the calls
 * cursor reads. `down` drops the tables and the index: the figures are lost.
 */
export class Analytics1734310000000 implements MigrationInterface {
  name = 'Analytics1734310000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const bigint = (name: string, primary = false, fallback?: number): TableColumnOptions => ({
      name,
      type: 'bigint',
      isPrimary: primary,
      ...(fallback === undefined ? {} : { default: fallback }),
    });
    const key = (name: string, primary = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '32',
      isPrimary: primary,
    });
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[] = []) => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create('analytics_user_days', [bigint('day', true), bigint('user_id', true)]);
    await create('analytics_daily', [
      bigint('day', true),
      key('metric', true),
      key('dimension', true),
      bigint('value'),
    ]);
    await create('analytics_hourly', [
      bigint('hour', true),
      key('metric', true),
      key('dimension', true),
      bigint('value'),
    ]);
    await create('analytics_jobs', [
      key('name', true),
      bigint('cursor_id', false, 0),
      bigint('cursor_at', false, 0),
      { name: 'lease_owner', type: 'varchar', length: '64', isNullable: true },
      bigint('lease_until', false, 0),
      bigint('updated_at', false, 0),
    ]);
    for (const name of ['lease', 'messages', 'calls', 'active_days'])
      await queryRunner.query(
        'INSERT INTO analytics_jobs (name, cursor_id, cursor_at, lease_owner, lease_until, updated_at) VALUES (?, 0, 0, NULL, 0, 0)',
        [name],
      );
    await queryRunner.createIndex(
      'calls',
      new TableIndex({ name: 'IDX_calls_ended', columnNames: ['ended_at', 'id'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('calls', 'IDX_calls_ended');
    for (const name of ['analytics_jobs', 'analytics_hourly', 'analytics_daily', 'analytics_user_days'])
      await queryRunner.dropTable(name);
  }
}
