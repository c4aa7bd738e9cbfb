import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';

/**
 * The server API's idempotency records: one row per `request_id` a host backend used for a
 * write, with the operation, the hash of its canonical request and the reply it got. The unique
 * key on request_id is what makes two identical requests at once have one effect (the row is
 * written in the transaction of the change). Pruned after RETENTION_IDEMPOTENCY_DAYS by
 * (created_at, id).
 *
 * The admin audit log gains `actor_kind`: 'admin' for console accounts (every row so far) and
 * 'host' for writes of the host backend through the server API, which has no admin account.
 * `down` drops both.
 */
export class ServerRequests1733910000000 implements MigrationInterface {
  name = 'ServerRequests1733910000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'server_requests',
        columns: [
          {
            name: 'id',
            type: mysql ? 'bigint' : 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'request_id', type: 'varchar', length: '64' },
          { name: 'operation', type: 'varchar', length: '48' },
          { name: 'request_hash', type: 'varchar', length: '64' },
          { name: 'reply_json', type: mysql ? 'mediumtext' : 'text' },
          { name: 'created_at', type: 'bigint' },
        ],
        indices: [
          { name: 'UQ_server_requests_request_id', columnNames: ['request_id'], isUnique: true },
          { name: 'IDX_server_requests_created', columnNames: ['created_at', 'id'] },
        ],
        ...(mysql ? { engine: 'InnoDB' } : {}),
      }),
    );
    if (mysql)
      await queryRunner.query('ALTER TABLE `server_requests` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin');
    await queryRunner.addColumn(
      'admin_audit',
      new TableColumn({ name: 'actor_kind', type: 'varchar', length: '16', default: "'admin'" }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('admin_audit', 'actor_kind');
    await queryRunner.dropTable('server_requests');
  }
}
