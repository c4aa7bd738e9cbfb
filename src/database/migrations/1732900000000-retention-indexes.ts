import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * Retention deletes the oldest rows in small batches, found by their time: client errors by
 * last_seen_at, idempotency records by created_at, room events by received_at. A recall or
 * delete drops its message's media links by (conversation_id, seq). Without these indexes each
 * of those statements would scan (and on MySQL lock) the whole table. `down` drops them.
 */
const INDEXES: Array<[table: string, name: string, columns: string[]]> = [
  ['client_errors', 'IDX_client_errors_last_seen_at', ['last_seen_at']],
  ['client_error_submissions', 'IDX_client_error_submissions_created_at', ['created_at']],
  ['rtc_room_events', 'IDX_rtc_room_events_received_at', ['received_at']],
  ['media_links', 'IDX_media_links_message', ['conversation_id', 'seq']],
];

export class RetentionIndexes1732900000000 implements MigrationInterface {
  name = 'RetentionIndexes1732900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name, columnNames] of INDEXES)
      await queryRunner.createIndex(table, new TableIndex({ name, columnNames }));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name] of [...INDEXES].reverse()) await queryRunner.dropIndex(table, name);
  }
}
