import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { MessageEntity, MessageStatus } from './message.entity';
import type { SeqRange } from './visibility';
import { dialectOf } from '../database/sql-dialect';

export interface NewMessage {
  conversationId: string;
  /** The send's outbox event, decided before the insert so a retry can answer with it. */
  eventId: string;
  senderId: string;
  clientMessageId: string;
  type: string;
  content: string;
  contentHash: string;
  searchText: string | null;
  now: number;
}

export const MESSAGE_COLUMNS =
  'id, conversation_id, seq, sender_id, client_message_id, type, content, content_hash, search_text, event_id, status, created_at, updated_at';
export type MessageRow = Record<string, string | number | null>;

/** A messages row (plain SQL, for the home list's many last messages) as an entity. */
export function messageFromRow(row: MessageRow, p = ''): MessageEntity {
  return Object.assign(new MessageEntity(), {
    id: String(row[`${p}id`]),
    conversationId: String(row[`${p}conversation_id`]),
    seq: String(row[`${p}seq`]),
    senderId: String(row[`${p}sender_id`]),
    clientMessageId: String(row[`${p}client_message_id`]),
    type: String(row[`${p}type`]),
    content: String(row[`${p}content`]),
    contentHash: String(row[`${p}content_hash`]),
    searchText: row[`${p}search_text`] === null ? null : String(row[`${p}search_text`]),
    eventId: String(row[`${p}event_id`]),
    status: row[`${p}status`] as MessageStatus,
    createdAt: Number(row[`${p}created_at`]),
    updatedAt: Number(row[`${p}updated_at`]),
  });
}

