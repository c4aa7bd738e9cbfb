import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * Settings changed at runtime from the admin console: one row per setting (a map one row per
 * entry), absent rows follow the environment. `down` drops the table, which returns every
 * setting to its environment value.
 */
export class RuntimeSettings1733500000000 implements MigrationInterface {
  name = 'RuntimeSettings1733500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'runtime_settings',
        columns: [
          { name: 'name', type: 'varchar', length: '64', isPrimary: true },
          { name: 'value_json', type: mysql ? 'mediumtext' : 'text' },
          { name: 'updated_at', type: 'bigint' },
          { name: 'updated_by', type: 'varchar', length: '32' },
        ],
        ...(mysql ? { engine: 'InnoDB' } : {}),
      }),
    );
    if (mysql)
      await queryRunner.query('ALTER TABLE `runtime_settings` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('runtime_settings');
  }
}
