import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EntityManager } from 'typeorm';
import type { AuthUser } from '../common/auth-user';
import type { MessageEventType } from '../contract/events';
import type { SqlExpression } from '../outbox/outbox-event-input';
import { OutboxWriter } from '../outbox/outbox-writer';
import type { Conversation } from './conversation';
import type { Message } from './message';
import { toMessageBody } from './message-reply';

/** Each member's ID of a conversation (a group has one; each side of a pair names the other). */
export type MemberConversationIds = (userId: string) => string;

/** What a message event says: the message as it is after the change, who made it, and for whom. */
export interface MessageEventInput {
  type: MessageEventType;
  conversation: Pick<Conversation, 'id' | 'type' | 'directKey'>;
  idFor: MemberConversationIds;
  /** Who made the change (the sender, or whoever recalled or deleted). */
  actor: Pick<AuthUser, 'internalId' | 'externalId'>;
  /** The sender's external ID, as the message names it. */
  senderExternalId: string;
  message: Message;
  now: number;
  eventId?: string;
  /** Recall and delete: the conversation's content version, deletion revision and last sequence after it. */
  versions?: { updated_at: number; deletion_revision: string; last_seq: string };
}

/**
 * Writes the outbox event of a message (new, recalled, deleted) with the message as each
 * recipient sees it, for sends, recalls, deletes and the service's own messages alike.
 */
@Injectable()
export class MessageEventWriter {
  constructor(private readonly outbox: OutboxWriter) {}

  /**
   * Runs inside the caller's transaction and queries only through `manager`: a pooled query
   * here would wait for a connection while this transaction holds the conversation lock that
   * the pool's other transactions are queued on.
   */
  async write(manager: EntityManager, event: MessageEventInput): Promise<string> {
    const body = toMessageBody(event.message, event.senderExternalId);
    const { type, conversation, now } = event;
    const eventId = event.eventId ?? randomUUID();
    const base = { conversationId: conversation.id, seq: event.message.seq };
    if (conversation.type === 'group') {
      // A group names the conversation alike for everyone: the one shared payload says it all.
      const conversationId = event.idFor(event.actor.internalId);
      const payload = {
        message: { ...body, conversation_id: conversationId },
        by: event.actor.externalId,
        ...event.versions,
        conversation_id: conversationId,
        unread: null,
      };
      return this.outbox.appendForConversation(manager, { type, payload, ...base }, now, eventId);
    }
    const payload = { message: body, by: event.actor.externalId, ...event.versions };
    const privatePartsSql = directPrivatePartsSql(conversation, event.idFor);
    return this.outbox.appendForConversation(manager, { type, payload, ...base, privatePartsSql }, now, eventId);
  }
}

/**
 * A one-to-one event's private parts: each member's conversation ID and unread count, as the
 * JSON `{"<user id>": {"conversation_id": ..., "unread": ...}, ...}`. The unread counts are read
 * by the statement that inserts the event, inside the transaction and after its own updates;
 * everything else is a parameter (JSON-encoded here, so no value is spliced into the SQL).
 */
export function directPrivatePartsSql(
  conversation: Pick<Conversation, 'id' | 'directKey'>,
  idFor: MemberConversationIds,
): SqlExpression {
  const userIds = (conversation.directKey ?? '').split(':');
  if (userIds.length !== 2) throw new Error(`conversation ${conversation.id} has no direct key`);
  const part =
    "CONCAT(?, ':{\"conversation_id\":', ?, ',\"unread\":', (SELECT unread_count FROM conversation_members WHERE conversation_id = ? AND user_id = ?), '}')";
  return {
    sql: `CONCAT('{', ${part}, ',', ${part}, '}')`,
    params: userIds.flatMap((userId) => [
      JSON.stringify(userId),
      JSON.stringify(idFor(userId)),
      conversation.id,
      userId,
    ]),
  };
}
