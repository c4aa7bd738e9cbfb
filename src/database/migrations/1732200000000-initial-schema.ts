import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndexOptions } from 'typeorm';

/**
 * The foundation's schema, written with TypeORM's portable Table API so that one migration
 * serves MySQL/MariaDB and SQLite. On MySQL every table is utf8mb4 with the binary collation,
 * so identifiers compare exactly as they do on SQLite (case-sensitive, no accent folding).
 */
export class InitialSchema1732200000000 implements MigrationInterface {
  name = 'InitialSchema1732200000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const id = (): TableColumnOptions => ({
      name: 'id',
      type: mysql ? 'bigint' : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    });
    const bigint = (name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'bigint',
      ...options,
    });
    const int = (name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'int',
      ...options,
    });
    const bool = (name: string, def?: boolean): TableColumnOptions => ({
      name,
      type: 'boolean',
      ...(def === undefined ? {} : { default: def ? 1 : 0 }),
    });
    const varchar = (name: string, length: number, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      ...options,
    });
    // MySQL TEXT holds 65,535 bytes: too little for 32,768 four-byte characters.
    const text = (name: string, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: mysql ? 'mediumtext' : 'text',
      ...options,
    });

    const create = async (
      name: string,
      columns: TableColumnOptions[],
      indices: TableIndexOptions[] = [],
    ): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };

    await create(
      'users',
      [
        id(),
        varchar('external_id', 64),
        varchar('username', 64, { isNullable: true }),
        varchar('nickname', 80),
        varchar('avatar', 1024, { default: "''" }),
        varchar('signature', 255, { default: "''" }),
        bigint('profile_updated_at'),
        int('token_version', { default: 0 }),
        bool('disabled', false),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_users_external_id', columnNames: ['external_id'], isUnique: true },
        { name: 'UQ_users_username', columnNames: ['username'], isUnique: true },
      ],
    );

    await create(
      'groups',
      [
        id(),
        varchar('public_id', 32),
        varchar('name', 80),
        varchar('avatar', 1024, { default: "''" }),
        varchar('introduction', 1000, { default: "''" }),
        bigint('owner_id'),
        bool('disabled', false),
        bigint('dismissed_at', { isNullable: true }),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [{ name: 'UQ_groups_public_id', columnNames: ['public_id'], isUnique: true }],
    );

    await create(
      'group_members',
      [
        id(),
        bigint('group_id'),
        bigint('user_id'),
        varchar('role', 16),
        varchar('status', 16),
        bigint('muted_until', { default: 0 }),
        bigint('joined_at'),
        bigint('left_at', { isNullable: true }),
      ],
      [
        { name: 'UQ_group_members_group_user', columnNames: ['group_id', 'user_id'], isUnique: true },
        { name: 'IDX_group_members_user_status', columnNames: ['user_id', 'status'] },
      ],
    );

    await create(
      'conversations',
      [
        id(),
        varchar('type', 8),
        varchar('direct_key', 41, { isNullable: true }),
        bigint('group_id', { isNullable: true }),
        bigint('last_seq', { default: 0 }),
        bigint('content_updated_at'),
        bigint('deletion_revision', { default: 0 }),
        bigint('created_at'),
      ],
      [
        { name: 'UQ_conversations_direct_key', columnNames: ['direct_key'], isUnique: true },
        { name: 'UQ_conversations_group_id', columnNames: ['group_id'], isUnique: true },
      ],
    );

    await create(
      'conversation_members',
      [
        id(),
        bigint('conversation_id'),
        bigint('user_id'),
        bigint('read_seq', { default: 0 }),
        bigint('visible_from_seq', { default: 0 }),
        bigint('visible_to_seq', { isNullable: true }),
        bool('pinned', false),
        bool('muted', false),
        bool('hidden', false),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_conversation_members_conv_user', columnNames: ['conversation_id', 'user_id'], isUnique: true },
        { name: 'IDX_conversation_members_user', columnNames: ['user_id'] },
      ],
    );

    await create(
      'messages',
      [
        id(),
        bigint('conversation_id'),
        bigint('seq'),
        bigint('sender_id'),
        varchar('client_message_id', 64),
        varchar('type', 16),
        text('content'),
        varchar('status', 12, { default: "'normal'" }),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_messages_conv_seq', columnNames: ['conversation_id', 'seq'], isUnique: true },
        { name: 'UQ_messages_sender_client_id', columnNames: ['sender_id', 'client_message_id'], isUnique: true },
      ],
    );

    await create(
      'client_errors',
      [
        id(),
        varchar('event_id', 36),
        varchar('merge_key', 64),
        bigint('user_id'),
        varchar('username', 64, { isNullable: true }),
        varchar('device_id', 128),
        varchar('platform', 16),
        varchar('severity', 16),
        varchar('error_code', 128),
        text('message'),
        text('stack_trace', { isNullable: true }),
        varchar('operation', 128),
        varchar('build_id', 128, { isNullable: true }),
        varchar('conversation_id', 512, { isNullable: true }),
        varchar('message_id', 128, { isNullable: true }),
        varchar('trace_id', 36, { isNullable: true }),
        bool('recovered'),
        text('context'),
        int('occurrence_count', { default: 1 }),
        bigint('first_seen_at'),
        bigint('last_seen_at'),
      ],
      [
        { name: 'UQ_client_errors_merge_key', columnNames: ['merge_key'], isUnique: true },
        { name: 'IDX_client_errors_user_last_seen', columnNames: ['user_id', 'last_seen_at'] },
      ],
    );

    await create(
      'client_error_submissions',
      [id(), bigint('user_id'), varchar('event_id', 36), varchar('merge_key', 64), bigint('created_at')],
      [{ name: 'UQ_client_error_submissions_user_event', columnNames: ['user_id', 'event_id'], isUnique: true }],
    );

    await create(
      'reports',
      [
        id(),
        bigint('reporter_id'),
        varchar('request_id', 64),
        varchar('target_type', 8),
        varchar('target_public_id', 64),
        bigint('target_user_id', { isNullable: true }),
        bigint('target_group_id', { isNullable: true }),
        int('reason_code'),
        varchar('description', 1000, { default: "''" }),
        varchar('conversation_id', 256, { default: "''" }),
        bigint('conversation_ref', { isNullable: true }),
        varchar('message_ids', 512, { default: "'[]'" }),
        varchar('status', 16, { default: "'pending'" }),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_reports_reporter_request', columnNames: ['reporter_id', 'request_id'], isUnique: true },
        { name: 'IDX_reports_status_created', columnNames: ['status', 'created_at'] },
      ],
    );

    await create(
      'rtc_room_events',
      [
        id(),
        varchar('body_sha256', 64),
        varchar('sdk_app_id', 32),
        int('event_type'),
        varchar('room_id', 10),
        varchar('provider_user_id', 128, { isNullable: true }),
        bigint('event_ms'),
        bigint('callback_ts'),
        text('event_info'),
        bigint('received_at'),
      ],
      [
        { name: 'UQ_rtc_room_events_body_sha256', columnNames: ['body_sha256'], isUnique: true },
        { name: 'IDX_rtc_room_events_room_time', columnNames: ['room_id', 'event_ms'] },
      ],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'rtc_room_events',
      'reports',
      'client_error_submissions',
      'client_errors',
      'messages',
      'conversation_members',
      'conversations',
      'group_members',
      'groups',
      'users',
    ]) {
      await queryRunner.dropTable(table);
    }
  }
}
