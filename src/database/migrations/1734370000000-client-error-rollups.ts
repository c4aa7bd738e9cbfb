import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Client error groups are counted after the report's commit, in batches (ClientErrorRollups):
 * `client_error_submissions.rolled_up` says whether a submission is counted in its group yet,
 * and an index on (rolled_up, created_at) lets the sweep find those left un-counted by a crashed
 * instance. The column's default is 1 and the new code inserts 0 explicitly: the rows already
 * stored, and those an instance of the previous release still inserts during a rolling upgrade
 * (it counts them in its own transaction), are counted already, so neither is counted again.
 * Adding a column with a constant default is a metadata change on MariaDB 10.3+ (no table
 * copy). `down` drops the index and the column.
 */
export class ClientErrorRollups1734370000000 implements MigrationInterface {
  name = 'ClientErrorRollups1734370000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'client_error_submissions',
      new TableColumn({ name: 'rolled_up', type: 'boolean', default: 1 }),
    );
    await queryRunner.createIndex(
      'client_error_submissions',
      new TableIndex({ name: 'IDX_client_error_submissions_rolled_up', columnNames: ['rolled_up', 'created_at'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('client_error_submissions', 'IDX_client_error_submissions_rolled_up');
    await queryRunner.dropColumn('client_error_submissions', 'rolled_up');
  }
}
