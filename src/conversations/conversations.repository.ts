import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';

@Injectable()
export class ConversationsRepository {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    @InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>,
  ) {}

  findByDirectKey(key: string): Promise<ConversationEntity | null> {
    return this.conversations.findOneBy({ directKey: key });
  }

  findByGroupId(groupId: string): Promise<ConversationEntity | null> {
    return this.conversations.findOneBy({ groupId });
  }

  findMember(conversationId: string, userId: string): Promise<ConversationMemberEntity | null> {
    return this.members.findOneBy({ conversationId, userId });
  }

  async insertConversation(manager: EntityManager, values: { type: 'direct'; directKey: string } | { type: 'group'; groupId: string }, now: number): Promise<ConversationEntity> {
    const entity = manager.create(ConversationEntity, {
      type: values.type,
      directKey: values.type === 'direct' ? values.directKey : null,
      groupId: values.type === 'group' ? values.groupId : null,
      lastSeq: '0',
      lastMessageId: null,
      contentUpdatedAt: now,
      deletionRevision: '0',
      createdAt: now,
    });
    const result = await manager.insert(ConversationEntity, entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  /** Adds a member who sees messages after `visibleFromSeq`. */
  async insertMember(manager: EntityManager, conversationId: string, userId: string, visibleFromSeq: string, now: number): Promise<void> {
    await manager.insert(ConversationMemberEntity, {
      conversationId,
      userId,
      readSeq: visibleFromSeq,
      visibleFromSeq,
      visibleToSeq: null,
      pinned: false,
      muted: false,
      hidden: false,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** A member who leaves keeps read access up to the last sequence they could see. */
  async closeMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    const conversation = await manager.findOneByOrFail(ConversationEntity, { id: conversationId });
    await manager.update(ConversationMemberEntity, { conversationId, userId }, { visibleToSeq: conversation.lastSeq, updatedAt: now });
  }
}
