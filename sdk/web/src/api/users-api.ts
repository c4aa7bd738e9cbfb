import type {
  ProfileReply,
  ProfileUpdateReply,
  UpdateProfileRequest,
  UserProfileQuery,
  UsernameLookupQuery,
} from '../../../../src/contract/index.js';
import type { ApiTransport } from './transport.js';

/**
 * The SDK endpoints for profiles: the user's own (read and update), another user's, and lookup
 * by username.
 */
export class UsersApi {
  /** @hidden */
  constructor(private readonly transport: ApiTransport) {}

  /** The logged-in user's own profile, as the service holds it. */
  me(): Promise<ProfileReply> {
    return this.transport.get<ProfileReply>('/app/sdk/users/me');
  }

  /**
   * Changes the user's own nickname, username, avatar or signature (at least one; absent or null
   * keeps a value, `username: ""` removes it, `avatar: ""` selects the default). A username taken
   * by another user is 1004 and nothing changes. `event_id` is null when nothing changed;
   * otherwise `user.profile_updated` reaches the user's devices and friends.
   * `client.refreshCurrentUser` updates the local display.
   */
  updateMe(changes: UpdateProfileRequest): Promise<ProfileUpdateReply> {
    return this.transport.post<ProfileUpdateReply>('/app/sdk/users/me/update', changes);
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
}
