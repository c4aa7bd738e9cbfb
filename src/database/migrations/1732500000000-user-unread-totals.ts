import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * The one-to-one unread aggregate is kept per user (user_unread_totals) instead of summed on
 * every sync: for a user with many unread one-to-one conversations the sum read one index entry
 * per conversation, the largest single cost of sync. `up` fills it from the member rows; `down`
 * drops it (the member rows still hold every count).
 */
export class UserUnreadTotals1732500000000 implements MigrationInterface {
  name = 'UserUnreadTotals1732500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'user_unread_totals',
        columns: [
          { name: 'user_id', type: 'bigint', isPrimary: true },
          { name: 'direct_unread', type: 'bigint', default: 0 },
          { name: 'direct_unread_unmuted', type: 'bigint', default: 0 },
        ],
      }),
    );
    // Every user with a one-to-one conversation gets a row, also at 0: the send path only updates.
    await queryRunner.query(
      'INSERT INTO user_unread_totals (user_id, direct_unread, direct_unread_unmuted) ' +
        'SELECT user_id, SUM(unread_count), SUM(CASE WHEN muted = 0 THEN unread_count ELSE 0 END) FROM conversation_members WHERE is_group = 0 GROUP BY user_id',
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('user_unread_totals');
  }
}
