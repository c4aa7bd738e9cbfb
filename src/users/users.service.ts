import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { ProfileChangeAnnouncer } from './profile-change-announcer';
import { AccessChange, UserAccessEvents } from './user-access-events';
import { User, UserAuthState, disabledMessage, isDisabledAt } from './user';
import { DisableTerms, ProfileChanges, UsersRepository } from './users.repository';

/**
 * A public profile as sent by the host backend or the user. `undefined` or `null` leaves a
 * stored value unchanged; for `username`, '' removes the username, and for `avatar`, ''
 * selects the default avatar.
 */
export interface ProfileInput {
  externalId: string;
  nickname: string;
  username?: string | null;
  avatar?: string | null;
  signature?: string | null;
}

/** The fields a user may change on their own profile; `undefined` or `null` keeps the stored value. */
export type OwnProfileChanges = Partial<Omit<ProfileInput, 'externalId'>>;

const MAX_ATTEMPTS = 5;

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly accessEvents: UserAccessEvents,
    private readonly profileChanges: ProfileChangeAnnouncer,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates the user or brings its profile up to date. Uniqueness of the external ID and the
   * username is left to the database: a concurrent first call that loses the insert race
   * reads the winner's row and updates it instead, so N concurrent calls create one user.
   * `profile_updated_at` moves only when a field really changes.
   */
  async upsertProfile(profile: ProfileInput, options: { refuseDisabled?: boolean } = {}): Promise<User> {
    // The default avatar URL, sent back as shown, means "no avatar of one's own".
    const input = profile.avatar === this.config.defaultAvatarUrl ? { ...profile, avatar: '' } : profile;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const existing = await this.users.findByExternalId(input.externalId);
      if (existing?.erasedAt != null) throw erasedUser();
      if (existing && options.refuseDisabled && isDisabledAt(existing, this.clock.now()))
        throw new AppError(ErrorCode.USER_DISABLED, disabledMessage(existing));
      try {
        if (!existing) {
          return await this.users.insert({
            externalId: input.externalId,
            nickname: input.nickname,
            username: input.username ? input.username : null,
            avatar: input.avatar ?? '',
            signature: input.signature ?? '',
            now: this.clock.now(),
          });
        }
        const changes = this.diff(existing, input);
        if (Object.keys(changes).length === 0) return existing;
        const now = Math.max(this.clock.now(), existing.profileUpdatedAt + 1);
        const updated = Object.assign({ ...existing }, changes, { profileUpdatedAt: now, updatedAt: now });
        // The change and its user.profile_updated (to the user and their friends) commit together.
        await this.tx.run(async (manager) => {
          await this.users.updateProfile(existing.id, changes, now, manager);
          await this.profileChanges.announce(manager, updated);
        });
        return updated;
      } catch (error) {
        if (isUniqueViolation(error, 'username'))
          throw AppError.invalid('username', 'is already taken by another user');
        if (isUniqueViolation(error, 'external_id') && attempt < MAX_ATTEMPTS) continue;
        throw error;
      }
    }
    throw new Error('user upsert did not converge');
  }

  /**
   * The SDK user's own profile update (updateCurrentUser), written with the caller's
   * transaction so that the change and its event commit together. Same rules as the host
   * sync: a taken username is 1004, and `profile_updated_at` moves only on a real change.
   */
  async updateOwnProfile(
    manager: EntityManager,
    id: string,
    changes: OwnProfileChanges,
  ): Promise<{ user: User; changed: boolean }> {
    const input = changes.avatar === this.config.defaultAvatarUrl ? { ...changes, avatar: '' } : changes;
    const user = await this.users.findById(id, manager);
    // Only the user's own, authenticated profile is changed here, and users are never deleted.
    if (!user) throw new Error(`user ${id} vanished`);
    const diff = this.diff(user, input);
    if (Object.keys(diff).length === 0) return { user, changed: false };
    const now = Math.max(this.clock.now(), user.profileUpdatedAt + 1);
    try {
      await this.users.updateProfile(id, diff, now, manager);
    } catch (error) {
      if (isUniqueViolation(error, 'username')) throw AppError.invalid('username', 'is already taken by another user');
      throw error;
    }
    return { user: Object.assign(user, diff, { profileUpdatedAt: now, updatedAt: now }), changed: true };
  }

  /** `null` is treated as absent here too: a stored column is never set to null by a profile sync. */
  private diff(user: User, input: OwnProfileChanges): ProfileChanges {
    const changes: ProfileChanges = {};
    if (input.nickname != null && input.nickname !== user.nickname) changes.nickname = input.nickname;
    if (input.username != null) {
      const username = input.username === '' ? null : input.username;
      if (username !== user.username) changes.username = username;
    }
    if (input.avatar != null && input.avatar !== user.avatar) changes.avatar = input.avatar;
    if (input.signature != null && input.signature !== user.signature) changes.signature = input.signature;
    return changes;
  }

  // Reads for other modules. `manager` joins the caller's transaction.

  findById(id: string, manager?: EntityManager): Promise<User | null> {
    return this.users.findById(id, manager);
  }

  findByIds(ids: readonly string[]): Promise<User[]> {
    return this.users.findByIds(ids);
  }

  /** Internal user ID to external ID, for the users that exist. */
  async externalIds(ids: readonly string[]): Promise<Map<string, string>> {
    return new Map((await this.users.findByIds(ids)).map((u) => [u.id, u.externalId]));
  }

  findByExternalId(externalId: string, manager?: EntityManager): Promise<User | null> {
    return this.users.findByExternalId(externalId, manager);
  }

  findByExternalIds(externalIds: readonly string[]): Promise<User[]> {
    return this.users.findByExternalIds(externalIds);
  }

  findByUsername(username: string): Promise<User | null> {
    return this.users.findByUsername(username);
  }

  /** Whether the user is disabled now: a disable with an end lapses by itself (see isDisabledAt). */
  isDisabled(user: Pick<User, 'disabled' | 'disabledUntil'>): boolean {
    return isDisabledAt(user, this.clock.now());
  }

  /** Token version and disabled flag, cached for AUTH_CACHE_MS (every SDK request checks them). */
  findAuthState(id: string): Promise<UserAuthState | null> {
    return this.users.findAuthState(id);
  }

  /** findAuthState for many users, always from the database. */
  findAuthStates(ids: readonly string[]): Promise<Map<string, UserAuthState>> {
    return this.users.findAuthStates(ids);
  }

  /** See UsersRepository.lockPair: the first statement of a transaction between two users. */
  lockPair(manager: EntityManager, userA: string, userB: string): Promise<void> {
    return this.users.lockPair(manager, userA, userB);
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /**
   * The host's disable/enable (POST /app/sdk/users/status): a disable is for good and without a
   * reason; enabling clears any end and reason an operator set.
   */
  async setDisabled(externalId: string, disabled: boolean): Promise<User> {
    const user = await this.requireByExternalId(externalId);
    if (!disabled && user.erasedAt !== null) throw erasedUser();
    const lapsed = user.disabled && !isDisabledAt(user, this.clock.now());
    const stale = user.erasedAt === null && (user.disabledUntil !== null || user.disabledReason !== null);
    if (user.disabled !== disabled || lapsed || stale) {
      const now = this.clock.now();
      const wasDisabled = isDisabledAt(user, now);
      await this.users.setDisabled(user.id, disabled, now);
      Object.assign(user, { disabled, updatedAt: now });
      if (user.erasedAt === null) Object.assign(user, { disabledUntil: null, disabledReason: null });
      if (disabled && !wasDisabled) this.accessEvents.changed(user.id, 'disabled');
    }
    return user;
  }

  async revokeTokens(externalId: string): Promise<User> {
    const user = await this.requireByExternalId(externalId);
    await this.users.incrementTokenVersion(user.id, this.clock.now());
    this.accessEvents.changed(user.id, 'revoked');
    return user;
  }

  /**
   * The admin console's disable/enable: the same change as setDisabled, written with the
   * caller's transaction (which holds its audit row). Call accessChanged after the commit.
   * A disable may end by itself (`until`, Unix ms) and carry a reason the user's client is shown
   * as the 1003 error's `msg`; enabling clears both. A disable whose end has passed counts as
   * enabled, so enabling it changes only the stored row.
   */
  async setDisabledWith(
    manager: EntityManager,
    externalId: string,
    disabled: boolean,
    opts: { until?: number | null; reason?: string | null } = {},
  ): Promise<{ before: User; after: User }> {
    const user = await this.users.lockByExternalId(manager, externalId);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    if (!disabled && user.erasedAt !== null) throw erasedUser();
    // A disable for good ends only when someone enables the user: a timed one must not shorten it.
    if (disabled && opts.until != null && user.disabled && user.disabledUntil === null)
      throw AppError.invalid('duration_seconds', 'the user is already disabled for good; enable first');
    const before = { ...user };
    const terms: DisableTerms = disabled
      ? { until: user.erasedAt !== null ? null : (opts.until ?? null), reason: opts.reason ?? null }
      : { until: null, reason: null };
    if (
      user.disabled !== disabled ||
      (user.erasedAt === null && (user.disabledUntil !== terms.until || user.disabledReason !== terms.reason))
    ) {
      const now = this.clock.now();
      await this.users.setDisabled(user.id, disabled, now, manager, terms);
      Object.assign(user, {
        disabled,
        ...(user.erasedAt === null ? { disabledUntil: terms.until, disabledReason: terms.reason } : {}),
        updatedAt: now,
      });
    }
    return { before, after: user };
  }

  /** The admin console's forced logout: revokeTokens with the caller's transaction. Call accessChanged after the commit. */
  async revokeTokensWith(manager: EntityManager, externalId: string): Promise<{ before: User; after: User }> {
    const user = await this.requireByExternalId(externalId, manager);
    const before = { ...user };
    const now = this.clock.now();
    await this.users.incrementTokenVersion(user.id, now, manager);
    return { before, after: Object.assign(user, { tokenVersion: user.tokenVersion + 1, updatedAt: now }) };
  }

  /**
   * Erasure (server API): revokes every token and disables the user, with the caller's
   * transaction. Call accessChanged(id, 'revoked') after the commit to close live sessions.
   */
  lockOutForErasure(manager: EntityManager, id: string): Promise<void> {
    return this.users.lockOutForErasure(manager, id, this.clock.now());
  }

  /**
   * Erasure (server API): the profile emptied (nickname `nickname`, no username, avatar or
   * signature) and the external ID replaced by `tombstoneId`, so the host's ID is free for a new
   * user. Null when the user no longer carries `user.externalId` (already anonymised).
   */
  async anonymiseForErasure(
    manager: EntityManager,
    user: User,
    tombstoneId: string,
    nickname: string,
  ): Promise<User | null> {
    const now = Math.max(this.clock.now(), user.profileUpdatedAt + 1);
    const changed = await this.users.anonymise(
      manager,
      user.id,
      user.externalId,
      { externalId: tombstoneId, nickname },
      now,
    );
    if (!changed) return null;
    return {
      ...user,
      externalId: tombstoneId,
      nickname,
      username: null,
      avatar: '',
      signature: '',
      disabled: true,
      disabledUntil: null,
      disabledReason: null,
      lastActiveAt: null,
      erasedAt: now,
      profileUpdatedAt: now,
      updatedAt: now,
    };
  }

  /** How many users were active at or after `since` (analytics: today's MAU). */
  countActiveSince(since: number): Promise<number> {
    return this.users.countActiveSince(since);
  }

  /** The activity tracker's batched write of when users were last active (never moves a time back). */
  touchLastActive(userIds: readonly string[], at: number): Promise<void> {
    return this.users.touchLastActive(userIds, at);
  }

  /** After commit: caches forget the user's old state and live sessions close (as setDisabled and revokeTokens do). */
  accessChanged(userId: string, change: AccessChange | null, msg?: string): void {
    this.users.forgetAuthState(userId);
    if (change) this.accessEvents.changed(userId, change, msg);
  }

  private async requireByExternalId(externalId: string, manager?: EntityManager): Promise<User> {
    const user = await this.users.findByExternalId(externalId, manager);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    return user;
  }
}

/**
 * An erased user's row keeps its tombstone ID (peers' conversations still name it), but it is
 * nobody's account any more: no token, no profile, never enabled again.
 */
function erasedUser(): AppError {
  return new AppError(ErrorCode.USER_DISABLED, 'user_id names an erased user');
}
