import type {
  AcceptFriendRequestReply,
  BlockPageReply,
  BlockStateReply,
  EventReply,
  FriendPageReply,
  FriendRequestPageReply,
  FriendRequestRefRequest,
  FriendRequestsQuery,
  FriendUserRequest,
  ListQuery,
  RejectFriendRequestReply,
  SendFriendRequestReply,
  SendFriendRequestRequest,
} from '../../../../src/contract/index.js';
import { randomMessageId } from './messages-api.js';
import type { ApiTransport } from './transport.js';

/**
 * The SDK endpoints for friends, friend requests and blocks (capability `friends`; 1202 when
 * it is closed). Lists page by `cursor` (the previous page's `next_cursor`), 50 items a page.
 *
 * Each change also arrives as a real-time event on every device of the users concerned
 * (`friend.*`), which the stores follow; the replies' `event_id` is left for those events.
 */
export class FriendsApi {
  /** @hidden */
  constructor(private readonly transport: ApiTransport) {}

  /** The user's friends with their one-to-one `conversation_id`, most recent friendship first. */
  list(query: ListQuery = {}): Promise<FriendPageReply> {
    return this.transport.get<FriendPageReply>('/app/sdk/friends', { ...query });
  }

  /**
   * Ends a friendship for both users (`friends/delete`); the conversation's history stays, and
   * sending to it is refused (1203) from then on. Not a friend: 1204.
   */
  remove(userId: string): Promise<EventReply> {
    return this.transport.post<EventReply>('/app/sdk/friends/delete', { user_id: userId } satisfies FriendUserRequest);
  }

  /**
   * Sends a friend request. `request_id` is the idempotency key: pass the same one (with the same
   * message) to retry safely; a new one is made when absent. A request already pending to that
   * user is answered instead of a new one; when that user had already asked, both become friends
   * at once (`friend` is set). Refusals: an unknown or disabled user 1204, oneself 1004, already
   * friends 1206, a block either way 1211.
   */
  sendRequest(
    userId: string,
    options: Partial<Omit<SendFriendRequestRequest, 'user_id'>> = {},
  ): Promise<SendFriendRequestReply> {
    const body: SendFriendRequestRequest = {
      user_id: userId,
      request_id: options.request_id ?? randomMessageId(),
    };
    if (options.message !== undefined) body.message = options.message;
    return this.transport.post<SendFriendRequestReply>('/app/sdk/friends/requests', body);
  }

  /**
   * Friend requests sent to the user (`incoming`) or by the user (`outgoing`), newest first; every
   * status unless `status` is given.
   */
  listRequests(
    direction: FriendRequestsQuery['direction'],
    options: Omit<FriendRequestsQuery, 'direction'> = {},
  ): Promise<FriendRequestPageReply> {
    const query: FriendRequestsQuery = { direction, ...options };
    return this.transport.get<FriendRequestPageReply>('/app/sdk/friends/requests', { ...query });
  }

  /**
   * Accepts a pending request addressed to the user (its `id`): both become friends and get their
   * one-to-one conversation. Not addressed to the user or no longer pending 1205; already friends
   * 1206; a block either way 1211.
   */
  acceptRequest(requestId: string): Promise<AcceptFriendRequestReply> {
    return this.transport.post<AcceptFriendRequestReply>('/app/sdk/friends/requests/accept', {
      id: requestId,
    } satisfies FriendRequestRefRequest);
  }

  /** Rejects a pending request addressed to the user (its `id`). Not addressed to the user or no longer pending 1205. */
  rejectRequest(requestId: string): Promise<RejectFriendRequestReply> {
    return this.transport.post<RejectFriendRequestReply>('/app/sdk/friends/requests/reject', {
      id: requestId,
    } satisfies FriendRequestRefRequest);
  }

  /**
   * Blocks a user (idempotent: `event_id` null when already blocked). A friendship stays, but
   * messages (1203) and friend requests (1211) are refused both ways, and the blocked user no
   * longer sees the blocker's profile (1204).
   */
  block(userId: string): Promise<BlockStateReply> {
    return this.transport.post<BlockStateReply>('/app/sdk/friends/block', {
      user_id: userId,
    } satisfies FriendUserRequest);
  }

  /** Unblocks a user (idempotent: `event_id` null when not blocked). */
  unblock(userId: string): Promise<BlockStateReply> {
    return this.transport.post<BlockStateReply>('/app/sdk/friends/unblock', {
      user_id: userId,
    } satisfies FriendUserRequest);
  }

  /** The users this user blocks, most recent first. */
  listBlocks(query: ListQuery = {}): Promise<BlockPageReply> {
    return this.transport.get<BlockPageReply>('/app/sdk/friends/blocks', { ...query });
  }
}
