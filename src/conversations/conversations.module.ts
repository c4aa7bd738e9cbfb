import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GroupsModule } from '../groups/groups.module';
import { UsersModule } from '../users/users.module';
import { ConversationAccessService } from './conversation-access.service';
import { ConversationDescriber } from './conversation-describer.service';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationMembersRepository } from './conversation-members.repository';
import { ConversationEntity } from './conversation.entity';
import { ConversationsRepairService } from './conversations-repair.service';
import { ConversationsRepository } from './conversations.repository';
import { MessageEntity } from './message.entity';
import { MessagesRepository } from './messages.repository';
import { UserConversationsRepository } from './user-conversations.repository';
import { UserUnreadTotalsEntity } from './user-unread-totals.entity';

/** Owns conversations, their members and their messages; their endpoints are the messages and sync modules'. */
@Module({
  imports: [TypeOrmModule.forFeature([ConversationEntity, ConversationMemberEntity, MessageEntity, UserUnreadTotalsEntity]), UsersModule, GroupsModule],
  providers: [ConversationsRepository, ConversationMembersRepository, UserConversationsRepository, MessagesRepository, ConversationAccessService, ConversationDescriber, ConversationsRepairService],
  exports: [ConversationsRepository, ConversationMembersRepository, UserConversationsRepository, MessagesRepository, ConversationAccessService, ConversationDescriber, ConversationsRepairService, UsersModule, GroupsModule],
})
export class ConversationsModule {}
