import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { CursorCodec } from '../common/pagination/cursor';
import { ConversationStore } from '../conversations/conversation-store.service';
import { TransactionRunner } from '../database/transaction-runner';
import type { Group } from '../groups/group';
import { GroupDirectory } from '../groups/group-directory.service';
import { GroupsService } from '../groups/groups.service';
import { type User, disabledMessage } from '../users/user';
import { UsersService } from '../users/users.service';
import { PresenceService } from '../realtime/presence.service';
import type { AdminActor } from './admin-actor';
import type { ReportLink } from './report-link';
import { AdminAuditService } from './admin-audit.service';
import {
  AdminGroupDismissReply,
  AdminGroupMembersPageReply,
  AdminGroupReply,
  AdminUserDetailReply,
  AdminUserReply,
  toAdminGroupMemberReply,
  toAdminGroupReply,
  toAdminUserReply,
} from './admin-moderation.reply';
import { GroupMembersQueryDto } from './admin.dto';
import { pageOf } from './admin-pages';
import { UserStatusChange, disableTerms } from './admin-disable-terms';

const PAGE = 50;

const auditedUser = (u: User) => ({
  disabled: u.disabled,
  disabled_until: u.disabledUntil,
  disabled_reason: u.disabledReason,
  token_version: u.tokenVersion,
});
const auditedGroup = (g: Group) => ({ disabled: g.disabled, dismissed_at: g.dismissedAt });

/**
 * Users and groups as the operator sees them. Disabling a user and forcing a logout are the
 * host endpoints' changes (POST /app/sdk/users/status, /revoke-tokens), made through
 * UsersService with the audit row in the same transaction; live sockets close after commit.
 */
@Injectable()
export class AdminDirectoryService {
  constructor(
    private readonly users: UsersService,
    private readonly groups: GroupDirectory,
    private readonly groupsService: GroupsService,
    private readonly conversations: ConversationStore,
    private readonly audit: AdminAuditService,
    private readonly presence: PresenceService,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async userDetail(externalId: string): Promise<AdminUserDetailReply> {
    const user = await this.requireUser(externalId);
    const [groupCount, conversationCount, presence] = await Promise.all([
      this.groups.countActiveGroupsOfUser(user.id),
      this.conversations.countCurrentForUser(user.id),
      this.presence.stateOf(String(user.id)),
    ]);
    return {
      user: toAdminUserReply(user, this.clock.now()),
      group_count: groupCount,
      conversation_count: conversationCount,
      online: presence?.online ?? null,
      last_seen_at: presence?.lastSeenAt ?? null,
    };
  }

  /**
   * Disable (for `durationSeconds`, or for good; with a reason the user's client is shown as the
   * 1003 error's msg) or enable. A repeat with other terms replaces them. Live sockets close after
   * the commit, carrying the same msg.
   */
  async setUserDisabled(actor: AdminActor, externalId: string, change: UserStatusChange): Promise<AdminUserReply> {
    const terms = disableTerms(change, this.clock.now());
    const { before, after } = await this.tx.run(async (manager) => {
      const result = await this.users.setDisabledWith(manager, externalId, change.disabled, terms);
      await this.audit.record(manager, actor, {
        action: change.disabled ? 'user.disabled' : 'user.enabled',
        targetType: 'user',
        targetId: externalId,
        before: auditedUser(result.before),
        after: auditedUser(result.after),
        reportId: change.report?.id,
      });
      await change.report?.linked(manager);
      return result;
    });
    const newlyDisabled = this.users.isDisabled(after) && !this.users.isDisabled(before);
    const reasonChanged = this.users.isDisabled(after) && after.disabledReason !== before.disabledReason;
    this.users.accessChanged(after.id, newlyDisabled || reasonChanged ? 'disabled' : null, disabledMessage(after));
    return toAdminUserReply(after, this.clock.now());
  }

  async forceLogout(actor: AdminActor, externalId: string): Promise<AdminUserReply> {
    const { after } = await this.tx.run(async (manager) => {
      const change = await this.users.revokeTokensWith(manager, externalId);
      await this.audit.record(manager, actor, {
        action: 'user.tokens_revoked',
        targetType: 'user',
        targetId: externalId,
        before: auditedUser(change.before),
        after: auditedUser(change.after),
      });
      return change;
    });
    this.users.accessChanged(after.id, 'revoked');
    return toAdminUserReply(after, this.clock.now());
  }

  async groupMembers(actor: AdminActor, dto: GroupMembersQueryDto): Promise<AdminGroupMembersPageReply> {
    const group = await this.requireGroup(dto.group_id);
    const filters = { group: group.id };
    const after = dto.cursor ? this.cursors.decode<string>(dto.cursor, actor.id, 'admin.group_members', filters) : null;
    const rows = await this.groups.listActiveMembers(group.id, after, PAGE + 1);
    const users = new Map((await this.users.findByIds(rows.map((m) => m.userId))).map((u) => [String(u.id), u]));
    return pageOf(
      rows,
      PAGE,
      (m) => toAdminGroupMemberReply(m, users.get(m.userId)),
      (last) => this.cursors.encode(actor.id, 'admin.group_members', filters, String(last.userId)),
    );
  }

  /** A disabled group answers 1218 to every member's group operation and send. */
  async setGroupDisabled(
    actor: AdminActor,
    publicId: string,
    disabled: boolean,
    report?: ReportLink,
  ): Promise<AdminGroupReply> {
    const group = await this.requireGroup(publicId);
    const after = Object.assign({}, group, { disabled });
    await this.tx.run(async (manager) => {
      // Read under the row lock: a dismissal committed meanwhile must refuse the switch.
      const now = await this.groups.lockSwitches(manager, group.id);
      if (!now || now.dismissedAt !== null)
        throw new AppError(ErrorCode.GROUP_OPERATION_FORBIDDEN, 'group_id: the group was dismissed');
      const before = { ...group, disabled: now.disabled };
      if (before.disabled !== disabled) {
        after.updatedAt = this.clock.now();
        await this.groups.setDisabled(manager, group.id, disabled, after.updatedAt);
      }
      await this.audit.record(manager, actor, {
        action: disabled ? 'group.disabled' : 'group.enabled',
        targetType: 'group',
        targetId: group.publicId,
        before: auditedGroup(before),
        after: auditedGroup(after),
        reportId: report?.id,
      });
      await report?.linked(manager);
    });
    const [owners, count] = await Promise.all([
      this.users.findByIds([group.ownerId]),
      this.groups.countActiveMembers(group.id),
    ]);
    return toAdminGroupReply(after, owners[0]?.externalId ?? '', count);
  }

  /** The owner's dismissal, made by the operator (GroupsService.dismissAsOperator). */
  dismissGroup(actor: AdminActor, publicId: string, report?: ReportLink): Promise<AdminGroupDismissReply> {
    return this.groupsService.dismissAsOperator(publicId, async (manager, before, reply) => {
      await this.audit.record(manager, actor, {
        action: 'group.dismissed',
        targetType: 'group',
        targetId: before.publicId,
        before: auditedGroup(before),
        after: { disabled: before.disabled, dismissed_at: reply.dismissed_at },
        reportId: report?.id,
      });
      await report?.linked(manager);
    });
  }

  private async requireUser(externalId: string): Promise<User> {
    const user = await this.users.findByExternalId(externalId);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    return user;
  }

  private async requireGroup(publicId: string): Promise<Group> {
    const group = await this.groups.findByPublicId(publicId);
    if (!group) throw new AppError(ErrorCode.GROUP_OPERATION_FORBIDDEN, 'group_id: no such group');
    return group;
  }
}
