import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The operator console's Users and Groups lists sort by name (nickname, then ID) and page by that
 * key; without these indexes every page would sort the whole table. The order is the column's
 * collation (binary on the project's MariaDB database and on SQLite: code point order, capitals
 * first), and the keyset comparison uses the same collation, so pages never skip or repeat a
 * row. `down` drops both.
 */
export class BrowseIndexes1734340000000 implements MigrationInterface {
  name = 'BrowseIndexes1734340000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'users',
      new TableIndex({ name: 'IDX_users_nickname', columnNames: ['nickname', 'id'] }),
    );
    await queryRunner.createIndex('groups', new TableIndex({ name: 'IDX_groups_name', columnNames: ['name', 'id'] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('groups', 'IDX_groups_name');
    await queryRunner.dropIndex('users', 'IDX_users_nickname');
  }
}
