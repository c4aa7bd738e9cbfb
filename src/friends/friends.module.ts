import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '../conversations/conversations.module';
import { RelationshipChangesModule } from '../calls/relationship-changes.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { BlockEntity } from './block.entity';
import { BlocksController } from './blocks.controller';
import { BlocksService } from './blocks.service';
import { FriendRequestEntity } from './friend-request.entity';
import { FriendRequestsController } from './friend-requests.controller';
import { FriendRequestsService } from './friend-requests.service';
import { FriendshipEntity } from './friendship.entity';
import { FriendsController } from './friends.controller';
import { FriendsRepository } from './friends.repository';
import { FriendsService } from './friends.service';

/** Friends, friend requests and blocks. */
@Module({
  imports: [
    TypeOrmModule.forFeature([FriendshipEntity, FriendRequestEntity, BlockEntity]),
    ImTokenModule,
    ConversationsModule,
    RelationshipChangesModule,
  ],
  controllers: [FriendRequestsController, FriendsController, BlocksController],
  providers: [FriendsRepository, FriendRequestsService, FriendsService, BlocksService],
  exports: [FriendsRepository],
})
export class FriendsModule {}