// LIKE with an escape character both MySQL and SQLite accept in the same spelling.
function likePattern(keyword: string): string {
  return `%${keyword.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

@Injectable()
export class MessagesRepository {
  constructor(@InjectRepository(MessageEntity) private readonly messages: Repository<MessageEntity>) {}

  /**
   * A page of the sender's messages in ID order after `afterId` (index (sender_id, id)), of any
   * status or only those not yet deleted: erasure tombstones them and the export lists them
   * without loading them all.
   */
  listBySender(senderId: string, afterId: string | null, limit: number, notDeleted: boolean): Promise<MessageEntity[]> {
    const query = this.messages
      .createQueryBuilder('m')
      .where('m.sender_id = :senderId', { senderId })
      .orderBy('m.id', 'ASC')
      .limit(limit);
    if (afterId !== null) query.andWhere('m.id > :afterId', { afterId });
    if (notDeleted) query.andWhere('m.status <> :deleted', { deleted: 'deleted' });
    return query.getMany();
  }

  findInConversation(conversationId: string, ids: readonly string[]): Promise<MessageEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.messages.find({
      select: { id: true, conversationId: true, seq: true, status: true },
      where: { conversationId, id: In([...ids]) },
    });
  }

  /**
   * The messages among `ids` that belong to the conversation, their rows locked in ID order
   * (MySQL): a change of many messages takes every message lock before the member and
   * conversation locks that each tombstone then takes, so it cannot deadlock with a single recall.
   */
  async lockInConversation(
    manager: EntityManager,
    conversationId: string,
    ids: readonly string[],
  ): Promise<MessageEntity[]> {
    if (ids.length === 0) return [];
    const rows = (await manager.query(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? AND id IN (${ids.map(() => '?').join(', ')}) ORDER BY id${dialectOf(manager).forUpdate}`,
      [conversationId, ...ids],
    )) as MessageRow[];
    return rows.map((row) => messageFromRow(row));
  }

  findById(id: string, manager?: EntityManager): Promise<MessageEntity | null> {
    return (manager ? manager.getRepository(MessageEntity) : this.messages).findOneBy({ id });
  }

  findBySenderClientId(senderId: string, clientMessageId: string): Promise<MessageEntity | null> {
    return this.messages.findOneBy({ senderId, clientMessageId });
  }

  /**
   * Inserts a message at `seq`, taken by ConversationsRepository.allocateNextSeq in the same
   * transaction: the allocation locks the conversation row until commit, so concurrent senders
   * queue for it, and a failed insert rolls the allocation back (no gap, no duplicate).
   */
  async insertInTransaction(manager: EntityManager, message: NewMessage, seq: string): Promise<MessageEntity> {
    const entity = manager.create(MessageEntity, {
      conversationId: message.conversationId,
      seq,
      senderId: message.senderId,
      clientMessageId: message.clientMessageId,
      type: message.type,
      content: message.content,
      contentHash: message.contentHash,
      searchText: message.searchText,
      eventId: message.eventId,
      status: 'normal',
      createdAt: message.now,
      updatedAt: message.now,
    });
    entity.id = await insertRow(manager, MessageEntity, entity);
    return entity;
  }

  /**
   * Turns a message in state `from` into a tombstone (content removed, mid and sequence kept).
   * Returns false when it was not in that state, so a concurrent second change does nothing.
   */
  async tombstone(
    manager: EntityManager,
    id: string,
    status: Exclude<MessageStatus, 'normal'>,
    from: MessageStatus,
    now: number,
  ): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(MessageEntity)
      .set({ status, content: '', searchText: null, updatedAt: now })
      .where('id = :id AND status = :from', { id, from })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Unread for `userId` after `afterSeq`: messages of others, not tombstones, up to `upTo`. */
  async countUnread(
    manager: EntityManager,
    conversationId: string,
    afterSeq: string,
    upTo: string,
    userId: string,
  ): Promise<number> {
    const row = await manager
      .createQueryBuilder(MessageEntity, 'm')
      .select('COUNT(*)', 'n')
      .where(
        'm.conversation_id = :conversationId AND m.seq > :afterSeq AND m.seq <= :upTo AND m.sender_id <> :userId AND m.status = :status',
        {
          conversationId,
          afterSeq,
          upTo,
          userId,
          status: 'normal',
        },
      )
      .getRawOne<{ n: string | number }>();
    return Number(row?.n ?? 0);
  }

  /** Up to `count` messages of the range, the newest ones when `newest`, in sequence order. */
  async window(conversationId: string, range: SeqRange, count: number, newest: boolean): Promise<MessageEntity[]> {
    if (BigInt(range.to) <= BigInt(range.from)) return [];
    const rows = await this.messages
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId AND m.seq > :from AND m.seq <= :to', {
        conversationId,
        from: range.from,
        to: range.to,
      })
      .orderBy('m.seq', newest ? 'DESC' : 'ASC')
      .limit(count)
      .getMany();
    return newest ? rows.reverse() : rows;
  }

  /** Normal messages whose search text contains `keyword`, newest first, before `beforeMid`. */
  search(
    conversationId: string,
    range: SeqRange,
    keyword: string,
    beforeMid: string | null,
    count: number,
  ): Promise<MessageEntity[]> {
    const query = this.messages
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId AND m.seq > :from AND m.seq <= :to AND m.status = :status', {
        conversationId,
        from: range.from,
        to: range.to,
        status: 'normal',
      })
      .andWhere("m.search_text LIKE :pattern ESCAPE '!'", { pattern: likePattern(keyword) });
    if (beforeMid) query.andWhere('m.id < :beforeMid', { beforeMid });
    return query.orderBy('m.id', 'DESC').limit(count).getMany();
  }

  /** The analytics rollup's read: (id, type, created_at) of messages by ID after `afterId` (the primary key). */
  async typesAfter(afterId: string, limit: number): Promise<Array<{ id: string; type: string; createdAt: number }>> {
    const rows = (await this.messages.query(
      'SELECT id, type, created_at FROM messages WHERE id > ? ORDER BY id LIMIT ?',
      [afterId, limit],
    )) as Array<{ id: string | number; type: string; created_at: string | number }>;
    return rows.map((row) => ({ id: String(row.id), type: row.type, createdAt: Number(row.created_at) }));
  }
}
