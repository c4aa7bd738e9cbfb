import {
  MigrationInterface,
  QueryRunner,
  Table,
  TableColumn,
  TableColumnOptions,
  TableIndex,
  TableIndexOptions,
} from 'typeorm';

/**
 * The messaging core: friends, blocks, group invitations, per-member unread and activity,
 * message search text and idempotency hashes, the event outbox, and media. Portable Table API,
 * like the initial migration.
 */
export class MessagingCore1732300000000 implements MigrationInterface {
  name = 'MessagingCore1732300000000';

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
    const bool = (name: string, def: boolean): TableColumnOptions => ({ name, type: 'boolean', default: def ? 1 : 0 });
    const varchar = (name: string, length: number, options: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      ...options,
    });
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

    // Per-member unread counter and last activity, kept in the same transaction as every
    // message change; the home list pages over (user, hidden, pinned, activity, conversation).
    await queryRunner.addColumns('conversation_members', [
      new TableColumn(bigint('unread_count', { default: 0 })),
      new TableColumn(bigint('last_activity_at', { default: 0 })),
    ]);
    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_user');
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({
        name: 'IDX_conversation_members_home',
        columnNames: ['user_id', 'hidden', 'pinned', 'last_activity_at', 'conversation_id'],
      }),
    );
    // Covers the unread aggregate (sum per user, muted apart) without touching the rows.
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({ name: 'IDX_conversation_members_unread', columnNames: ['user_id', 'unread_count', 'muted'] }),
    );

    await queryRunner.addColumns('messages', [
      new TableColumn(varchar('content_hash', 64, { default: "''" })),
      new TableColumn(text('search_text', { isNullable: true })),
      new TableColumn(varchar('event_id', 36, { default: "''" })),
    ]);

    await create(
      'friend_requests',
      [
        id(),
        bigint('from_user_id'),
        bigint('to_user_id'),
        varchar('request_id', 64),
        varchar('message', 255, { default: "''" }),
        varchar('status', 12),
        varchar('pending_key', 41, { isNullable: true }),
        bigint('created_at'),
        bigint('updated_at'),
      ],
      [
        { name: 'UQ_friend_requests_from_request', columnNames: ['from_user_id', 'request_id'], isUnique: true },
        { name: 'UQ_friend_requests_pending_key', columnNames: ['pending_key'], isUnique: true },
        { name: 'IDX_friend_requests_to_status', columnNames: ['to_user_id', 'status', 'id'] },
        { name: 'IDX_friend_requests_from_status', columnNames: ['from_user_id', 'status', 'id'] },
      ],
    );

    await create(
      'friendships',
      [id(), bigint('user_id'), bigint('friend_id'), bigint('created_at')],
      [{ name: 'UQ_friendships_user_friend', columnNames: ['user_id', 'friend_id'], isUnique: true }],
    );

    await create(
      'blocks',
      [id(), bigint('user_id'), bigint('blocked_user_id'), bigint('created_at')],
      [
        { name: 'UQ_blocks_user_blocked', columnNames: ['user_id', 'blocked_user_id'], isUnique: true },
        { name: 'IDX_blocks_blocked', columnNames: ['blocked_user_id'] },
      ],
    );

    await create(
      'group_invitations',
      [
        id(),
        varchar('code', 32),
        bigint('group_id'),
        bigint('created_by'),
        bigint('expires_at'),
        bool('revoked', false),
        bigint('created_at'),
      ],
      [
        { name: 'UQ_group_invitations_code', columnNames: ['code'], isUnique: true },
        { name: 'IDX_group_invitations_group', columnNames: ['group_id'] },
      ],
    );

    // The outbox: one row per event (its position is the delivery order) and one row per
    // recipient, so a connection can resume "events for me after position P" by index.
    await create(
      'outbox_events',
      [id(), varchar('event_id', 36), varchar('type', 48), text('payload'), bigint('created_at')],
      [{ name: 'UQ_outbox_events_event_id', columnNames: ['event_id'], isUnique: true }],
    );
    await create(
      'outbox_recipients',
      [id(), bigint('position'), bigint('user_id'), text('private_payload', { isNullable: true })],
      [{ name: 'IDX_outbox_recipients_user_position', columnNames: ['user_id', 'position'] }],
    );

    await create(
      'media',
      [
        id(),
        bigint('owner_id'),
        varchar('kind', 8),
        varchar('mime_type', 100),
        bigint('size'),
        varchar('sha256', 64),
        varchar('storage_key', 128),
        varchar('file_name', 255, { default: "''" }),
        bigint('created_at'),
      ],
      [{ name: 'IDX_media_owner', columnNames: ['owner_id'] }],
    );
    await create(
      'media_links',
      [id(), bigint('media_id'), bigint('conversation_id'), bigint('created_at')],
      [{ name: 'UQ_media_links_media_conversation', columnNames: ['media_id', 'conversation_id'], isUnique: true }],
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'media_links',
      'media',
      'outbox_recipients',
      'outbox_events',
      'group_invitations',
      'blocks',
      'friendships',
      'friend_requests',
    ]) {
      await queryRunner.dropTable(table);
    }
    await queryRunner.dropColumn('messages', 'event_id');
    await queryRunner.dropColumn('messages', 'search_text');
    await queryRunner.dropColumn('messages', 'content_hash');
    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_unread');
    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_home');
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({ name: 'IDX_conversation_members_user', columnNames: ['user_id'] }),
    );
    await queryRunner.dropColumn('conversation_members', 'last_activity_at');
    await queryRunner.dropColumn('conversation_members', 'unread_count');
  }
}
