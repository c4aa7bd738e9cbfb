import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/**
 * Delivery positions in commit order (see OutboxSequencer). An event's row ID is allocated when
 * its transaction inserts it, not when it commits, so a reader that resumed after ID 10 could
 * later miss ID 9 committing late. From now on every event gets a second number, `position`,
 * assigned only after its transaction committed, by one sequencer at a time, in increasing
 * order; delivery and resume use `position`.
 *
 * - outbox_events.position: NULL until sequenced; unique. Existing events (all committed) take
 *   their ID, and the sequence continues after the highest.
 * - outbox_recipients: the column that held the event's row ID is renamed `event_row_id`; a
 *   new `position` copies the event's once it is sequenced (the per-user resume index).
 * - outbox_sequence: one row, the last position assigned (the head every instance reads).
 * - outbox_events(created_at): pruning finds events older than the resume backlog by time;
 *   row order is no guide (a skewed clock on one instance would stop a scan by ID).
 *
 * `down` restores the earlier columns (positions are dropped; row IDs stay).
 */
export class OutboxDeliveryPositions1733000000000 implements MigrationInterface {
  name = 'OutboxDeliveryPositions1733000000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.options.type !== 'better-sqlite3';
    await queryRunner.addColumn(
      'outbox_events',
      new TableColumn({ name: 'position', type: 'bigint', isNullable: true }),
    );
    await queryRunner.query('UPDATE outbox_events SET position = id');
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'UQ_outbox_events_position', columnNames: ['position'], isUnique: true }),
    );
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'IDX_outbox_events_conversation_position', columnNames: ['conversation_id', 'position'] }),
    );
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'IDX_outbox_events_created_at', columnNames: ['created_at'] }),
    );

    await queryRunner.dropIndex('outbox_recipients', 'IDX_outbox_recipients_user_position');
    await queryRunner.renameColumn('outbox_recipients', 'position', 'event_row_id');
    await queryRunner.addColumn(
      'outbox_recipients',
      new TableColumn({ name: 'position', type: 'bigint', isNullable: true }),
    );
    await queryRunner.query('UPDATE outbox_recipients SET position = event_row_id');
    await queryRunner.createIndex(
      'outbox_recipients',
      new TableIndex({ name: 'IDX_outbox_recipients_user_position', columnNames: ['user_id', 'position'] }),
    );
    await queryRunner.createIndex(
      'outbox_recipients',
      new TableIndex({ name: 'IDX_outbox_recipients_event_row', columnNames: ['event_row_id'] }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'outbox_sequence',
        columns: [
          { name: 'id', type: mysql ? 'int' : 'integer', isPrimary: true },
          { name: 'last_position', type: 'bigint' },
        ],
      }),
    );
    const [row] = (await queryRunner.query('SELECT MAX(id) AS last FROM outbox_events')) as Array<{
      last: string | number | null;
    }>;
    await queryRunner.query('INSERT INTO outbox_sequence (id, last_position) VALUES (1, ?)', [String(row?.last ?? 0)]);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('outbox_sequence');
    await queryRunner.dropIndex('outbox_recipients', 'IDX_outbox_recipients_event_row');
    await queryRunner.dropIndex('outbox_recipients', 'IDX_outbox_recipients_user_position');
    await queryRunner.dropColumn('outbox_recipients', 'position');
    await queryRunner.renameColumn('outbox_recipients', 'event_row_id', 'position');
    await queryRunner.createIndex(
      'outbox_recipients',
      new TableIndex({ name: 'IDX_outbox_recipients_user_position', columnNames: ['user_id', 'position'] }),
    );
    await queryRunner.dropIndex('outbox_events', 'IDX_outbox_events_created_at');
    await queryRunner.dropIndex('outbox_events', 'IDX_outbox_events_conversation_position');
    await queryRunner.dropIndex('outbox_events', 'UQ_outbox_events_position');
    await queryRunner.dropColumn('outbox_events', 'position');
  }
}
