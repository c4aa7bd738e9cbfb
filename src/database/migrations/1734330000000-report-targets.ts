import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The console's reports grouped by target: the open reports (status first) or all of them
 * (target first) are read grouped by target from an index holding every column the counts
 * need, so the grouping never reads the table; a page's targets are then looked up again by
 * (type, id) for their reasons and first reporters.
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
      new TableIndex({
        name: 'IDX_reports_target',
        columnNames: ['target_type', 'target_public_id', 'status', 'created_at', 'reporter_id', 'reason_code'],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('reports', 'IDX_reports_target');
    await queryRunner.dropIndex('reports', 'IDX_reports_status_target');
  }
}
