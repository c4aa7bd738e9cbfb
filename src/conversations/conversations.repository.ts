import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { directKey } from './conversation-id';

/**
 * Conversations and their members. Membership changes (join, leave, rejoin) go through the
 * methods here so that visibility, read position and unread stay consistent.
 */
@Injectable()
export class ConversationsRepository {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    @InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>,
  ) {}

  findById(id: string, manager?: EntityManager): Promise<ConversationEntity | null> {
    return (manager ? manager.getRepository(ConversationEntity) : this.conversations).findOneBy({ id });
  }

  findByIds(ids: string[]): Promise<ConversationEntity[]> {
    return ids.length ? this.conversations.findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  findByDirectKey(key: string): Promise<ConversationEntity | null> {
    return this.conversations.findOneBy({ directKey: key });
  }

  findByGroupId(groupId: string, manager?: EntityManager): Promise<ConversationEntity | null> {
    return (manager ? manager.getRepository(ConversationEntity) : this.conversations).findOneBy({ groupId });
  }

  findMember(conversationId: string, userId: string, manager?: EntityManager): Promise<ConversationMemberEntity | null> {
    return (manager ? manager.getRepository(ConversationMemberEntity) : this.members).findOneBy({ conversationId, userId });
  }

  /** Members who currently receive the conversation's messages. */
  findCurrentMembers(conversationId: string, manager?: EntityManager): Promise<ConversationMemberEntity[]> {
    return (manager ? manager.getRepository(ConversationMemberEntity) : this.members).findBy({ conversationId, visibleToSeq: IsNull() });
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
        conversation = await manager.findOneByOrFail(ConversationEntity, { directKey: key });
      }
    }
    for (const userId of [userA, userB]) {
      if (!(await this.findMember(conversation.id, userId, manager))) await this.addMember(manager, conversation, userId, now, '0');
    }
    return conversation;
  }

  /**
   * Opens membership: a new member sees messages after the current last sequence; a former
   * member rejoins the same way (history of the time away is not shown).
   */
  async openMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    const conversation = await manager.findOneByOrFail(ConversationEntity, { id: conversationId });
    const existing = await this.findMember(conversationId, userId, manager);
    if (!existing) return this.addMember(manager, conversation, userId, now, conversation.lastSeq);
    if (existing.visibleToSeq === null) return;
    await manager.update(
      ConversationMemberEntity,
      { id: existing.id },
      { visibleFromSeq: conversation.lastSeq, visibleToSeq: null, readSeq: conversation.lastSeq, unreadCount: 0, hidden: false, lastActivityAt: now, updatedAt: now },
    );
  }

  /** Closes membership: the member keeps read access to what was sent before, and nothing after. */
  async closeMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    const conversation = await manager.findOneByOrFail(ConversationEntity, { id: conversationId });
    await manager.update(ConversationMemberEntity, { conversationId, userId, visibleToSeq: IsNull() }, { visibleToSeq: conversation.lastSeq, updatedAt: now });
  }

  private async addMember(manager: EntityManager, conversation: ConversationEntity, userId: string, now: number, visibleFromSeq: string): Promise<void> {
    await manager.insert(ConversationMemberEntity, {
      conversationId: conversation.id,
      userId,
      readSeq: visibleFromSeq,
      visibleFromSeq,
      visibleToSeq: null,
      unreadCount: 0,
      lastActivityAt: now,
      pinned: false,
      muted: false,
      hidden: false,
      createdAt: now,
      updatedAt: now,
    });
  }
}
