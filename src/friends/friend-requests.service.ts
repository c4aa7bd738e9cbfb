import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { CursorCodec } from '../common/pagination/cursor';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { Alongside } from '../database/alongside';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { AuthUser } from '../common/auth-user';
import { OutboxWriter } from '../outbox/outbox-writer';
import type { User } from '../users/user';
import { toUserReply } from '../users/user.mapper';
import { UsersService } from '../users/users.service';
import { StaleRead, converging } from './converge';
import { FriendRequestRefDto } from './dto/friend-request-ref.dto';
import { ListFriendRequestsQueryDto } from './dto/list-friend-requests.dto';
import { SendFriendRequestDto } from './dto/send-friend-request.dto';
import { FriendRequestEntity } from './friend-request.entity';
import { FriendReply, FriendRequestReply, toFriendReply, toFriendRequestReply } from './friend.mapper';
import { ListScope, PAGE_SIZE, pageOf, positionAfter, userLookup } from './friend-pages';
import { FriendsRepository } from './friends.repository';
import {
  AcceptFriendRequestReply,
  FriendRequestPageReply,
  RejectFriendRequestReply,
  SendFriendRequestReply,
} from './friends.reply';

type AcceptOutcome = AcceptFriendRequestReply | 'already_friends';

const LIST_ENDPOINT = 'friends.requests';

/** A concurrent request of the same pair won a unique key; the next attempt sees its result. */
const lostRace = (error: unknown): boolean =>
  isUniqueViolation(error, 'friend_requests') || isUniqueViolation(error, 'friendships');

const inaccessible = (problem: string): AppError => new AppError(ErrorCode.REQUEST_INACCESSIBLE, `id: ${problem}`);

