import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlockEntity } from './block.entity';
import { FriendRequestEntity } from './friend-request.entity';
import { FriendshipEntity } from './friendship.entity';
import { FriendsRepository } from './friends.repository';

/** Friends, friend requests and blocks. */
@Module({
  imports: [TypeOrmModule.forFeature([FriendshipEntity, FriendRequestEntity, BlockEntity])],
  providers: [FriendsRepository],
  exports: [FriendsRepository],
})
export class FriendsModule {}
