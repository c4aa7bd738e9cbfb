import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * Group conversations stop writing to every member on each message.
 *
 * Until now a group send raised unread and last activity on all member rows and wrote one
 * outbox row per member: 200 members cost about 600 index writes per message. Now a group
 * member row keeps only what the member changes (read position, settings) plus `uncounted`
 * (messages after read_seq that do not count as unread: the member's own and tombstones), and
 * unread, last activity and "hidden until the next message" are derived when read from the
 * conversation's last_seq and last_message_at. One-to-one conversations keep their stored
 * counters (two rows per message), so a home list of many direct chats stays an index range.
 * Message events are stored once with their conversation and sequence (one-to-one events with
 * each member's private part); delivery joins them to the member's visible range.
 */
export class GroupReadSideState1732400000000 implements MigrationInterface {
  name = 'GroupReadSideState1732400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'conversations',
      new TableColumn({ name: 'last_message_at', type: 'bigint', default: 0 }),
    );
    await queryRunner.addColumns('conversation_members', [
      new TableColumn({ name: 'is_group', type: 'boolean', default: 0 }),
      new TableColumn({ name: 'uncounted', type: 'bigint', default: 0 }),
      new TableColumn({ name: 'hidden_seq', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'visible_to_position', type: 'bigint', isNullable: true }),
    ]);
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumns('outbox_events', [
      new TableColumn({ name: 'conversation_id', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'seq', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'private_payloads', type: mysql ? 'mediumtext' : 'text', isNullable: true }),
    ]);

    await queryRunner.query(
      'UPDATE conversations SET last_message_at = COALESCE((SELECT MAX(m.created_at) FROM messages m WHERE m.conversation_id = conversations.id), 0)',
    );
    await queryRunner.query(
      "UPDATE conversation_members SET is_group = 1 WHERE conversation_id IN (SELECT c.id FROM conversations c WHERE c.type = 'group')",
    );
    const upper =
      'COALESCE(visible_to_seq, (SELECT c.last_seq FROM conversations c WHERE c.id = conversation_members.conversation_id))';
    await queryRunner.query(`UPDATE conversation_members SET hidden_seq = ${upper} WHERE hidden = 1`);
    await queryRunner.query(
      `UPDATE conversation_members SET uncounted = ${upper} - read_seq - unread_count, unread_count = 0 WHERE is_group = 1`,
    );
    // Former members left before any event was stored by conversation: they receive none of those.
    await queryRunner.query('UPDATE conversation_members SET visible_to_position = 0 WHERE visible_to_seq IS NOT NULL');
    // The one-to-one unread aggregate reads only one-to-one rows, still from the index alone.
    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_unread');
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({
        name: 'IDX_conversation_members_unread',
        columnNames: ['user_id', 'is_group', 'unread_count', 'muted'],
      }),
    );

    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_home');
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({
        name: 'IDX_conversation_members_home',
        columnNames: ['user_id', 'is_group', 'hidden', 'pinned', 'last_activity_at', 'conversation_id'],
      }),
    );
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'IDX_outbox_events_conversation', columnNames: ['conversation_id', 'id'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('outbox_events', 'IDX_outbox_events_conversation');
    // Message events written since `up` had no recipient rows: give them one per member who
    // could see them, with that member's private part (one-to-one events keep them by user ID).
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const part = mysql
      ? "JSON_UNQUOTE(JSON_EXTRACT(e.private_payloads, CONCAT('$.\"', m.user_id, '\"')))"
      : "json_extract(e.private_payloads, '$.\"' || m.user_id || '\"')";
    await queryRunner.query(
      `INSERT INTO outbox_recipients (position, user_id, private_payload) SELECT e.id, m.user_id, ${part} FROM outbox_events e ` +
        'JOIN conversation_members m ON m.conversation_id = e.conversation_id AND e.seq > m.visible_from_seq AND (m.visible_to_seq IS NULL OR (e.seq <= m.visible_to_seq AND e.id <= m.visible_to_position)) ' +
        'WHERE e.conversation_id IS NOT NULL',
    );
    const lastSeq = '(SELECT c.last_seq FROM conversations c WHERE c.id = conversation_members.conversation_id)';
    const lastMessageAt =
      '(SELECT c.last_message_at FROM conversations c WHERE c.id = conversation_members.conversation_id)';
    const unread = `COALESCE(visible_to_seq, ${lastSeq}) - read_seq - uncounted`;
    await queryRunner.query(
      `UPDATE conversation_members SET unread_count = CASE WHEN ${unread} > 0 THEN ${unread} ELSE 0 END WHERE is_group = 1`,
    );
    await queryRunner.query(
      `UPDATE conversation_members SET last_activity_at = ${lastMessageAt} WHERE is_group = 1 AND visible_to_seq IS NULL AND ${lastMessageAt} > last_activity_at`,
    );
    await queryRunner.query(
      `UPDATE conversation_members SET hidden = 0 WHERE is_group = 1 AND hidden = 1 AND COALESCE(visible_to_seq, ${lastSeq}) > hidden_seq`,
    );
    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_home');
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({
        name: 'IDX_conversation_members_home',
        columnNames: ['user_id', 'hidden', 'pinned', 'last_activity_at', 'conversation_id'],
      }),
    );
    await queryRunner.dropIndex('conversation_members', 'IDX_conversation_members_unread');
    await queryRunner.createIndex(
      'conversation_members',
      new TableIndex({ name: 'IDX_conversation_members_unread', columnNames: ['user_id', 'unread_count', 'muted'] }),
    );
    await queryRunner.dropColumn('outbox_events', 'private_payloads');
    await queryRunner.dropColumn('outbox_events', 'seq');
    await queryRunner.dropColumn('outbox_events', 'conversation_id');
    await queryRunner.dropColumn('conversation_members', 'visible_to_position');
    await queryRunner.dropColumn('conversation_members', 'hidden_seq');
    await queryRunner.dropColumn('conversation_members', 'uncounted');
    await queryRunner.dropColumn('conversation_members', 'is_group');
    await queryRunner.dropColumn('conversations', 'last_message_at');
  }
}
