import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The sweep that flips back timed disables once their end has passed (DisableExpiryService)
 * finds them by `disabled_until`; without the index it would read the whole users table every
 * minute. The column is NULL for nearly every user, so the index stays small.
 */
export class DisabledUntilIndex1734350000000 implements MigrationInterface {
  name = 'DisabledUntilIndex1734350000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'users',
      new TableIndex({ name: 'IDX_users_disabled_until', columnNames: ['disabled_until'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('users', 'IDX_users_disabled_until');
  }
}
