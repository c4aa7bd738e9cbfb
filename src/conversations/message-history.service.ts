import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Message } from './message';
import { MessagesRepository } from './messages.repository';
import type { SeqRange } from './visibility';

/**
 * Reading stored messages: by ID, by the sender's key, windows and search within what a member
 * can see (the caller passes the member's visible range), and the analytics rollup's read by ID.
 * Writes are ConversationStore's.
 */
@Injectable()
export class MessageHistory {
  constructor(private readonly messages: MessagesRepository) {}

  findById(id: string, manager?: EntityManager): Promise<Message | null> {
    return this.messages.findById(id, manager);
  }

  /** The messages of `ids` that belong to the conversation. */
  findInConversation(conversationId: string, ids: readonly string[]): Promise<Message[]> {
    return this.messages.findInConversation(conversationId, ids);
  }

  /** A page of the sender's own messages by ID after `afterId` (erasure: `notDeleted`; export: all). */
  listBySender(senderId: string, afterId: string | null, limit: number, notDeleted = false): Promise<Message[]> {
    return this.messages.listBySender(senderId, afterId, limit, notDeleted);
  }

  /** The sender's message with this idempotency key, if any. */
  findBySenderClientId(senderId: string, clientMessageId: string): Promise<Message | null> {
    return this.messages.findBySenderClientId(senderId, clientMessageId);
  }

  /** Up to `count` messages within `range`, the newest or the oldest first. */
  window(conversationId: string, range: SeqRange, count: number, newest: boolean): Promise<Message[]> {
    return this.messages.window(conversationId, range, count, newest);
  }

  /** Normal messages whose text contains `keyword`, newest first, before `beforeMid`. */
  search(
    conversationId: string,
    range: SeqRange,
    keyword: string,
    beforeMid: string | null,
    count: number,
  ): Promise<Message[]> {
    return this.messages.search(conversationId, range, keyword, beforeMid, count);
  }

  /** Messages sent per UTC day since `from`. */
  /** Analytics: (id, type, created_at) of up to `limit` messages after `afterId`, in ID order. */
  typesAfter(afterId: string, limit: number): Promise<Array<{ id: string; type: string; createdAt: number }>> {
    return this.messages.typesAfter(afterId, limit);
  }
}
