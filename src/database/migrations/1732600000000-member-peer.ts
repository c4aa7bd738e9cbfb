import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * A one-to-one member row names its peer (peer_id; NULL on group rows). The home list named the
 * peer by joining the conversation's other member row for every listed conversation; the two
 * members of a one-to-one conversation never change, so the peer is stored once, when the row
 * is created. `up` fills it from the other member row; `down` drops the column.
 */
export class MemberPeer1732600000000 implements MigrationInterface {
  name = 'MemberPeer1732600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      'conversation_members',
      new TableColumn({ name: 'peer_id', type: 'bigint', isNullable: true }),
    );
    // MySQL refuses a subquery on the table being updated (error 1093); SQLite has no multi-table UPDATE.
    if (queryRunner.connection.options.type === 'mysql') {
      await queryRunner.query(
        'UPDATE conversation_members m JOIN conversation_members o ON o.conversation_id = m.conversation_id AND o.user_id <> m.user_id ' +
          'SET m.peer_id = o.user_id WHERE m.is_group = 0',
      );
    } else {
      await queryRunner.query(
        'UPDATE conversation_members SET peer_id = (SELECT o.user_id FROM conversation_members o ' +
          'WHERE o.conversation_id = conversation_members.conversation_id AND o.user_id <> conversation_members.user_id) WHERE is_group = 0',
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('conversation_members', 'peer_id');
  }
}
