import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationAudienceService } from './conversation-audience.service';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationMembersRepository } from './conversation-members.repository';
import { ConversationStore } from './conversation-store.service';
import { ConversationEntity } from './conversation.entity';
import { ConversationsRepairRepository } from './conversations-repair.repository';
import { ConversationsRepairService } from './conversations-repair.service';
import { ConversationsRepository } from './conversations.repository';
import { GroupActivityReader } from './group-activity.service';
import { MessageCountersRepository } from './message-counters.repository';
import { MessageEntity } from './message.entity';
import { MessageEventWriter } from './message-event-writer';
import { MessageHistory } from './message-history.service';
import { MessagesRepository } from './messages.repository';
import { UserUnreadTotalsEntity } from './user-unread-totals.entity';

/**
 * Owns conversations, their members, the unread totals and the messages. ConversationStore is
 * the one way to change them, MessageHistory the way to read messages; the endpoints are the
 * messages and sync modules', and what a viewer sees of a conversation is
 * ConversationViewsModule's.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ConversationEntity, ConversationMemberEntity, UserUnreadTotalsEntity, MessageEntity]),
  ],
  providers: [
    ConversationsRepository,
    ConversationMembersRepository,
    MessageCountersRepository,
    MessagesRepository,
    ConversationsRepairRepository,
    MessageEventWriter,
    ConversationAudienceService,
    ConversationStore,
    MessageHistory,
    ConversationsRepairService,
    GroupActivityReader,
  ],
  exports: [ConversationStore, MessageHistory, ConversationsRepairService, GroupActivityReader],
})
export class ConversationsModule {}
