import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { MessageStoreModule } from '../messages/message-store.module';
import { SyncController } from './sync.controller';
import { SyncService } from './sync.service';

/** The home list, the unread badge and per-member conversation settings. */
@Module({
  imports: [ImTokenModule, ConversationsModule, MessageStoreModule],
  controllers: [SyncController],
  providers: [SyncService],
})
export class SyncModule {}
