import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AdminAuditService } from '../admin/admin-audit.service';
import { ActivityTracker } from '../analytics/activity-tracker.service';
import { ClientErrorRecordsService } from '../client-errors/client-error-records.service';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { UserErasureCounts, UserErasureReply, UserErasureStatus } from '../contract/server-users';
import { ConversationStore } from '../conversations/conversation-store.service';
import { TransactionRunner } from '../database/transaction-runner';
import { FriendsErasure } from '../friends/friends-erasure.service';
import { GroupErasure } from '../groups/group-erasure.service';
import { HostAccountErasure } from '../host-app/host-account-erasure.service';
import { MediaErasure } from '../media/media-erasure.service';
import { OutboxWriter } from '../outbox/outbox-writer';
import type { User } from '../users/user';
import { toUserReply } from '../users/user.mapper';
import { UsersService } from '../users/users.service';
import type { HostActor } from './host-actor';
import { EraseUserDto } from './user-erasure.dto';
import { ErasureMessages } from './user-erasure-messages';
import { UserErasureRepository } from './user-erasure.repository';
import { RecordReply, ServerRequestsService } from './server-requests.service';
import { PushService } from '../push/push.service';

/** What an erased profile shows. */
export const ERASED_NICKNAME = 'Deleted user';

/** How long an erasure holds its user before a repeat may take over (renewed after every page of messages). */
const LEASE_MS = 120_000;

/** The unguessable external ID an erased user keeps, so the host's ID is free for a new user. */
export function tombstoneExternalId(): string {
  return `erased_${randomBytes(16).toString('hex')}`;
}

const NO_COUNTS: UserErasureCounts = {
  friendships_ended: 0,
  friend_requests_deleted: 0,
  blocks_deleted: 0,
  groups_left: 0,
  groups_transferred: 0,
  groups_dismissed: 0,
  messages_tombstoned: 0,
  media_deleted: 0,
  client_errors_deleted: 0,
  host_accounts_deleted: 0,
};

/**
 * `POST /app/server/users/erase`: a data-protection erasure, in the order that keeps it safe to
 * interrupt and repeat. First the user is locked out (tokens revoked, disabled, live sockets
 * closed), so nothing new is written while the rest runs; then each module removes what it
 * holds (friends, groups, messages, uploads, client errors, the bundled host app's account),
 * every step skipping what is already gone; last, in one transaction, the profile is emptied,
 * the external ID replaced by a tombstone, the audit row written and the erasure marked done.
 * Until that last step the user keeps their external ID, so a repeat after a failure finds them
 * and finishes the job; after it, the ID names nobody (a later token request creates a new
 * user). Two erasures of one user at once: the `user_erasures` row lets one run and the other
 * answers `in_progress`.
 */
