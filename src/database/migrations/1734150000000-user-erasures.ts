import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/**
 * User erasure (server API, issue 23): one row per erased user (internal ID, no personal data),
 * which serialises two erasures of one user and lets an interrupted one resume once its lease
 * (`lease_until`) has passed. A user's own messages are found by (sender_id, id) to tombstone or
 * export them page by page. `users.erased_at` marks the anonymised row for good: the host can
 * neither re-enable it nor give it a profile or a token through its tombstone ID. `down` drops all three.
 */
export class UserErasures1734150000000 implements MigrationInterface {
  name = 'UserErasures1734150000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'user_erasures',
        columns: [
          { name: 'user_id', type: 'bigint', isPrimary: true },
          { name: 'status', type: 'varchar', length: '12' },
          { name: 'lease_until', type: 'bigint' },
          { name: 'created_at', type: 'bigint' },
          { name: 'completed_at', type: 'bigint', isNullable: true },
        ],
        ...(mysql ? { engine: 'InnoDB' } : {}),
      }),
    );
    if (mysql)
      await queryRunner.query('ALTER TABLE `user_erasures` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin');
    await queryRunner.addColumn('users', new TableColumn({ name: 'erased_at', type: 'bigint', isNullable: true }));
    await queryRunner.createIndex(
      'messages',
      new TableIndex({ name: 'IDX_messages_sender_id', columnNames: ['sender_id', 'id'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('messages', 'IDX_messages_sender_id');
    await queryRunner.dropColumn('users', 'erased_at');
    await queryRunner.dropTable('user_erasures');
  }
}
