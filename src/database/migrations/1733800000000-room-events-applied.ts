import { MigrationInterface, QueryRunner, TableColumn, TableIndex } from 'typeorm';

/**
 * A room event is acknowledged once stored and applied to the calls afterwards; `applied_at`
 * says when it was (null: still to apply). Events stored before this were applied before their
 * acknowledgement, so they count as applied at their receipt. The index finds the events still
 * to apply. `down` drops both.
 */
export class RoomEventsApplied1733800000000 implements MigrationInterface {
  name = 'RoomEventsApplied1733800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'rtc_room_events',
      new TableColumn({ name: 'applied_at', type: 'bigint', isNullable: true }),
    );
    await queryRunner.query('UPDATE rtc_room_events SET applied_at = received_at');
    await queryRunner.createIndex(
      'rtc_room_events',
      new TableIndex({ name: 'IDX_rtc_room_events_pending', columnNames: ['applied_at', 'id'] }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('rtc_room_events', 'IDX_rtc_room_events_pending');
    await queryRunner.dropColumn('rtc_room_events', 'applied_at');
  }
}
