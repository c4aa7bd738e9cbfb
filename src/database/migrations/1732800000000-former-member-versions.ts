import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';

/**
 * A former member's window keeps its own calibration versions (visible_updated_at and
 * visible_deletion_revision, set with visible_to_seq), so the group's later recalls and deletes
 * no longer change the versions they see. `up` starts existing former members at the
 * conversation's current values (their client resets at most once more); `down` drops both.
 */
export class FormerMemberVersions1732800000000 implements MigrationInterface {
  name = 'FormerMemberVersions1732800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns('conversation_members', [
      new TableColumn({ name: 'visible_updated_at', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'visible_deletion_revision', type: 'bigint', isNullable: true }),
    ]);
    // One join on MySQL; SQLite has no multi-table UPDATE, so a subquery per column.
    if (queryRunner.connection.options.type === 'mysql') {
      await queryRunner.query(
        'UPDATE conversation_members m JOIN conversations c ON c.id = m.conversation_id ' +
          'SET m.visible_updated_at = c.content_updated_at, m.visible_deletion_revision = c.deletion_revision WHERE m.visible_to_seq IS NOT NULL',
      );
    } else {
      await queryRunner.query(
        'UPDATE conversation_members SET ' +
          'visible_updated_at = (SELECT c.content_updated_at FROM conversations c WHERE c.id = conversation_members.conversation_id), ' +
          'visible_deletion_revision = (SELECT c.deletion_revision FROM conversations c WHERE c.id = conversation_members.conversation_id) ' +
          'WHERE visible_to_seq IS NOT NULL',
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('conversation_members', 'visible_deletion_revision');
    await queryRunner.dropColumn('conversation_members', 'visible_updated_at');
  }
}
