import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * The operator console's moderation and browsing: a user disabled for a while, with the reason
 * their client is shown (`disabled_until` NULL is for good); when each user was last active
 * (the Users list sorts and filters by it); an audit row's report (an action taken from a
 * report is listed in that report's history and links back); each administrator's language.
 * `down` drops the columns: timed disables become permanent and their reasons are lost.
 */
export class OperatorConsole1734300000000 implements MigrationInterface {
  name = 'OperatorConsole1734300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('users', [
      new TableColumn({ name: 'disabled_until', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'disabled_reason', type: 'varchar', length: '200', isNullable: true }),
      new TableColumn({ name: 'last_active_at', type: 'bigint', isNullable: true }),
    ]);
    await queryRunner.createIndex(
      'users',
      new TableIndex({ name: 'IDX_users_last_active', columnNames: ['last_active_at', 'id'] }),
    );
    await queryRunner.addColumn(
      'admin_audit',
      new TableColumn({ name: 'report_id', type: 'varchar', length: '32', isNullable: true }),
    );
    await queryRunner.createIndex(
      'admin_audit',
      new TableIndex({ name: 'IDX_admin_audit_report', columnNames: ['report_id', 'id'] }),
    );
    await queryRunner.addColumn(
      'admin_accounts',
      new TableColumn({ name: 'locale', type: 'varchar', length: '16', default: "'en'" }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('admin_accounts', 'locale');
    await queryRunner.dropIndex('admin_audit', 'IDX_admin_audit_report');
    await queryRunner.dropColumn('admin_audit', 'report_id');
    await queryRunner.dropIndex('users', 'IDX_users_last_active');
    await queryRunner.dropColumns('users', ['last_active_at', 'disabled_reason', 'disabled_until']);
  }
}