@Injectable()
export class UserErasureService {
  constructor(
    private readonly users: UsersService,
    private readonly erasures: UserErasureRepository,
    private readonly friends: FriendsErasure,
    private readonly groups: GroupErasure,
    private readonly messages: ErasureMessages,
    private readonly media: MediaErasure,
    private readonly clientErrors: ClientErrorRecordsService,
    private readonly hostAccounts: HostAccountErasure,
    private readonly push: PushService,
    private readonly activity: ActivityTracker,
    private readonly conversations: ConversationStore,
    private readonly outbox: OutboxWriter,
    private readonly audit: AdminAuditService,
    private readonly requests: ServerRequestsService,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  erase(host: HostActor, dto: EraseUserDto): Promise<UserErasureReply> {
    const { traceId } = host;
    const requestId = dto.request_id;
    if (requestId === undefined) return this.run(dto.user_id, traceId, null);
    return this.requests.once<UserErasureReply>('users.erase', { ...dto, request_id: requestId }, (record) =>
      this.run(dto.user_id, traceId, record),
    );
  }

  private async run(
    externalId: string,
    traceId: string,
    record: RecordReply<UserErasureReply> | null,
  ): Promise<UserErasureReply> {
    const user = await this.users.findByExternalId(externalId);
    if (!user) return this.reply('not_found', null, NO_COUNTS);
    const claim = await this.erasures.claim(user.id, this.clock.now(), LEASE_MS);
    if (claim === 'held') return this.reply('in_progress', null, NO_COUNTS);
    if (claim === 'done') return this.reply('not_found', null, NO_COUNTS);
    try {
      return await this.steps(user, traceId, record);
    } catch (error) {
      await this.erasures.release(user.id);
      throw error;
    }
  }

  private async steps(
    user: User,
    traceId: string,
    record: RecordReply<UserErasureReply> | null,
  ): Promise<UserErasureReply> {
    const keepsMessages = this.config.erasure.keepsMessages;
    await this.tx.run((manager) => this.users.lockOutForErasure(manager, user.id));
    // Live sockets end with session.revoked (1102) on every instance, as a forced logout does.
    this.users.accessChanged(user.id, 'revoked');

    const renew = (): Promise<void> => this.erasures.renew(user.id, this.clock.now(), LEASE_MS);
    const first = await this.sweep(user, keepsMessages, renew);
    // A write authorised just before the lock-out (another instance's cached token state, a send
    // waiting on the before-send hook) may still commit after the first sweep: a second sweep,
    // once such writes have had time to finish, ends what they added.
    await new Promise((resolve) => setTimeout(resolve, this.settleMs()));
    await renew();
    const second = await this.sweep(user, keepsMessages, renew);
    const friends = {
      friendships: first.friends.friendships + second.friends.friendships,
      friendRequests: first.friends.friendRequests + second.friends.friendRequests,
      blocks: first.friends.blocks + second.friends.blocks,
      formerFriendIds: [...first.friends.formerFriendIds, ...second.friends.formerFriendIds],
    };
    const exits = [...first.exits, ...second.exits];
    const counts: UserErasureCounts = {
      friendships_ended: friends.friendships,
      friend_requests_deleted: friends.friendRequests,
      blocks_deleted: friends.blocks,
      groups_left: exits.length,
      groups_transferred: exits.filter((e) => e === 'transferred').length,
      groups_dismissed: exits.filter((e) => e === 'dismissed').length,
      messages_tombstoned: first.tombstoned + second.tombstoned,
      media_deleted: await this.media.deleteOwnedBy(user.id, keepsMessages),
      client_errors_deleted: await this.clientErrors.deleteOfUser(user.id),
      host_accounts_deleted: (await this.hostAccounts.deleteLinkedTo(user.externalId)) ? 1 : 0,
    };
    // Device tokens and push settings are the user's data too (the lock-out's revocation already dropped most).
    await this.push.eraseUser(user.id);
    // Which days they were active (DAU/MAU's source); the days' stored totals stay, as counts of nobody.
    await this.activity.eraseUser(user.id);
    // Everyone who may show the profile: former friends and the other side of each one-to-one conversation.
    const audience = [
      ...new Set([user.id, ...friends.formerFriendIds, ...(await this.conversations.directPeerIds(user.id))]),
    ];

    const reply = await this.tx.run(async (manager) => {
      const erased = await this.users.anonymiseForErasure(manager, user, tombstoneExternalId(), ERASED_NICKNAME);
      if (!erased) throw new Error(`user ${user.id} changed its external ID during its erasure`);
      const now = this.clock.now();
      // Named by the ID the audience knows, so that clients replace the profile they show.
      await this.outbox.append(
        manager,
        {
          type: 'user.profile_updated',
          payload: { user: toUserReply({ ...erased, externalId: user.externalId }, this.config.defaultAvatarUrl) },
          recipients: audience.map((userId) => ({ userId })),
        },
        now,
      );
      const done = this.reply('erased', now, counts);
      // The audit names the internal ID only: the external ID is the personal data being erased.
      await this.audit.recordHost(manager, traceId, {
        action: 'user.erase',
        targetType: 'user',
        targetId: user.id,
        before: null,
        after: { messages_kept: keepsMessages, counts },
      });
      await this.erasures.complete(manager, user.id, now);
      if (record) await record(manager, done);
      return done;
    });
    this.users.accessChanged(user.id, null);
    return reply;
  }

  /** Friendships and requests, groups, then the user's messages (unless they are kept). */
  private async sweep(user: User, keepsMessages: boolean, renew: () => Promise<void>) {
    const friends = await this.friends.endAll(user);
    await renew();
    const exits = await this.groups.leaveAll(user);
    await renew();
    const tombstoned = keepsMessages ? 0 : await this.messages.tombstoneAll(user, renew);
    return { friends, exits, tombstoned };
  }

  /** Long enough for a write authorised before the lock-out to commit: the auth cache, the before-send hook, a margin. */
  private settleMs(): number {
    const hook = this.config.beforeSend.url === null ? 0 : this.config.beforeSend.timeoutMs;
    return this.config.authCacheMs + hook + 500;
  }

  private reply(status: UserErasureStatus, erasedAt: number | null, counts: UserErasureCounts): UserErasureReply {
    return { status, erased_at: erasedAt, messages_kept: this.config.erasure.keepsMessages, counts: { ...counts } };
  }
}
