import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationStore } from '../conversations/conversation-store.service';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { AuthUser } from '../common/auth-user';
import { CreateInvitationDto, JoinGroupDto } from './dto/group.dto';
import { GroupAccess, OWNER_OR_ADMIN, convergeOnMembershipRace } from './group-access.service';
import { GroupsRepository } from './groups.repository';
import { GroupChangeReply, InvitationReply } from './groups.reply';

export const MIN_INVITATION_TTL_SECONDS = 60;
const CODE_ATTEMPTS = 3;

/** 18 random bytes as unpadded Base64URL: 24 characters, 144 bits. */
function newCode(): string {
  return randomBytes(18).toString('base64url');
}

const invalid = (why: string): AppError => new AppError(ErrorCode.INVITATION_INVALID, `code: ${why}`);

/** Invitation codes: created by the owner or an admin, redeemed by anyone holding one. */
@Injectable()
export class GroupInvitationsService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly conversations: ConversationStore,
    private readonly access: GroupAccess,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Owner or admin. The code is random and unique (its key decides a collision). The event
   * `group.invitation_created` goes to the creator only and does not carry the code.
   */
  async create(user: AuthUser, dto: CreateInvitationDto): Promise<InvitationReply> {
    const max = this.config.messaging.invitationTtlSeconds;
    const ttl = dto.ttl_seconds ?? max;
    if (ttl < MIN_INVITATION_TTL_SECONDS || ttl > max)
      throw AppError.invalid('ttl_seconds', `must be an integer from ${MIN_INVITATION_TTL_SECONDS} to ${max}`);
    const groupId = await this.access.resolveGroupId(dto.group_id);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tx.run(async (manager) => {
          const { group } = await this.access.lockForMember(
            manager,
            groupId,
            user.internalId,
            OWNER_OR_ADMIN('create invitations'),
          );
          const now = this.clock.now();
          const invitation = await this.groups.insertInvitation(manager, {
            code: newCode(),
            groupId: group.id,
            createdBy: user.internalId,
            expiresAt: now + ttl * 1000,
            now,
          });
          const eventId = await this.access.emitTo(
            manager,
            group.id,
            'group.invitation_created',
            { operator_user_id: user.externalId, expires_at: invitation.expiresAt },
            now,
            [user.internalId],
          );
          return {
            code: invitation.code,
            group_id: group.publicId,
            expires_at: invitation.expiresAt,
            event_id: eventId,
          };
        });
      } catch (error) {
        if (!isUniqueViolation(error, 'group_invitations') || attempt >= CODE_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * 1210 when the code is unknown, revoked or expired, when the group was dismissed, or when its
   * creator is no longer the owner or an admin; 1218 when the group is disabled. A current
   * member gets the group again with event_id null; a former member rejoins.
   */
  async join(user: AuthUser, dto: JoinGroupDto): Promise<GroupChangeReply> {
    const invitation = await this.groups.findInvitationByCode(dto.code);
    if (!invitation || invitation.revoked || invitation.expiresAt <= this.clock.now())
      throw invalid('unknown, revoked or expired invitation');
    return convergeOnMembershipRace(() =>
      this.tx.run(async (manager) => {
        const group = await this.groups.lockById(manager, invitation.groupId);
        if (!group || group.dismissedAt !== null) throw invalid('the group was dismissed');
        if (group.disabled) throw new AppError(ErrorCode.GROUP_DISABLED, 'code: the group is disabled');
        const inviter = await this.groups.findActiveMembership(group.id, invitation.createdBy, manager);
        if (!inviter || inviter.role === 'member')
          throw invalid('whoever created this invitation can no longer invite');
        const existing = await this.groups.findActiveMembership(group.id, user.internalId, manager);
        if (existing) return { group: await this.access.reply(group.id, existing.role, manager), event_id: null };
        const now = this.clock.now();
        await this.groups.activateMembers(manager, group.id, [user.internalId], 'member', now);
        const conversationId = await this.access.conversationId(group.id, manager);
        await this.conversations.openMember(manager, conversationId, user.internalId, now);
        const eventId = await this.access.emit(
          manager,
          group.id,
          conversationId,
          'group.member_joined',
          { operator_user_id: user.externalId, user_id: user.externalId, via: 'invitation' },
          now,
        );
        return { group: await this.access.reply(group.id, 'member', manager), event_id: eventId };
      }),
    );
  }
}
