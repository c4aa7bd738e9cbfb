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
import { MessageStoreModule } from '../messages/message-store.module';
import { ConversationsRepairRepository } from './conversations-repair.repository';
import { MessageCountersRepository } from './message-counters.repository';
import { ViewerConversationsRepository } from './viewer-conversations.repository';
import { UserUnreadTotalsEntity } from './user-unread-totals.entity';

/** Owns conversations and their members; their endpoints are the messages and sync modules'. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ConversationEntity, ConversationMemberEntity, UserUnreadTotalsEntity]),
    MessageStoreModule,
    UsersModule,
    GroupsModule,
  ],
  providers: [
    ConversationsRepository,
    ConversationMembersRepository,
    MessageCountersRepository,
    ViewerConversationsRepository,
    ConversationsRepairRepository,
    ConversationAccessService,
    ConversationDescriber,
    ConversationsRepairService,
  ],
  exports: [
    ConversationsRepository,
    ConversationMembersRepository,
    MessageCountersRepository,
    ViewerConversationsRepository,
    ConversationAccessService,
    ConversationDescriber,
    ConversationsRepairService,
    UsersModule,
    GroupsModule,
  ],
})
export class ConversationsModule {}
