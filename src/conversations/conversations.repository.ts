import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { ConversationEntity } from './conversation.entity';
import { directKey } from './conversation-id';
import { ConversationMembersRepository } from './conversation-members.repository';
import { CONVERSATION_COLUMNS, Row, toConversation } from './conversation-rows';
import { dialectOf } from '../database/sql-dialect';
import type { GroupActivity } from './group-activity';

/**
 * Conversation rows: their lookup and their creation. Member rows are
 * ConversationMembersRepository's; a conversation as one viewer sees it is
 * ViewerConversationsRepository's.
 */
@Injectable()
export class ConversationsRepository {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    private readonly members: ConversationMembersRepository,
  ) {}

  findById(id: string, manager?: EntityManager): Promise<ConversationEntity | null> {
    return (manager ? manager.getRepository(ConversationEntity) : this.conversations).findOneBy({ id });
  }

  async findByIds(ids: string[]): Promise<ConversationEntity[]> {
    if (!ids.length) return [];
    const rows = (await this.conversations.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    )) as Row[];
    return rows.map((row) => toConversation(row));
  }

  async findByDirectKey(key: string): Promise<ConversationEntity | null> {
    const rows = (await this.conversations.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE direct_key = ?`,
      [key],
    )) as Row[];
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async findByGroupId(groupId: string, manager?: EntityManager): Promise<ConversationEntity | null> {
    const rows = (await (manager ?? this.conversations.manager).query(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE group_id = ?`,
      [groupId],
    )) as Row[];
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async insertConversation(
    manager: EntityManager,
    values: { type: 'direct'; directKey: string } | { type: 'group'; groupId: string },
    now: number,
  ): Promise<ConversationEntity> {
    const entity = manager.create(ConversationEntity, {
      type: values.type,
      directKey: values.type === 'direct' ? values.directKey : null,
      groupId: values.type === 'group' ? values.groupId : null,
      lastSeq: '0',
      contentUpdatedAt: now,
      lastMessageAt: 0,
      deletionRevision: '0',
      createdAt: now,
    });
    const result = await manager.insert(ConversationEntity, entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  /**
   * The one-to-one conversation of two users, created with both members on first need.
   * Concurrent callers converge on one row through the unique direct key.
   */
  async ensureDirect(manager: EntityManager, userA: string, userB: string, now: number): Promise<ConversationEntity> {
    const key = directKey(userA, userB);
    let conversation = await manager.findOneBy(ConversationEntity, { directKey: key });
    if (!conversation) {
      try {
        conversation = await this.insertConversation(manager, { type: 'direct', directKey: key }, now);
      } catch (error) {
        if (!isUniqueViolation(error, 'direct_key')) throw error;
        // A locking read sees the winner's committed row; a plain read would use this
        // transaction's older MySQL snapshot and miss it.
        const rows = (await manager.query(
          `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE direct_key = ?${dialectOf(manager).forShare}`,
          [key],
        )) as Row[];
        if (!rows[0]) throw error;
        conversation = toConversation(rows[0]);
      }
    }
    await this.members.ensureDirectMembers(manager, conversation, userA, userB, now);
    return conversation;
  }

  /**
   * Group conversations by last message, newest first, then group ID descending: a range of
   * IDX_conversations_type_last_message (type, last_message_at, group_id), read backwards, so a
   * page never sorts the table. Never-messaged groups (0) fall at the end of the same order.
   */
  async groupsByLastMessage(after: GroupActivity | null, limit: number): Promise<GroupActivity[]> {
    // The leading bound is redundant but keeps SQLite on an index range instead of a multi-index OR.
    const keyset = after
      ? ' AND last_message_at <= ? AND (last_message_at < ? OR (last_message_at = ? AND group_id < ?))'
      : '';
    const params = after ? [after.lastMessageAt, after.lastMessageAt, after.lastMessageAt, after.groupId] : [];
    const rows = (await this.conversations.query(
      `SELECT group_id, last_message_at FROM conversations WHERE type = 'group'${keyset}
        ORDER BY last_message_at DESC, group_id DESC LIMIT ?`,
      [...params, limit],
    )) as Row[];
    return rows.map((row) => ({ groupId: String(row.group_id), lastMessageAt: Number(row.last_message_at) }));
  }

  async lastMessageAtOfGroups(groupIds: readonly string[]): Promise<Map<string, number>> {
    if (!groupIds.length) return new Map();
    const rows = (await this.conversations.query(
      `SELECT group_id, last_message_at FROM conversations WHERE group_id IN (${groupIds.map(() => '?').join(', ')})`,
      [...groupIds],
    )) as Row[];
    return new Map(rows.map((row) => [String(row.group_id), Number(row.last_message_at)]));
  }

  /**
   * Takes the next sequence of a conversation and raises its content version and last
   * message time, in one
   * statement that also locks the conversation row until commit (MySQL hands the new value
   * back through LAST_INSERT_ID, SQLite through RETURNING).
   */
  async allocateNextSeq(manager: EntityManager, conversationId: string, now: number): Promise<string> {
    const version =
      'content_updated_at = CASE WHEN content_updated_at >= ? THEN content_updated_at + 1 ELSE ? END, last_message_at = ?';
    if (!dialectOf(manager).returning) {
      const result = (await manager.query(
        `UPDATE conversations SET last_seq = LAST_INSERT_ID(last_seq + 1), ${version} WHERE id = ?`,
        [now, now, now, conversationId],
      )) as {
        insertId: number | string;
        affectedRows: number;
      };
      if (result.affectedRows !== 1) throw new Error(`conversation ${conversationId} vanished`);
      return String(result.insertId);
    }
    const rows = (await manager.query(
      `UPDATE conversations SET last_seq = last_seq + 1, ${version} WHERE id = ? RETURNING last_seq`,
      [now, now, now, conversationId],
    )) as Array<{
      last_seq: number | string;
    }>;
    if (!rows[0]) throw new Error(`conversation ${conversationId} vanished`);
    return String(rows[0].last_seq);
  }
}
