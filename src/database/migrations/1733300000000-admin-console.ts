import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * The admin console's own tables: its accounts, their sessions (only the SHA-256 of a session
 * ID is stored) and the audit log of every admin action. `down` drops the three tables.
 */
export class AdminConsole1733300000000 implements MigrationInterface {
  name = 'AdminConsole1733300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const id = (): TableColumnOptions => ({
      name: 'id',
      type: mysql ? 'bigint' : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    });
    const bigint = (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'bigint',
      isNullable: nullable,
    });
    const varchar = (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });
    const text = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable });
    const bool = (name: string): TableColumnOptions => ({ name, type: 'boolean', default: 0 });
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[]): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create(
      'admin_accounts',
      [
        id(),
        varchar('username', 32),
        varchar('password_hash', 255),
        varchar('role', 16),
        bool('disabled'),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [{ name: 'UQ_admin_accounts_username', columnNames: ['username'], isUnique: true }],
    );
    await create(
      'admin_sessions',
      [id(), varchar('session_id_hash', 64), bigint('admin_id'), bigint('created_at'), bigint('last_seen_at')],
      [
        { name: 'UQ_admin_sessions_hash', columnNames: ['session_id_hash'], isUnique: true },
        { name: 'IDX_admin_sessions_admin', columnNames: ['admin_id'] },
      ],
    );
    await create(
      'admin_audit',
      [
        id(),
        bigint('admin_id'),
        varchar('admin_username', 32),
        varchar('action', 64),
        varchar('target_type', 16),
        varchar('target_id', 128),
        text('before_json', true),
        text('after_json', true),
        varchar('trace_id', 64),
        bigint('created_at'),
      ],
      [
        { name: 'IDX_admin_audit_created', columnNames: ['created_at', 'id'] },
        { name: 'IDX_admin_audit_admin', columnNames: ['admin_id', 'id'] },
        { name: 'IDX_admin_audit_action', columnNames: ['action', 'id'] },
        { name: 'IDX_admin_audit_target', columnNames: ['target_type', 'target_id', 'id'] },
      ],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('admin_audit');
    await queryRunner.dropTable('admin_sessions');
    await queryRunner.dropTable('admin_accounts');
  }
}
