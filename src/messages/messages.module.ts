import { Module } from '@nestjs/common';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { FriendsModule } from '../friends/friends.module';
import { GroupsModule } from '../groups/groups.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { MediaModule } from '../media/media.module';
import { UsersModule } from '../users/users.module';
import { BeforeSendHook } from './before-send-hook';
import { HostMessagingService } from './host-messaging.service';
import { MessageChangesService } from './message-changes.service';
import { MessageReadsService } from './message-reads.service';
import { MessageWindowService } from './message-window.service';
import { MessagesController } from './messages.controller';
import { MessagingService } from './messaging.service';

/**
 * Messages: the rules of sending, recalling, deleting and reading, and their endpoints. The
 * messages are stored through ConversationStore (conversations module).
 */
@Module({
  imports: [
    ImTokenModule,
    ConversationsModule,
    ConversationViewsModule,
    UsersModule,
    FriendsModule,
    MediaModule,
    GroupsModule,
  ],
  controllers: [MessagesController],
  providers: [
    MessagingService,
    BeforeSendHook,
    MessageChangesService,
    MessageReadsService,
    MessageWindowService,
    HostMessagingService,
  ],
  // HostMessagingService: the server API's sends and notices.
  exports: [MessagingService, HostMessagingService],
})
export class MessagesModule {}
