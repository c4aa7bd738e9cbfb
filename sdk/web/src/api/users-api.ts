import type {
  ProfileReply,
  ProfileUpdateReply,
  UpdateProfileRequest,
  UserProfileQuery,
  PresenceQueryReply,
  PresenceQueryRequest,
  UsernameLookupQuery,
  UserReply,
} from '../../../../src/contract/index.js';
import type { ApiTransport } from './transport.js';

/**
 * The SDK endpoints for profiles: the user's own (read and update), another user's, and lookup
 * by username.
 */
export class UsersApi {
  /** @hidden */
  constructor(
    private readonly transport: ApiTransport,
    private readonly onOwnProfile: (user: UserReply) => void = () => undefined,
  ) {}

  /** The logged-in user's own profile, as the service holds it. */
  me(): Promise<ProfileReply> {
    return this.transport.get<ProfileReply>('/app/sdk/users/me');
  }

  /**
   * Changes the user's own nickname, username, avatar or signature (at least one; absent or null
   * keeps a value, `username: ""` removes it, `avatar: ""` selects the default). A username taken
   * by another user is 1004 and nothing changes. `event_id` is null when nothing changed;
   * otherwise `user.profile_updated` reaches the user's devices and friends.
   * `client.currentUser` takes the new profile at once (and from the event on the other devices).
   */
  async updateMe(changes: UpdateProfileRequest): Promise<ProfileUpdateReply> {
    const reply = await this.transport.post<ProfileUpdateReply>('/app/sdk/users/me/update', changes);
    this.onOwnProfile(reply.user);
    return reply;
  }

  /** Another user's public profile. 1204 when the user does not exist, is disabled or has blocked this user. */
  profile(userId: string): Promise<ProfileReply> {
    const query: UserProfileQuery = { user_id: userId };
    return this.transport.get<ProfileReply>('/app/sdk/users/profile', { ...query });
  }

  /**
   * Finds a user by exact (case-sensitive) username, e.g. to send a friend request. 1204 when
   * nobody has it, or that user is disabled or has blocked this user.
   */
  lookup(username: string): Promise<ProfileReply> {
    const query: UsernameLookupQuery = { username };
    return this.transport.get<ProfileReply>('/app/sdk/users/lookup', { ...query });
  }

  /**
   * Friends' presence now (1–100 user IDs; users who are not friends are left out). The
   * `client.presence` store asks this for the friends list once connected, then follows
   * `presence.changed`; call it yourself for users the store does not track.
   */
  presence(userIds: readonly string[]): Promise<PresenceQueryReply> {
    const body: PresenceQueryRequest = { user_ids: [...userIds] };
    return this.transport.post<PresenceQueryReply>('/app/sdk/presence/query', body);
  }
}
