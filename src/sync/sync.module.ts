import { Module } from '@nestjs/common';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { UsersModule } from '../users/users.module';
import { SyncController } from './sync.controller';
import { SyncService } from './sync.service';

/** The home list, the unread badge and per-member conversation settings. */
@Module({
  imports: [ImTokenModule, ConversationsModule, ConversationViewsModule, UsersModule],
  controllers: [SyncController],
  providers: [SyncService],
  // The server API lists a user's conversations as the user's own sync does.
  exports: [SyncService],
})
export class SyncModule {}
