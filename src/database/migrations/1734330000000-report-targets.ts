import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The console's reports grouped by target: the open queue is read grouped by target (status
 * first, then the target, with the columns the counts need, so the grouping reads the index
 * alone), and a page's targets are looked up again for their reasons and first reporters.
 */
export class ReportTargets1734330000000 implements MigrationInterface {
  name = 'ReportTargets1734330000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'reports',
      new TableIndex({
        name: 'IDX_reports_status_target',
        columnNames: ['status', 'target_type', 'target_public_id', 'created_at', 'reporter_id', 'reason_code'],
      }),
    );
    await queryRunner.createIndex(
      'reports',
      new TableIndex({ name: 'IDX_reports_target', columnNames: ['target_type', 'target_public_id', 'status'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('reports', 'IDX_reports_target');
    await queryRunner.dropIndex('reports', 'IDX_reports_status_target');
  }
}