@Injectable()
export class FriendRequestsService {
  constructor(
    private readonly friends: FriendsRepository,
    private readonly users: UsersService,
    private readonly conversations: ConversationStore,
    private readonly outbox: OutboxWriter,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Idempotent per (sender, request_id). A request already pending from the caller to the
   * target is answered instead of a second one (the pending key is unique per direction); a
   * request pending the other way is accepted, since both users asked.
   */
  send(auth: AuthUser, dto: SendFriendRequestDto): Promise<SendFriendRequestReply> {
    if (dto.user_id === auth.externalId)
      throw AppError.invalid('user_id', 'you cannot send a friend request to yourself');
    const message = dto.message ?? '';
    return converging(async () => {
      const target = await this.users.findByExternalId(dto.user_id);
      const stored = await this.friends.findRequestByKey(auth.internalId, dto.request_id);
      if (stored) return this.replay(stored, target, message);
      if (!target || this.users.isDisabled(target))
        throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
      try {
        return await this.tx.run((manager) => this.create(manager, auth, target, dto.request_id, message));
      } catch (error) {
        if (!isUniqueViolation(error, 'pending_key')) throw error;
        const pending = await this.friends.findPending(auth.internalId, target.id);
        if (!pending) throw new StaleRead();
        return { request: await this.requestReply(pending), friend: null, event_id: null };
      }
    }, lostRace);
  }

  /**
   * Accepts a pending request addressed to the caller: friendship rows both ways, the direct
   * conversation, the request (and any request pending the other way) accepted, and the event,
   * in one transaction.
   */
  async accept(auth: AuthUser, dto: FriendRequestRefDto): Promise<AcceptFriendRequestReply> {
    const outcome = await converging(() => this.tx.run((manager) => this.acceptIn(manager, auth, dto.id)), lostRace);
    if (outcome === 'already_friends')
      throw new AppError(ErrorCode.ALREADY_FRIENDS, 'id: you are already friends with the sender');
    return outcome;
  }

  /**
   * The host makes two users friends without a request (server API): as an accepted request
   * would, with the same `friend.added` event; requests pending between them are accepted with
   * it. Already friends: 1206; a block either way: 1211. The reply is `user`'s view.
   */
  befriendByHost(
    user: User,
    friend: User,
    alongside: Alongside<AcceptFriendRequestReply>,
  ): Promise<AcceptFriendRequestReply> {
    return converging(
      () =>
        this.tx.run(async (manager) => {
          await this.users.lockPair(manager, user.id, friend.id);
          if (await this.friends.areFriends(user.id, friend.id, manager))
            throw new AppError(ErrorCode.ALREADY_FRIENDS, 'friend_id: the users are already friends');
          if (await this.friends.isBlockedEitherWay(user.id, friend.id, manager))
            throw new AppError(ErrorCode.RELATIONSHIP_RESTRICTED, 'friend_id: relationship restricted (a block)');
          const now = this.clock.now();
          const accepted = await this.friends.acceptPendingBetween(manager, user.id, friend.id, now);
          const reply = await this.makeFriends(
            manager,
            user,
            friend,
            accepted.map((r) => r.id),
            now,
          );
          await alongside(manager, reply);
          return reply;
        }),
      lostRace,
    );
  }

  reject(auth: AuthUser, dto: FriendRequestRefDto): Promise<RejectFriendRequestReply> {
    return this.tx.run(async (manager) => {
      const request = await this.addressedTo(manager, auth, dto.id);
      const now = this.clock.now();
      if (!(await this.friends.closeRequest(manager, request, 'rejected', now)))
        throw inaccessible('the friend request is no longer pending');
      const reply = await this.requestReply(request, manager);
      const event_id = await this.outbox.append(
        manager,
        {
          type: 'friend.request_rejected',
          payload: { request: reply },
          recipients: [{ userId: request.fromUserId }, { userId: request.toUserId }],
        },
        now,
      );
      return { request: reply, event_id };
    });
  }

  /** Requests sent to (incoming) or by (outgoing) the caller, in every status unless filtered; newest first. */
  async list(auth: AuthUser, query: ListFriendRequestsQueryDto): Promise<FriendRequestPageReply> {
    const scope: ListScope = {
      account: auth.internalId,
      endpoint: LIST_ENDPOINT,
      filters: { direction: query.direction, status: query.status },
    };
    const after = positionAfter(this.cursors, scope, query.cursor);
    const rows = await this.friends.listRequests(auth.internalId, query.direction, query.status, after, PAGE_SIZE + 1);
    return pageOf(this.cursors, scope, rows, async (page) => {
      const user = userLookup(
        await this.users.findByIds(page.flatMap((r) => [r.fromUserId, r.toUserId])),
        this.config.defaultAvatarUrl,
      );
      return page.map((request) => toFriendRequestReply(request, user(request.fromUserId), user(request.toUserId)));
    });
  }

  // --- steps ---

  /** A retry must name the same target and message; it answers the stored request without a new event. */
  private async replay(
    stored: FriendRequestEntity,
    target: User | null,
    message: string,
  ): Promise<SendFriendRequestReply> {
    if (!target || stored.toUserId !== String(target.id) || stored.message !== message) {
      throw AppError.invalid('request_id', 'was already used for a different friend request');
    }
    const friendship =
      stored.status === 'accepted' ? await this.friends.findFriendship(stored.fromUserId, stored.toUserId) : null;
    const friend = friendship
      ? toFriendReply(toUserReply(target, this.config.defaultAvatarUrl), friendship.createdAt)
      : null;
    return { request: await this.requestReply(stored), friend, event_id: null };
  }

  private async create(
    manager: EntityManager,
    auth: AuthUser,
    target: User,
    requestId: string,
    message: string,
  ): Promise<SendFriendRequestReply> {
    // Two users asking each other at once must meet: each waits here for the other's request to
    // commit, and then finds it pending and accepts it (the pending key is per direction).
    await this.users.lockPair(manager, auth.internalId, target.id);
    const now = this.clock.now();
    if (await this.friends.areFriends(auth.internalId, target.id, manager))
      throw new AppError(ErrorCode.ALREADY_FRIENDS, 'user_id: you are already friends');
    if (await this.friends.isBlockedEitherWay(auth.internalId, target.id, manager))
      throw new AppError(ErrorCode.RELATIONSHIP_RESTRICTED, 'user_id: relationship restricted');
    const me = await this.requireUser(auth.internalId, manager);
    const theirs = await this.friends.findPending(target.id, auth.internalId, manager);
    if (theirs) {
      // Both asked: they become friends now. The caller's request is stored already accepted
      // so that a retry of its request_id answers it.
      const mine = await this.friends.insertRequest(manager, {
        fromUserId: auth.internalId,
        toUserId: target.id,
        requestId,
        message,
        status: 'accepted',
        now,
      });
      const { friend, eventId } = await this.befriend(manager, me, target, theirs.id, [mine.id], now);
      return { request: this.toReply(mine, me, target), friend, event_id: eventId };
    }
    const request = await this.friends.insertRequest(manager, {
      fromUserId: auth.internalId,
      toUserId: target.id,
      requestId,
      message,
      status: 'pending',
      now,
    });
    const reply = this.toReply(request, me, target);
    const eventId = await this.outbox.append(
      manager,
      {
        type: 'friend.request_created',
        payload: { request: reply },
        recipients: [{ userId: me.id }, { userId: target.id }],
      },
      now,
    );
    return { request: reply, friend: null, event_id: eventId };
  }

  private async acceptIn(manager: EntityManager, auth: AuthUser, id: string): Promise<AcceptOutcome> {
    const request = await this.addressedTo(manager, auth, id);
    const now = this.clock.now();
    if (await this.friends.areFriends(auth.internalId, request.fromUserId, manager)) {
      // Converge: the relationship the request asked for exists, so the request is settled.
      if (await this.friends.closeRequest(manager, request, 'accepted', now)) {
        const reply = await this.requestReply(request, manager);
        await this.outbox.append(
          manager,
          {
            type: 'friend.request_accepted',
            payload: { request: reply },
            recipients: [{ userId: request.fromUserId }, { userId: request.toUserId }],
          },
          now,
        );
      }
      return 'already_friends';
    }
    if (request.status !== 'pending') throw inaccessible('the friend request is no longer pending');
    if (await this.friends.isBlockedEitherWay(auth.internalId, request.fromUserId, manager))
      throw new AppError(ErrorCode.RELATIONSHIP_RESTRICTED, 'id: relationship restricted');
    const me = await this.requireUser(auth.internalId, manager);
    const sender = await this.requireUser(request.fromUserId, manager);
    const { friend, eventId } = await this.befriend(manager, me, sender, request.id, [], now);
    return { friend, event_id: eventId };
  }

  /**
   * Makes `me` and `peer` friends. `requestId` must still be pending (else another request
   * settled it first: StaleRead). The friendship insert is the pair's serialisation point: a
   * concurrent befriending of the same pair fails there with a unique violation and retries.
   */
  private async befriend(
    manager: EntityManager,
    me: User,
    peer: User,
    requestId: string,
    alsoAccepted: string[],
    now: number,
  ): Promise<{ friend: FriendReply; eventId: string }> {
    const accepted = await this.friends.acceptPendingBetween(manager, me.id, peer.id, now);
    if (!accepted.some((request) => request.id === requestId)) throw new StaleRead();
    const { friend, event_id } = await this.makeFriends(
      manager,
      me,
      peer,
      [...accepted.map((r) => r.id), ...alsoAccepted],
      now,
    );
    return { friend, eventId: event_id };
  }

  /** Friendship rows both ways, the direct conversation and `friend.added` (`me`'s view in the reply). */
  private async makeFriends(
    manager: EntityManager,
    me: User,
    peer: User,
    requestIds: string[],
    now: number,
  ): Promise<AcceptFriendRequestReply> {
    await this.friends.insertFriendshipPair(manager, me.id, peer.id, now);
    await this.conversations.ensureDirect(manager, me.id, peer.id, now);
    const mine = toFriendReply(toUserReply(peer, this.config.defaultAvatarUrl), now);
    const theirs = toFriendReply(toUserReply(me, this.config.defaultAvatarUrl), now);
    const eventId = await this.outbox.append(
      manager,
      {
        type: 'friend.added',
        payload: {
          user_ids: [me.externalId, peer.externalId],
          request_ids: requestIds,
          since: now,
        },
        // The conversation ID names the peer, so each side gets its own view of the friend.
        recipients: [
          { userId: me.id, private: { friend: mine } },
          { userId: peer.id, private: { friend: theirs } },
        ],
      },
      now,
    );
    return { friend: mine, event_id: eventId };
  }

  /** The request, if it exists and is addressed to the caller; 1205 otherwise (existence does not leak). */
  private async addressedTo(manager: EntityManager, auth: AuthUser, id: string): Promise<FriendRequestEntity> {
    const request = await this.friends.findRequest(id, manager);
    if (!request || request.toUserId !== auth.internalId) throw inaccessible('no such friend request addressed to you');
    return request;
  }

  private async requireUser(id: string, manager: EntityManager): Promise<User> {
    const user = await this.users.findById(id, manager);
    if (!user) throw new Error(`user ${id} does not exist`);
    return user;
  }

  private async requestReply(request: FriendRequestEntity, manager?: EntityManager): Promise<FriendRequestReply> {
    const from = await this.users.findById(request.fromUserId, manager);
    const to = await this.users.findById(request.toUserId, manager);
    if (!from || !to) throw new Error(`friend request ${request.id} names a user that does not exist`);
    return this.toReply(request, from, to);
  }

  private toReply(request: FriendRequestEntity, from: User, to: User): FriendRequestReply {
    return toFriendRequestReply(
      request,
      toUserReply(from, this.config.defaultAvatarUrl),
      toUserReply(to, this.config.defaultAvatarUrl),
    );
  }
}
