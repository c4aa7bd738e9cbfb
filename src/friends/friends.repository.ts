import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOptionsWhere, In, LessThan, Repository } from 'typeorm';
import { BlockEntity } from './block.entity';
import { FriendRequestEntity, FriendRequestStatus } from './friend-request.entity';
import { FriendshipEntity } from './friendship.entity';

export interface NewFriendRequest {
  fromUserId: string;
  toUserId: string;
  requestId: string;
  message: string;
  status: FriendRequestStatus;
  now: number;
}

export type RequestDirection = 'incoming' | 'outgoing';

/** "<from>:<to>": the unique key that allows one pending request per direction. */
export function pendingKey(fromUserId: string, toUserId: string): string {
  return `${fromUserId}:${toUserId}`;
}

function numericAscending(a: string, b: string): number {
  return BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
}

/**
 * Friendships, friend requests and blocks. Other modules use only the relationship checks.
 * Writes take the caller's transaction manager; list reads page by id, newest first.
 */
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
  async hasBlocked(userId: string, otherId: string, manager?: EntityManager): Promise<boolean> {
    const repo = manager ? manager.getRepository(BlockEntity) : this.blocks;
    return (await repo.countBy({ userId, blockedUserId: otherId })) > 0;
  }

  /** Friendship and blocks between two users in one round trip (the send path asks both). */
  async relationship(userId: string, otherId: string): Promise<{ friends: boolean; blocked: boolean }> {
    const [row] = (await this.friendships.query(
      'SELECT (SELECT COUNT(*) FROM friendships WHERE user_id = ? AND friend_id = ?) AS friends, ' +
        '(SELECT COUNT(*) FROM blocks WHERE (user_id = ? AND blocked_user_id = ?) OR (user_id = ? AND blocked_user_id = ?)) AS blocked',
      [userId, otherId, userId, otherId, otherId, userId],
    )) as Array<{ friends: number | string; blocked: number | string }>;
    return { friends: Number(row.friends) > 0, blocked: Number(row.blocked) > 0 };
  }

  /** Either side has blocked the other. */
  async isBlockedEitherWay(userId: string, otherId: string, manager?: EntityManager): Promise<boolean> {
    const repo = manager ? manager.getRepository(BlockEntity) : this.blocks;
    return (
      (await repo.count({
        where: [
          { userId, blockedUserId: otherId },
          { userId: otherId, blockedUserId: userId },
        ],
      })) > 0
    );
  }

  findFriendship(userId: string, friendId: string): Promise<FriendshipEntity | null> {
    return this.friendships.findOneBy({ userId, friendId });
  }

  /** Internal IDs of every friend of the user (event fan-out). */
  async friendIds(userId: string, manager?: EntityManager): Promise<string[]> {
    const repo = manager ? manager.getRepository(FriendshipEntity) : this.friendships;
    const rows = await repo.find({ select: { id: true, friendId: true }, where: { userId } });
    return rows.map((row) => row.friendId);
  }

  /** Internal IDs of the user's friends whom the user has not blocked: who may hear the user's presence. */
  async friendIdsNotBlockedBy(userId: string): Promise<string[]> {
    const rows = (await this.friendships.query(
      'SELECT f.friend_id AS id FROM friendships f WHERE f.user_id = ? AND NOT EXISTS ' +
        '(SELECT 1 FROM blocks b WHERE b.user_id = ? AND b.blocked_user_id = f.friend_id)',
      [userId, userId],
    )) as Array<{ id: number | string }>;
    return rows.map((row) => String(row.id));
  }

  /** Internal IDs of the user's friends who have not blocked the user: whose presence the user may read. */
  async friendIdsNotBlocking(userId: string): Promise<string[]> {
    const rows = (await this.friendships.query(
      'SELECT f.friend_id AS id FROM friendships f WHERE f.user_id = ? AND NOT EXISTS ' +
        '(SELECT 1 FROM blocks b WHERE b.user_id = f.friend_id AND b.blocked_user_id = ?)',
      [userId, userId],
    )) as Array<{ id: number | string }>;
    return rows.map((row) => String(row.id));
  }

  // --- friend requests ---

  findRequest(id: string, manager: EntityManager): Promise<FriendRequestEntity | null> {
    return manager.findOneBy(FriendRequestEntity, { id });
  }

  findRequestByKey(fromUserId: string, requestId: string): Promise<FriendRequestEntity | null> {
    return this.requests.findOneBy({ fromUserId, requestId });
  }

  findPending(fromUserId: string, toUserId: string, manager?: EntityManager): Promise<FriendRequestEntity | null> {
    return (manager ? manager.getRepository(FriendRequestEntity) : this.requests).findOneBy({
      pendingKey: pendingKey(fromUserId, toUserId),
    });
  }

  /**
   * A pending request claims the pair's pending key, so a unique violation on `pending_key`
   * means one is already pending that way; on (from, request_id), that the key was used.
   */
  async insertRequest(manager: EntityManager, request: NewFriendRequest): Promise<FriendRequestEntity> {
    const entity = manager.create(FriendRequestEntity, {
      fromUserId: request.fromUserId,
      toUserId: request.toUserId,
      requestId: request.requestId,
      message: request.message,
      status: request.status,
      pendingKey: request.status === 'pending' ? pendingKey(request.fromUserId, request.toUserId) : null,
      createdAt: request.now,
      updatedAt: request.now,
    });
    const result = await manager.insert(FriendRequestEntity, entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  /**
   * Moves a request out of `pending` only if it is still pending: the conditional update is
   * the arbiter between concurrent accepts and rejects (the loser sees false).
   */
  async closeRequest(
    manager: EntityManager,
    request: FriendRequestEntity,
    status: Exclude<FriendRequestStatus, 'pending'>,
    now: number,
  ): Promise<boolean> {
    const result = await manager.update(
      FriendRequestEntity,
      { id: request.id, status: 'pending' },
      { status, pendingKey: null, updatedAt: now },
    );
    if (!result.affected) return false;
    Object.assign(request, { status, pendingKey: null, updatedAt: now });
    return true;
  }

  /**
   * Accepts every request still pending between the two users, in either direction, in ID
   * order so that concurrent callers lock rows in the same order. Returns the ones accepted here.
   */
  async acceptPendingBetween(
    manager: EntityManager,
    userA: string,
    userB: string,
    now: number,
  ): Promise<FriendRequestEntity[]> {
    const pending = await manager.findBy(FriendRequestEntity, {
      pendingKey: In([pendingKey(userA, userB), pendingKey(userB, userA)]),
    });
    pending.sort((a, b) => numericAscending(a.id, b.id));
    const accepted: FriendRequestEntity[] = [];
    for (const request of pending)
      if (await this.closeRequest(manager, request, 'accepted', now)) accepted.push(request);
    return accepted;
  }

  listRequests(
    userId: string,
    direction: RequestDirection,
    status: FriendRequestStatus | undefined,
    beforeId: string | null,
    take: number,
  ): Promise<FriendRequestEntity[]> {
    const where: FindOptionsWhere<FriendRequestEntity> =
      direction === 'incoming' ? { toUserId: userId } : { fromUserId: userId };
    if (status) where.status = status;
    if (beforeId) where.id = LessThan(beforeId);
    return this.requests.find({ where, order: { id: 'DESC' }, take });
  }

  // --- friendships ---

  /**
   * Both direction rows, the lower user's first so that concurrent befriending of one pair
   * collides on the same key (unique violation) rather than deadlocking.
   */
  async insertFriendshipPair(manager: EntityManager, userA: string, userB: string, now: number): Promise<void> {
    const [low, high] = numericAscending(userA, userB) <= 0 ? [userA, userB] : [userB, userA];
    await manager.insert(FriendshipEntity, { userId: low, friendId: high, createdAt: now });
    await manager.insert(FriendshipEntity, { userId: high, friendId: low, createdAt: now });
  }

  /** Deletes both direction rows; false when they were not friends. */
  async deleteFriendshipPair(manager: EntityManager, userA: string, userB: string): Promise<boolean> {
    const result = await manager.delete(FriendshipEntity, [
      { userId: userA, friendId: userB },
      { userId: userB, friendId: userA },
    ]);
    return (result.affected ?? 0) > 0;
  }

  listFriends(userId: string, beforeId: string | null, take: number): Promise<FriendshipEntity[]> {
    const where: FindOptionsWhere<FriendshipEntity> = { userId };
    if (beforeId) where.id = LessThan(beforeId);
    return this.friendships.find({ where, order: { id: 'DESC' }, take });
  }

  // --- blocks ---

  /** A unique violation on the blocks key means the block already exists. */
  async insertBlock(manager: EntityManager, userId: string, blockedUserId: string, now: number): Promise<void> {
    await manager.insert(BlockEntity, { userId, blockedUserId, createdAt: now });
  }

  /** False when there was no such block. */
  async deleteBlock(manager: EntityManager, userId: string, blockedUserId: string): Promise<boolean> {
    const result = await manager.delete(BlockEntity, { userId, blockedUserId });
    return (result.affected ?? 0) > 0;
  }

  listBlocks(userId: string, beforeId: string | null, take: number): Promise<BlockEntity[]> {
    const where: FindOptionsWhere<BlockEntity> = { userId };
    if (beforeId) where.id = LessThan(beforeId);
    return this.blocks.find({ where, order: { id: 'DESC' }, take });
  }

  // --- erasure and export (server API) ---

  /** Pending requests sent by or to the user, oldest first. */
  pendingRequestsOf(userId: string, manager?: EntityManager): Promise<FriendRequestEntity[]> {
    return (manager ? manager.getRepository(FriendRequestEntity) : this.requests).find({
      where: [
        { fromUserId: userId, status: 'pending' },
        { toUserId: userId, status: 'pending' },
      ],
      order: { id: 'ASC' },
    });
  }

  /** Every request sent by or to the user, whatever its status (their message text is the sender's data). */
  async deleteRequestsOf(manager: EntityManager, userId: string): Promise<number> {
    const result = await manager.delete(FriendRequestEntity, [{ fromUserId: userId }, { toUserId: userId }]);
    return result.affected ?? 0;
  }

  /** The blocks the user made (blocks of the user by others are those users' own data). */
  async deleteBlocksBy(manager: EntityManager, userId: string): Promise<number> {
    const result = await manager.delete(BlockEntity, { userId });
    return result.affected ?? 0;
  }

  /** All the user's friendships, oldest first (export). */
  friendshipsOf(userId: string): Promise<FriendshipEntity[]> {
    return this.friendships.find({ where: { userId }, order: { id: 'ASC' } });
  }

  /** All the blocks the user made, oldest first (export). */
  blocksBy(userId: string): Promise<BlockEntity[]> {
    return this.blocks.find({ where: { userId }, order: { id: 'ASC' } });
  }
}
