import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MessageEntity } from './message.entity';
import { MessagesRepository } from './messages.repository';

/**
 * The messages table and its repository, apart from MessagesModule's endpoints: the conversations
 * module checks message visibility and sync reads windows, and MessagesModule itself depends on
 * conversations, so the store is the piece both can import without a cycle.
 */
@Module({
  imports: [TypeOrmModule.forFeature([MessageEntity])],
  providers: [MessagesRepository],
  exports: [MessagesRepository],
})
export class MessageStoreModule {}
