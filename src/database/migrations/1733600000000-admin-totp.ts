import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * Two-factor sign-in for the admin console: the TOTP secret of an administrator, a secret
 * awaiting confirmation, and the last time step accepted (a code is good once). All nullable:
 * existing administrators keep signing in with their password alone. `down` drops the columns,
 * which turns two-factor sign-in off for everyone.
 */
export class AdminTotp1733600000000 implements MigrationInterface {
  name = 'AdminTotp1733600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('admin_accounts', [
      new TableColumn({ name: 'totp_secret', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'totp_pending_secret', type: 'varchar', length: '64', isNullable: true }),
      new TableColumn({ name: 'totp_last_step', type: 'bigint', isNullable: true }),
    ]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const column of ['totp_last_step', 'totp_pending_secret', 'totp_secret'])
      await queryRunner.dropColumn('admin_accounts', column);
  }
}
