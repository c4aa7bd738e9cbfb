import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { FriendsModule } from '../friends/friends.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { MediaModule } from '../media/media.module';
import { MessageChangesService } from './message-changes.service';
import { MessageEventWriter } from './message-event-writer';
import { MessageReadsService } from './message-reads.service';
import { MessageStoreModule } from './message-store.module';
import { MessageWindowService } from './message-window.service';
import { MessagesController } from './messages.controller';
import { MessagingService } from './messaging.service';

/** Messages: send, recall, delete, read, windows and search. The table is MessageStoreModule's. */
@Module({
  imports: [ImTokenModule, ConversationsModule, MessageStoreModule, FriendsModule, MediaModule],
  controllers: [MessagesController],
  providers: [MessagingService, MessageChangesService, MessageReadsService, MessageEventWriter, MessageWindowService],
  exports: [MessagingService],
})
export class MessagesModule {}
