import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { directConversationId } from '../conversations/conversation-id';
import { TransactionRunner } from '../database/transaction-runner';
import { OutboxWriter } from '../outbox/outbox-writer';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import type { User } from '../users/user';
import { toUserReply } from '../users/user.mapper';
import { UsersService } from '../users/users.service';
import { toFriendRequestReply } from './friend.mapper';
import { FriendsRepository } from './friends.repository';

/** What erasure ended on the friends side. */
export interface FriendsErased {
  /** Internal IDs of the former friends (they are told of the anonymised profile afterwards). */
  formerFriendIds: string[];
  friendships: number;
  friendRequests: number;
  blocks: number;
}

/** A relation as the export lists it: the other user's internal ID and since when. */
export interface RelationOfUser {
  userId: string;
  createdAt: number;
}

/**
 * The friends side of erasing a user (server API). Each friendship ends as an unfriend does
 * (`friend.deleted` to both sides, live calls re-checked), each pending request is rejected
 * (`friend.request_rejected` to both sides), then the user's request rows (their message text)
 * and the blocks they made are deleted. Blocks others made against the user are theirs and stay.
 */
@Injectable()
export class FriendsErasure {
  constructor(
    private readonly friends: FriendsRepository,
    private readonly users: UsersService,
    private readonly outbox: OutboxWriter,
    private readonly tx: TransactionRunner,
    private readonly callChanges: RelationshipChanges,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async friendsOf(userId: string): Promise<RelationOfUser[]> {
    return (await this.friends.friendshipsOf(userId)).map((f) => ({ userId: f.friendId, createdAt: f.createdAt }));
  }

  async blocksBy(userId: string): Promise<RelationOfUser[]> {
    return (await this.friends.blocksBy(userId)).map((b) => ({ userId: b.blockedUserId, createdAt: b.createdAt }));
  }

  async endAll(user: User): Promise<FriendsErased> {
    const formerFriendIds = await this.friends.friendIds(user.id);
    let friendships = 0;
    for (const friendId of formerFriendIds) {
      const peer = await this.users.findById(friendId);
      if (!peer) continue;
      const ended = await this.tx.run(async (manager) => {
        await this.users.lockPair(manager, user.id, peer.id);
        if (!(await this.friends.deleteFriendshipPair(manager, user.id, peer.id))) return false;
        await this.outbox.append(
          manager,
          {
            type: 'friend.deleted',
            payload: { user_ids: [user.externalId, peer.externalId], by: user.externalId },
            recipients: [
              {
                userId: user.id,
                private: { user_id: peer.externalId, conversation_id: directConversationId(peer.externalId) },
              },
              {
                userId: peer.id,
                private: { user_id: user.externalId, conversation_id: directConversationId(user.externalId) },
              },
            ],
          },
          this.clock.now(),
        );
        return true;
      });
      if (ended) {
        friendships++;
        await this.callChanges.pairChanged(user.id, peer.id);
      }
    }
    const { friendRequests, blocks } = await this.tx.run(async (manager) => {
      const now = this.clock.now();
      for (const request of await this.friends.pendingRequestsOf(user.id, manager)) {
        if (!(await this.friends.closeRequest(manager, request, 'rejected', now))) continue;
        const [from, to] = await Promise.all([
          this.users.findById(request.fromUserId, manager),
          this.users.findById(request.toUserId, manager),
        ]);
        if (!from || !to) continue;
        await this.outbox.append(
          manager,
          {
            type: 'friend.request_rejected',
            payload: {
              request: toFriendRequestReply(
                request,
                toUserReply(from, this.config.defaultAvatarUrl),
                toUserReply(to, this.config.defaultAvatarUrl),
              ),
            },
            recipients: [{ userId: request.fromUserId }, { userId: request.toUserId }],
          },
          now,
        );
      }
      return {
        friendRequests: await this.friends.deleteRequestsOf(manager, user.id),
        blocks: await this.friends.deleteBlocksBy(manager, user.id),
      };
    });
    return { formerFriendIds, friendships, friendRequests, blocks };
  }
}
