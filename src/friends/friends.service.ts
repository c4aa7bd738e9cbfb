import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { CursorCodec } from '../common/pagination/cursor';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { directConversationId } from '../conversations/conversation-id';
import type { Alongside } from '../database/alongside';
import { TransactionRunner } from '../database/transaction-runner';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import { AuthUser } from '../common/auth-user';
import { OutboxWriter } from '../outbox/outbox-writer';
import { UsersService } from '../users/users.service';
import { FriendUserDto } from './dto/friend-user.dto';
import { toFriendReply } from './friend.mapper';
import { ListScope, PAGE_SIZE, pageOf, positionAfter, userLookup } from './friend-pages';
import { FriendsRepository } from './friends.repository';
import { EventReply, FriendPageReply } from './friends.reply';

@Injectable()
export class FriendsService {
  constructor(
    private readonly friends: FriendsRepository,
    private readonly users: UsersService,
    private readonly outbox: OutboxWriter,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    private readonly callChanges: RelationshipChanges,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The caller's friends, most recent friendship first. */
  async list(auth: AuthUser, query: ListQueryDto): Promise<FriendPageReply> {
    const scope: ListScope = { account: auth.internalId, endpoint: 'friends.list', filters: {} };
    const after = positionAfter(this.cursors, scope, query.cursor);
    const rows = await this.friends.listFriends(auth.internalId, after, PAGE_SIZE + 1);
    return pageOf(this.cursors, scope, rows, async (page) => {
      const user = userLookup(
        await this.users.findByIds(page.map((row) => row.friendId)),
        this.config.defaultAvatarUrl,
      );
      return page.map((row) => toFriendReply(user(row.friendId), row.createdAt));
    });
  }

  /**
   * Ends the friendship for both users (both rows). The direct conversation and its history
   * stay; whether messages may still be sent is the messaging rule's business. Not friends: 1204.
   * `alongside` runs in the same transaction (the server API's record and audit).
   */
  async remove(auth: AuthUser, dto: FriendUserDto, alongside?: Alongside<EventReply>): Promise<EventReply> {
    if (dto.user_id === auth.externalId) throw AppError.invalid('user_id', 'you cannot unfriend yourself');
    const peer = await this.users.findByExternalId(dto.user_id);
    const notFriends = new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: not one of your friends');
    if (!peer) throw notFriends;
    const reply = await this.tx.run(async (manager) => {
      if (!(await this.friends.deleteFriendshipPair(manager, auth.internalId, peer.id))) throw notFriends;
      const now = this.clock.now();
      const event_id = await this.outbox.append(
        manager,
        {
          type: 'friend.deleted',
          payload: { user_ids: [auth.externalId, peer.externalId], by: auth.externalId },
          recipients: [
            {
              userId: auth.internalId,
              private: { user_id: peer.externalId, conversation_id: directConversationId(peer.externalId) },
            },
            {
              userId: peer.id,
              private: { user_id: auth.externalId, conversation_id: directConversationId(auth.externalId) },
            },
          ],
        },
        now,
      );
      await alongside?.(manager, { event_id });
      return { event_id };
    });
    await this.callChanges.pairChanged(auth.internalId, peer.id);
    return reply;
  }
}
