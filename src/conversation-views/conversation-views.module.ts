import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { GroupsModule } from '../groups/groups.module';
import { UsersModule } from '../users/users.module';
import { ConversationAccessService } from './conversation-access.service';
import { ConversationDescriber } from './conversation-describer.service';
import { HomeListService } from './home-list.service';
import { ViewerConversationsRepository } from './viewer-conversations.repository';

/**
 * Conversations as one viewer sees them: the resolution of a conversation ID (who the peer or
 * group is, the viewer's membership, and whether they may see it), names and avatars, and the
 * home list. It reads across the conversations, users and groups modules and owns no table;
 * its read models join their tables in one statement each (viewer-conversations.repository.ts)
 * and never write.
 */
@Module({
  imports: [ConversationsModule, GroupsModule, UsersModule],
  providers: [ViewerConversationsRepository, ConversationAccessService, ConversationDescriber, HomeListService],
  exports: [ConversationAccessService, ConversationDescriber, HomeListService],
})
export class ConversationViewsModule {}
