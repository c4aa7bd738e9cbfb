import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * Calls and their participants (see CallsService). The unique keys on `live_room_id` and
 * `live_conversation_id` hold only while a call (or its provider room) is alive; NULLs do not
 * collide, so ended calls keep their rows. `down` drops both tables.
 */
export class Calls1733100000000 implements MigrationInterface {
  name = 'Calls1733100000000';

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
    const bool = (name: string): TableColumnOptions => ({ name, type: 'boolean', default: 0 });
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[]): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create(
      'calls',
      [
        id(),
        varchar('call_id', 36),
        bigint('conversation_id'),
        bool('is_group'),
        varchar('caller_conversation_id', 160),
        varchar('media', 8),
        varchar('state', 8),
        varchar('end_reason', 32, true),
        bigint('caller_id'),
        varchar('client_call_id', 64),
        bigint('room_id'),
        bigint('live_room_id', true),
        bigint('live_conversation_id', true),
        bigint('ring_deadline', true),
        bigint('empty_since', true),
        bigint('started_at'),
        bigint('accepted_at', true),
        bigint('ended_at', true),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_calls_call_id', columnNames: ['call_id'], isUnique: true },
        { name: 'UQ_calls_caller_client_call', columnNames: ['caller_id', 'client_call_id'], isUnique: true },
        { name: 'UQ_calls_live_room', columnNames: ['live_room_id'], isUnique: true },
        { name: 'UQ_calls_live_conversation', columnNames: ['live_conversation_id'], isUnique: true },
        { name: 'IDX_calls_ring_deadline', columnNames: ['ring_deadline'] },
        { name: 'IDX_calls_empty_since', columnNames: ['empty_since'] },
      ],
    );
    await create(
      'call_participants',
      [
        id(),
        bigint('call_row_id'),
        bigint('user_id'),
        varchar('role', 8),
        varchar('state', 8),
        varchar('device_id', 64, true),
        bool('in_room'),
        { name: 'room_event_ms', type: 'bigint', default: 0 },
        bigint('joined_at', true),
        bigint('left_at', true),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_call_participants_call_user', columnNames: ['call_row_id', 'user_id'], isUnique: true },
        { name: 'IDX_call_participants_user', columnNames: ['user_id', 'call_row_id'] },
      ],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('call_participants');
    await queryRunner.dropTable('calls');
  }
}
