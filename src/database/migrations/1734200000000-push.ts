import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * Offline push (src/push): device registrations (one per provider token, moved to whichever user
 * registers it last), each user's preview level and quiet hours, one record per notification
 * (event × device: the unique key that keeps a notification from being queued twice, its retry
 * state and claim), and the dispatcher's place in the outbox with the lease that lets one
 * instance at a time read it. The dispatcher starts at the outbox's head: events from before
 * the upgrade are not pushed. `down` drops the four tables: registrations are lost (the SDK
 * registers again at its next start).
 */
export class Push1734200000000 implements MigrationInterface {
  name = 'Push1734200000000';

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
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[]): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create(
      'push_registrations',
      [
        id(),
        bigint('user_id'),
        varchar('device_id', 64),
        varchar('provider', 16),
        varchar('token', 512),
        // SHA-256 of the token: a unique index on a 512-character column would exceed MariaDB's key length.
        varchar('token_hash', 64),
        varchar('platform', 16),
        varchar('package_name', 255, true),
        varchar('app_version', 64, true),
        varchar('locale', 35, true),
        // The user's token version when registered: a later revocation makes the registration stale.
        int('token_version'),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_push_registrations_token', columnNames: ['provider', 'token_hash'], isUnique: true },
        { name: 'UQ_push_registrations_device', columnNames: ['user_id', 'device_id', 'provider'], isUnique: true },
      ],
    );
    await create(
      'push_settings',
      [
        { name: 'user_id', type: 'bigint', isPrimary: true },
        varchar('preview', 8, true),
        // Minutes after midnight in `timezone`.
        int('quiet_start', true),
        int('quiet_end', true),
        varchar('timezone', 64, true),
        bigint('updated_at'),
      ],
      [],
    );
    await create(
      'push_deliveries',
      [
        id(),
        varchar('event_id', 36),
        bigint('registration_id'),
        bigint('user_id'),
        varchar('provider', 16),
        varchar('kind', 24),
        // The provider-neutral notification (JSON); emptied once the record is final, so no
        // preview text stays behind.
        { name: 'payload', type: 'text', isNullable: true },
        varchar('status', 12),
        int('attempts'),
        bigint('next_attempt_at'),
        bigint('deadline_at'),
        varchar('claim_owner', 64, true),
        { name: 'claim_until', type: 'bigint', default: 0 },
        int('last_status', true),
        varchar('last_error', 300, true),
        int('latency_ms', true),
        bigint('created_at'),
        bigint('finished_at', true),
      ],
      [
        { name: 'UQ_push_deliveries_event_device', columnNames: ['event_id', 'registration_id'], isUnique: true },
        { name: 'IDX_push_deliveries_due', columnNames: ['status', 'provider', 'next_attempt_at'] },
        { name: 'IDX_push_deliveries_created', columnNames: ['created_at', 'id'] },
      ],
    );
    await create(
      'push_dispatch',
      [
        { name: 'id', type: 'int', isPrimary: true },
        { name: 'cursor_position', type: 'bigint', default: 0 },
        varchar('lease_owner', 64, true),
        { name: 'lease_until', type: 'bigint', default: 0 },
        bigint('updated_at'),
      ],
      [],
    );
    const [head] = (await queryRunner.query('SELECT last_position FROM outbox_sequence WHERE id = 1')) as Array<{
      last_position: string | number;
    }>;
    await queryRunner.query(
      'INSERT INTO push_dispatch (id, cursor_position, lease_owner, lease_until, updated_at) VALUES (1, ?, NULL, 0, ?)',
      [String(head?.last_position ?? 0), Date.now()],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('push_dispatch');
    await queryRunner.dropTable('push_deliveries');
    await queryRunner.dropTable('push_settings');
    await queryRunner.dropTable('push_registrations');
  }
}
