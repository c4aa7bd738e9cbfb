import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * The bundled host application's tables: its accounts (each linked to an IM user by a random
 * `im_user_id`), their sessions (only the SHA-256 of a session ID is stored) and the live SMS
 * codes (hashed). `down` drops the three tables.
 */
export class HostApp1733200000000 implements MigrationInterface {
  name = 'HostApp1733200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const id = (): TableColumnOptions => ({
      name: 'id',
      type: mysql ? 'bigint' : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    });
    const bigint = (name: string): TableColumnOptions => ({ name, type: 'bigint' });
    const varchar = (name: string, length: number): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
    });
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[]): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create(
      'host_accounts',
      [
        id(),
        varchar('phone', 16),
        varchar('password_hash', 255),
        varchar('im_user_id', 64),
        varchar('nickname', 320),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_host_accounts_phone', columnNames: ['phone'], isUnique: true },
        { name: 'UQ_host_accounts_im_user', columnNames: ['im_user_id'], isUnique: true },
      ],
    );
    await create(
      'host_sessions',
      [id(), varchar('session_id_hash', 64), bigint('account_id'), bigint('created_at'), bigint('last_seen_at')],
      [
        { name: 'UQ_host_sessions_hash', columnNames: ['session_id_hash'], isUnique: true },
        { name: 'IDX_host_sessions_account', columnNames: ['account_id'] },
        { name: 'IDX_host_sessions_created', columnNames: ['created_at'] },
        { name: 'IDX_host_sessions_seen', columnNames: ['last_seen_at'] },
      ],
    );
    await create(
      'host_sms_codes',
      [
        id(),
        varchar('phone', 16),
        varchar('purpose', 16),
        varchar('code_hash', 128),
        { name: 'attempts', type: 'int', default: 0 },
        bigint('created_at'),
        bigint('expires_at'),
      ],
      [
        { name: 'UQ_host_sms_codes_target', columnNames: ['phone', 'purpose'], isUnique: true },
        { name: 'IDX_host_sms_codes_expires', columnNames: ['expires_at'] },
      ],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('host_sms_codes');
    await queryRunner.dropTable('host_sessions');
    await queryRunner.dropTable('host_accounts');
  }
}
