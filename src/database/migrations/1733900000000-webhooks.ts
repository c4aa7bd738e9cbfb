import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * Webhooks (src/webhooks): the host's endpoints, with each one's signing secrets, breaker,
 * cursor in the outbox and the lease that lets one instance at a time deliver to it; and one
 * record per endpoint and event that was attempted (dead letters keep their body for replay).
 * `down` drops both tables: every endpoint, secret and delivery record is lost.
 */
export class Webhooks1733900000000 implements MigrationInterface {
  name = 'Webhooks1733900000000';

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
    const int = (name: string, nullable = false): TableColumnOptions => ({
      name,
      type: 'int',
      isNullable: nullable,
      ...(nullable ? {} : { default: 0 }),
    });
    const varchar = (name: string, length: number, nullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable: nullable,
    });
    const text = (name: string, nullable = false): TableColumnOptions => ({ name, type: 'text', isNullable: nullable });
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[]): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create(
      'webhook_endpoints',
      [
        id(),
        varchar('url', 2048),
        // SHA-256 of the URL: a unique index on the URL itself would exceed MariaDB's key length.
        varchar('url_hash', 64),
        varchar('description', 200),
        text('event_types', true),
        varchar('secret', 128),
        varchar('previous_secret', 128, true),
        bigint('previous_secret_until', true),
        { name: 'paused', type: 'boolean', default: 0 },
        int('consecutive_failures'),
        bigint('breaker_open_until', true),
        { name: 'cursor_position', type: 'bigint', default: 0 },
        varchar('lease_owner', 64, true),
        { name: 'lease_until', type: 'bigint', default: 0 },
        bigint('last_delivery_at', true),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [{ name: 'UQ_webhook_endpoints_url_hash', columnNames: ['url_hash'], isUnique: true }],
    );
    await create(
      'webhook_deliveries',
      [
        id(),
        bigint('endpoint_id'),
        varchar('event_id', 36),
        varchar('type', 48),
        bigint('position'),
        varchar('status', 16),
        int('attempts'),
        int('last_status_code', true),
        varchar('last_error', 300, true),
        int('latency_ms', true),
        bigint('first_attempt_at'),
        bigint('last_attempt_at'),
        bigint('next_attempt_at', true),
        text('body', true),
      ],
      [
        { name: 'UQ_webhook_deliveries_event', columnNames: ['endpoint_id', 'event_id'], isUnique: true },
        { name: 'IDX_webhook_deliveries_endpoint', columnNames: ['endpoint_id', 'id'] },
        { name: 'IDX_webhook_deliveries_status', columnNames: ['endpoint_id', 'status', 'id'] },
        { name: 'IDX_webhook_deliveries_first_attempt', columnNames: ['first_attempt_at', 'id'] },
      ],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhook_endpoints');
  }
}
