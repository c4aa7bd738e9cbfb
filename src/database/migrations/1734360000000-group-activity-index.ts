import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The operator console's Groups list sorts by last activity (the group conversation's
 * last_message_at, newest first, then group ID) and pages by that key; without this index every
 * page would sort the conversations table. `type` leads so the one-to-one conversations are
 * outside the range read. Every send updates last_message_at, so the send path maintains this
 * index: docs/benchmark.md has its measured cost. `down` drops it.
 */
export class GroupActivityIndex1734360000000 implements MigrationInterface {
  name = 'GroupActivityIndex1734360000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'conversations',
      new TableIndex({
        name: 'IDX_conversations_type_last_message',
        columnNames: ['type', 'last_message_at', 'group_id'],
      }),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('conversations', 'IDX_conversations_type_last_message');
  }
}
