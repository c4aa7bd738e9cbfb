import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { CursorCodec } from '../common/pagination/cursor';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import { AuthUser } from '../common/auth-user';
import { OutboxWriter } from '../outbox/outbox-writer';
import type { User } from '../users/user';
import { toUserReply } from '../users/user.mapper';
import { UsersService } from '../users/users.service';
import { FriendUserDto } from './dto/friend-user.dto';
import { toBlockReply } from './friend.mapper';
import { ListScope, PAGE_SIZE, pageOf, positionAfter, userLookup } from './friend-pages';
import { FriendsRepository } from './friends.repository';
import { BlockPageReply, BlockStateReply } from './friends.reply';

/**
 * Blocks are one-sided and private: only the blocker is told. A block leaves a friendship in
 * place; it stops friend requests (1211) and hides the blocker's profile from the blocked user.
 */
@Injectable()
export class BlocksService {
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

  async block(auth: AuthUser, dto: FriendUserDto): Promise<BlockStateReply> {
    const peer = await this.target(auth, dto, 'block');
    const unchanged: BlockStateReply = { blocked: true, event_id: null };
    try {
      const reply = await this.tx.run(async (manager) => {
        if (await this.friends.hasBlocked(auth.internalId, peer.id, manager)) return unchanged;
        const now = this.clock.now();
        await this.friends.insertBlock(manager, auth.internalId, peer.id, now);
        const block = toBlockReply({ createdAt: now }, toUserReply(peer, this.config.defaultAvatarUrl));
        const event_id = await this.outbox.append(
          manager,
          { type: 'friend.blocked', payload: { block }, recipients: [{ userId: auth.internalId }] },
          now,
        );
        return { blocked: true, event_id };
      });
      await this.callChanges.pairChanged(auth.internalId, peer.id);
      return reply;
    } catch (error) {
      // A concurrent identical block won the unique key: the state asked for holds.
      if (isUniqueViolation(error, 'blocks')) return unchanged;
      throw error;
    }
  }

  async unblock(auth: AuthUser, dto: FriendUserDto): Promise<BlockStateReply> {
    const peer = await this.target(auth, dto, 'unblock');
    return this.tx.run(async (manager) => {
      if (!(await this.friends.deleteBlock(manager, auth.internalId, peer.id)))
        return { blocked: false, event_id: null };
      const now = this.clock.now();
      const event_id = await this.outbox.append(
        manager,
        { type: 'friend.unblocked', payload: { user_id: peer.externalId }, recipients: [{ userId: auth.internalId }] },
        now,
      );
      return { blocked: false, event_id };
    });
  }

  /** Users the caller blocks, most recent block first. */
  async list(auth: AuthUser, query: ListQueryDto): Promise<BlockPageReply> {
    const scope: ListScope = { account: auth.internalId, endpoint: 'friends.blocks', filters: {} };
    const after = positionAfter(this.cursors, scope, query.cursor);
    const rows = await this.friends.listBlocks(auth.internalId, after, PAGE_SIZE + 1);
    return pageOf(this.cursors, scope, rows, async (page) => {
      const user = userLookup(
        await this.users.findByIds(page.map((row) => row.blockedUserId)),
        this.config.defaultAvatarUrl,
      );
      return page.map((row) => toBlockReply(row, user(row.blockedUserId)));
    });
  }

  private async target(auth: AuthUser, dto: FriendUserDto, action: string): Promise<User> {
    if (dto.user_id === auth.externalId) throw AppError.invalid('user_id', `you cannot ${action} yourself`);
    const peer = await this.users.findByExternalId(dto.user_id);
    if (!peer) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    return peer;
  }
}
