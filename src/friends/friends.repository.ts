import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { BlockEntity } from './block.entity';
import { FriendRequestEntity } from './friend-request.entity';
import { FriendshipEntity } from './friendship.entity';

/** Friendships, friend requests and blocks. Other modules use only the relationship checks. */
@Injectable()
export class FriendsRepository {
  constructor(
    @InjectRepository(FriendshipEntity) readonly friendships: Repository<FriendshipEntity>,
    @InjectRepository(FriendRequestEntity) readonly requests: Repository<FriendRequestEntity>,
    @InjectRepository(BlockEntity) readonly blocks: Repository<BlockEntity>,
  ) {}

  async areFriends(userId: string, otherId: string, manager?: EntityManager): Promise<boolean> {
    const repo = manager ? manager.getRepository(FriendshipEntity) : this.friendships;
    return (await repo.countBy({ userId, friendId: otherId })) > 0;
  }

  /** `userId` has blocked `otherId`. */
  async hasBlocked(userId: string, otherId: string): Promise<boolean> {
    return (await this.blocks.countBy({ userId, blockedUserId: otherId })) > 0;
  }

  /** Either side has blocked the other. */
  async isBlockedEitherWay(userId: string, otherId: string): Promise<boolean> {
    return (await this.blocks.count({ where: [{ userId, blockedUserId: otherId }, { userId: otherId, blockedUserId: userId }] })) > 0;
  }
}
