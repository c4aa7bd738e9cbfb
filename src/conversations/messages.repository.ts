import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { ConversationEntity } from './conversation.entity';
import { MessageEntity } from './message.entity';

export interface NewMessage {
  conversationId: string;
  senderId: string;
  clientMessageId: string;
  type: string;
  content: string;
  now: number;
}

@Injectable()
export class MessagesRepository {
  constructor(@InjectRepository(MessageEntity) private readonly messages: Repository<MessageEntity>) {}

  findInConversation(conversationId: string, ids: readonly string[]): Promise<MessageEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.messages.find({ select: { id: true, conversationId: true, seq: true, status: true }, where: { conversationId, id: In([...ids]) } });
  }

  /**
   * Appends a message with the next sequence of its conversation. Must run inside a
   * transaction: the increment locks the conversation row until commit, so concurrent senders
   * queue for it, and a failed insert rolls the increment back (no gap).
   */
  async appendInTransaction(manager: EntityManager, message: NewMessage): Promise<MessageEntity> {
    await manager
      .createQueryBuilder()
      .update(ConversationEntity)
      .set({ lastSeq: () => 'last_seq + 1', contentUpdatedAt: message.now })
      .where('id = :id', { id: message.conversationId })
      .execute();
    const { lastSeq } = await manager.findOneOrFail(ConversationEntity, { select: { id: true, lastSeq: true }, where: { id: message.conversationId } });
    const entity = manager.create(MessageEntity, {
      conversationId: message.conversationId,
      seq: String(lastSeq),
      senderId: message.senderId,
      clientMessageId: message.clientMessageId,
      type: message.type,
      content: message.content,
      status: 'normal',
      createdAt: message.now,
      updatedAt: message.now,
    });
    const result = await manager.insert(MessageEntity, entity);
    entity.id = String(result.identifiers[0].id);
    await manager.update(ConversationEntity, { id: message.conversationId }, { lastMessageId: entity.id });
    return entity;
  }
}
