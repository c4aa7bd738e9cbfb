import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex } from 'typeorm';

const bigint = (name: string): TableColumnOptions => ({ name, type: 'bigint' });

/** A links table of the given columns and unique key (all numbers, so no character set to set). */
async function createLinks(
  queryRunner: QueryRunner,
  name: string,
  columns: string[],
  unique: { name: string; columnNames: string[] },
): Promise<void> {
  const mysql = queryRunner.connection.options.type === 'mysql';
  // SQLite's auto-increment key must be INTEGER PRIMARY KEY.
  const id: TableColumnOptions = {
    name: 'id',
    type: mysql ? 'bigint' : 'integer',
    isPrimary: true,
    isGenerated: true,
    generationStrategy: 'increment',
  };
  await queryRunner.createTable(
    new Table({
      name,
      columns: [id, ...columns.map(bigint)],
      indices: [new TableIndex({ ...unique, isUnique: true })],
      ...(mysql ? { engine: 'InnoDB' } : {}),
    }),
  );
}

/**
 * A media link names the message that carries the media (conversation and sequence), not only
 * the conversation: who may download it is who may see that message, so a member who joined
 * later, or left before it was sent, may not. The table is rebuilt with one row per message:
 * `up` finds each linked conversation's messages that carry the media (the stored content is
 * `{"media_id":"<id>",...}`, written by JSON.stringify) and drops links whose messages were all
 * recalled or deleted; `down` folds the rows back to one per conversation.
 */
export class MediaMessageLinks1732700000000 implements MigrationInterface {
  name = 'MediaMessageLinks1732700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await createLinks(queryRunner, 'media_links_by_message', ['media_id', 'conversation_id', 'seq', 'created_at'], {
      name: 'UQ_media_links_media_message',
      columnNames: ['media_id', 'conversation_id', 'seq'],
    });
    const pattern =
      queryRunner.connection.options.type === 'mysql'
        ? `CONCAT('%"media_id":"', l.media_id, '"%')`
        : `'%"media_id":"' || l.media_id || '"%'`;
    await queryRunner.query(
      'INSERT INTO media_links_by_message (media_id, conversation_id, seq, created_at) ' +
        'SELECT l.media_id, l.conversation_id, msg.seq, msg.created_at FROM media_links l JOIN messages msg ON msg.conversation_id = l.conversation_id ' +
        `AND msg.type IN ('image', 'file') AND msg.status = 'normal' AND msg.content LIKE ${pattern} ORDER BY l.id, msg.seq`,
    );
    await queryRunner.dropTable('media_links');
    await queryRunner.renameTable('media_links_by_message', 'media_links');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await createLinks(queryRunner, 'media_links_by_conversation', ['media_id', 'conversation_id', 'created_at'], {
      name: 'UQ_media_links_media_conversation',
      columnNames: ['media_id', 'conversation_id'],
    });
    await queryRunner.query(
      'INSERT INTO media_links_by_conversation (media_id, conversation_id, created_at) ' +
        'SELECT media_id, conversation_id, MIN(created_at) FROM media_links GROUP BY media_id, conversation_id ORDER BY MIN(id)',
    );
    await queryRunner.dropTable('media_links');
    await queryRunner.renameTable('media_links_by_conversation', 'media_links');
  }
}
