import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TransactionRunner } from '../database/transaction-runner';
import type { User } from '../users/user';
import { ProfileChangeAnnouncer } from '../users/profile-change-announcer';
import { OwnProfileChanges, UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import { AdminAuditService } from './admin-audit.service';
import type { AdminEditProfileDto } from './admin-browse.dto';
import { AdminUserListItemReply } from './admin-browse.reply';
import { AdminBrowseService } from './admin-browse.service';

const audited = (u: Pick<User, 'nickname' | 'avatar'>) => ({ nickname: u.nickname, avatar: u.avatar });

/**
 * The operator's edit of the profile fields the host owns (nickname, avatar). Only where the
 * bundled host application runs (HOST_APP_ENABLED) is this service the owner of those profiles;
 * otherwise the host's next token or upsert call would overwrite the edit, so it is refused
 * (1202). The change, its user.profile_updated event (to the user and their friends) and the
 * audit row commit together.
 */
@Injectable()
export class AdminProfileService {
  constructor(
    private readonly users: UsersService,
    private readonly announcer: ProfileChangeAnnouncer,
    private readonly audit: AdminAuditService,
    private readonly browse: AdminBrowseService,
    private readonly tx: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get editable(): boolean {
    return this.config.hostApp.enabled;
  }

  async edit(actor: AdminActor, dto: AdminEditProfileDto): Promise<AdminUserListItemReply> {
    if (!this.editable)
      throw new AppError(
        ErrorCode.CAPABILITY_CLOSED,
        'profile: the host application owns user profiles here; the console edits them only where the bundled host app runs (HOST_APP_ENABLED=true)',
      );
    const changes: OwnProfileChanges = {};
    if (dto.nickname !== undefined) changes.nickname = dto.nickname;
    if (dto.avatar !== undefined) changes.avatar = dto.avatar;
    if (Object.keys(changes).length === 0) throw AppError.invalid('body', 'send at least one of nickname, avatar');
    const user = await this.users.findByExternalId(dto.user_id);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    if (user.erasedAt !== null) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: the user was erased');
    const after = await this.tx.run(async (manager) => {
      const result = await this.users.updateOwnProfile(manager, user.id, changes);
      if (!result.changed) return result.user;
      await this.announcer.announce(manager, result.user);
      await this.audit.record(manager, actor, {
        action: 'user.profile_edited',
        targetType: 'user',
        targetId: user.externalId,
        before: audited(user),
        after: audited(result.user),
      });
      return result.user;
    });
    return (await this.browse.userItems([after]))[0];
  }
}
