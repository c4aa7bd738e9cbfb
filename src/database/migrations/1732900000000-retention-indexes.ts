import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Retention deletes the oldest rows in small batches, found by their time: client errors by
 * last_seen_at, idempotency records by created_at, room events by received_at. Without these
 * indexes each batch would scan the whole table. `down` drops them.
 */
const INDEXES: Array<[table: string, name: string, column: string]> = [
  ['client_errors', 'IDX_client_errors_last_seen_at', 'last_seen_at'],
  ['client_error_submissions', 'IDX_client_error_submissions_created_at', 'created_at'],
  ['rtc_room_events', 'IDX_rtc_room_events_received_at', 'received_at'],
];

export class RetentionIndexes1732900000000 implements MigrationInterface {
  name = 'RetentionIndexes1732900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name, column] of INDEXES) await queryRunner.createIndex(table, new TableIndex({ name, columnNames: [column] }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name] of [...INDEXES].reverse()) await queryRunner.dropIndex(table, name);
  }
}
