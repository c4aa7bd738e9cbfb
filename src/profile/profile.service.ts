import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TransactionRunner } from '../database/transaction-runner';
import { Relationships } from '../friends/relationships.service';
import { AuthUser } from '../common/auth-user';
import { OutboxWriter } from '../outbox/outbox-writer';
import type { User } from '../users/user';
import { ProfileReply, toUserReply, UserReply } from '../users/user.mapper';
import { ProfileChangeAnnouncer } from '../users/profile-change-announcer';
import { OwnProfileChanges, UsersService } from '../users/users.service';
import { UsernameLookupQueryDto, UserProfileQueryDto } from './dto/profile-query.dto';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { ProfileUpdateReply } from './profile.reply';

const PROFILE_FIELDS = ['nickname', 'username', 'avatar', 'signature'] as const;

@Injectable()
export class ProfileService implements OnModuleInit {
  constructor(
    private readonly users: UsersService,
    private readonly friends: Relationships,
    private readonly outbox: OutboxWriter,
    private readonly profileChanges: ProfileChangeAnnouncer,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // The host's token and upsert calls change profiles in the users module; friends hear it as
    // they hear the user's own change.
    this.profileChanges.register((manager, user) => this.announce(manager, user.id, this.reply(user)));
  }

  async me(auth: AuthUser): Promise<ProfileReply> {
    const user = await this.users.findById(auth.internalId);
    // The token guard found the user a moment ago, and users are never deleted.
    if (!user) throw new Error(`user ${auth.internalId} vanished`);
    return { user: this.reply(user) };
  }

  /** The change and its event, to the user and their friends, commit together. */
  update(auth: AuthUser, dto: UpdateProfileDto): Promise<ProfileUpdateReply> {
    if (dto.user_id != null && dto.user_id !== auth.externalId)
      throw AppError.invalid('user_id', 'cannot be changed; omit it or send your own');
    const changes: OwnProfileChanges = {};
    for (const field of PROFILE_FIELDS) {
      const value = dto[field];
      if (value !== undefined && value !== null) changes[field] = value;
    }
    if (Object.keys(changes).length === 0)
      throw AppError.invalid('body', `send at least one of ${PROFILE_FIELDS.join(', ')}`);
    return this.tx.run(async (manager) => {
      const { user, changed } = await this.users.updateOwnProfile(manager, auth.internalId, changes);
      const reply = this.reply(user);
      if (!changed) return { user: reply, event_id: null };
      return { user: reply, event_id: await this.announce(manager, auth.internalId, reply) };
    });
  }

  /** `user.profile_updated` to the user's devices and friends, in the caller's transaction. */
  private async announce(manager: EntityManager, userId: string, user: UserReply): Promise<string> {
    const friendIds = await this.friends.friendIds(userId, manager);
    return this.outbox.append(
      manager,
      {
        type: 'user.profile_updated',
        payload: { user },
        recipients: [userId, ...friendIds].map((id) => ({ userId: id })),
      },
      this.clock.now(),
    );
  }

  async profile(auth: AuthUser, query: UserProfileQueryDto): Promise<ProfileReply> {
    return { user: await this.visibleTo(auth, await this.users.findByExternalId(query.user_id), 'user_id') };
  }

  async lookup(auth: AuthUser, query: UsernameLookupQueryDto): Promise<ProfileReply> {
    return { user: await this.visibleTo(auth, await this.users.findByUsername(query.username), 'username') };
  }

  /** Absent, disabled and "has blocked the caller" answer alike, so a block does not show. */
  private async visibleTo(auth: AuthUser, user: User | null, field: string): Promise<UserReply> {
    const hidden =
      !user ||
      this.users.isDisabled(user) ||
      (user.id !== auth.internalId && (await this.friends.hasBlocked(user.id, auth.internalId)));
    if (hidden) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, `${field}: profile inaccessible`);
    return this.reply(user);
  }

  private reply(user: User): UserReply {
    return toUserReply(user, this.config.defaultAvatarUrl);
  }
}
