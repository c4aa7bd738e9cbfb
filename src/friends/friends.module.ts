import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '../conversations/conversations.module';
import { RelationshipChangesModule } from '../relationship-changes/relationship-changes.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { BlockEntity } from './block.entity';
import { BlocksController } from './blocks.controller';
import { BlocksService } from './blocks.service';
import { FriendRequestEntity } from './friend-request.entity';
import { FriendRequestsController } from './friend-requests.controller';
import { FriendRequestsService } from './friend-requests.service';
import { FriendsErasure } from './friends-erasure.service';
import { FriendshipEntity } from './friendship.entity';
import { FriendsController } from './friends.controller';
import { FriendsRepository } from './friends.repository';
import { FriendsService } from './friends.service';
import { Relationships } from './relationships.service';
import { UsersModule } from '../users/users.module';

/** Friends, friend requests and blocks. */
@Module({
  imports: [
    TypeOrmModule.forFeature([FriendshipEntity, FriendRequestEntity, BlockEntity]),
    ImTokenModule,
    ConversationsModule,
    UsersModule,
    RelationshipChangesModule,
  ],
  controllers: [FriendRequestsController, FriendsController, BlocksController],
  providers: [FriendsRepository, FriendRequestsService, FriendsService, BlocksService, Relationships, FriendsErasure],
  // FriendsErasure: the server API's user erasure and export.
  // FriendsService, FriendRequestsService: the server API makes and ends friendships as the users would.
  exports: [Relationships, FriendsErasure, FriendsService, FriendRequestsService],
})
export class FriendsModule {}
