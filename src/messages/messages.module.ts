import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { FriendsModule } from '../friends/friends.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { MediaModule } from '../media/media.module';
import { MessageWindowService } from './message-window.service';
import { MessagesController } from './messages.controller';
import { MessagingService } from './messaging.service';

/** Messages: send, recall, delete, read, windows and search. The tables belong to ConversationsModule. */
@Module({
  imports: [ImTokenModule, ConversationsModule, FriendsModule, MediaModule],
  controllers: [MessagesController],
  providers: [MessagingService, MessageWindowService],
  exports: [MessagingService],
})
export class MessagesModule {}
