import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * The time the last SMS code went out to each phone number (host application), which spaces
 * codes to one number by SMS_PHONE_INTERVAL_SECONDS across instances. `down` drops the table:
 * the next code to any number may then go out at once.
 */
export class SmsPhoneSends1733750000000 implements MigrationInterface {
  name = 'SmsPhoneSends1733750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'host_sms_phone_sends',
        columns: [
          { name: 'phone', type: 'varchar', length: '16', isPrimary: true },
          { name: 'last_sent_at', type: 'bigint' },
        ],
        ...(mysql ? { engine: 'InnoDB' } : {}),
      }),
    );
    if (mysql)
      await queryRunner.query(
        'ALTER TABLE `host_sms_phone_sends` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
      );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('host_sms_phone_sends');
  }
}
