import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-errors';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { DurableEventMap, GroupEventFields, GroupEventType } from '../contract/events';
import { OutboxWriter } from '../outbox/outbox-writer';
import type { User } from '../users/user';
import { UsersService } from '../users/users.service';
import { GroupMemberEntity, GroupRole } from './group-member.entity';
import { GroupEntity } from './group.entity';
import { GroupFacts, GroupReply, GroupSummary, toGroupReply, toGroupSummary } from './group.mapper';
import { GroupsRepository } from './groups.repository';

/** The group and the caller's current membership, once every access rule has passed. */
export interface GroupContext {
  group: GroupEntity;
  me: GroupMemberEntity;
}

/** Who may do an operation, and how to say it when the caller may not. */
export interface RoleRule {
  roles: readonly GroupRole[];
  action: string;
}

export const ANY_MEMBER: RoleRule = { roles: ['owner', 'admin', 'member'], action: '' };
export const OWNER_OR_ADMIN = (action: string): RoleRule => ({
  roles: ['owner', 'admin'],
  action: `only the owner or an admin can ${action}`,
});
export const OWNER_ONLY = (action: string): RoleRule => ({ roles: ['owner'], action: `only the owner can ${action}` });

export const forbidden = (msg: string): AppError => new AppError(ErrorCode.GROUP_OPERATION_FORBIDDEN, msg);

/**
 * The access rules shared by every group endpoint, in this order: the group must exist and
 * the caller must be a current member (1209 for both, so existence does not leak); a dismissed
 * group is 1209; a disabled group is 1218 (checked after membership); then the caller's role
 * (1209). Also the helpers every group service uses: user resolution, reply building, events.
 */
@Injectable()
export class GroupAccess {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly users: UsersService,
    private readonly conversations: ConversationStore,
    private readonly outbox: OutboxWriter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** For reads, outside a transaction. */
  async forMember(publicId: string, userId: string, rule: RoleRule = ANY_MEMBER): Promise<GroupContext> {
    const group = await this.groups.findByPublicId(publicId);
    const membership = group ? await this.groups.findMembership(group.id, userId) : null;
    return this.check(group, membership, rule);
  }

  /** The group's internal ID, resolved before a write transaction starts (1209 when absent). */
  async resolveGroupId(publicId: string): Promise<string> {
    const group = await this.groups.findByPublicId(publicId);
    if (!group) throw forbidden('group_id: group absent or you are not a member');
    return group.id;
  }

  /**
   * For writes, first thing in the transaction: locks the group row (MySQL) so that changes of
   * one group are serialised, then checks the rules against the latest committed state.
   */
  async lockForMember(
    manager: EntityManager,
    groupId: string,
    userId: string,
    rule: RoleRule = ANY_MEMBER,
  ): Promise<GroupContext> {
    const group = await this.groups.lockById(manager, groupId);
    const membership = group ? await this.groups.findMembership(group.id, userId, manager) : null;
    return this.check(group, membership, rule);
  }

  private check(group: GroupEntity | null, membership: GroupMemberEntity | null, rule: RoleRule): GroupContext {
    if (!group || !membership) throw forbidden('group_id: group absent or you are not a member');
    if (group.dismissedAt !== null) throw forbidden('group_id: the group was dismissed');
    if (membership.status !== 'active') throw forbidden('group_id: you are no longer a member of this group');
    if (group.disabled) throw new AppError(ErrorCode.GROUP_DISABLED, 'group_id: the group is disabled');
    if (!rule.roles.includes(membership.role)) throw forbidden(rule.action);
    return { group, me: membership };
  }

  /**
   * Users named by external ID, in the given order; 1204 naming the first unknown one. With
   * `active`, a disabled user counts as unknown too (as for profiles and friend requests): nobody
   * is made a member or owner of a group on a disabled account. Existing members stay reachable
   * without it, so they can still be removed, muted or demoted.
   */
  async resolveUsers(externalIds: readonly string[], field: string, active = false): Promise<User[]> {
    const users = await Promise.all(externalIds.map((id) => this.users.findByExternalId(id)));
    const missing = users.findIndex((user) => !user || (active && this.users.isDisabled(user)));
    if (missing >= 0)
      throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, `${field}: no such user "${externalIds[missing]}"`);
    return users as User[];
  }

  async resolveUser(externalId: string, field: string, active = false): Promise<User> {
    return (await this.resolveUsers([externalId], field, active))[0];
  }

  /** Users by internal ID, in one query. */
  async usersById(ids: readonly string[]): Promise<Map<string, User>> {
    return new Map((await this.users.findByIds(ids)).map((u) => [String(u.id), u]));
  }

  async facts(group: GroupEntity, manager?: EntityManager): Promise<GroupFacts> {
    const [owner, memberCount] = await Promise.all([
      this.users.findById(group.ownerId, manager),
      this.groups.countActiveMembers(group.id, manager),
    ]);
    return { ownerUserId: owner?.externalId ?? '', memberCount };
  }

  /** The caller's view of the group as it is now (re-read, so it reflects the transaction's writes). */
  async reply(groupId: string, role: GroupRole, manager?: EntityManager): Promise<GroupReply> {
    const group = await this.groups.findById(groupId, manager);
    if (!group) throw new Error(`group ${groupId} vanished`);
    return toGroupReply(group, await this.facts(group, manager), role, this.config.defaultAvatarUrl);
  }

  async summary(groupId: string, manager: EntityManager): Promise<GroupSummary> {
    const group = await this.groups.findById(groupId, manager);
    if (!group) throw new Error(`group ${groupId} vanished`);
    return toGroupSummary(group, await this.facts(group, manager), this.config.defaultAvatarUrl);
  }

  get defaultAvatarUrl(): string {
    return this.config.defaultAvatarUrl;
  }

  /** The group's conversation (created with the group). */
  async conversationId(groupId: string, manager: EntityManager): Promise<string> {
    const conversation = await this.conversations.findByGroupId(groupId, manager);
    if (!conversation) throw new Error(`group ${groupId} has no conversation`);
    return conversation.id;
  }

  /**
   * Appends a shared group event (no private state) for every current member of the group's
   * conversation plus `alsoTo` (members who just left or were removed). The payload always
   * carries the group's summary after the change.
   */
  async emit<T extends GroupEventType>(
    manager: EntityManager,
    groupId: string,
    conversationId: string,
    type: T,
    fields: GroupEventFields<T>,
    now: number,
    alsoTo: readonly string[] = [],
  ): Promise<string> {
    const members = await this.conversations.findCurrentMembers(conversationId, manager);
    return this.emitTo(manager, groupId, type, fields, now, [...members.map((m) => m.userId), ...alsoTo]);
  }

  /** Appends a group event for exactly `recipients` (no private state). */
  async emitTo<T extends GroupEventType>(
    manager: EntityManager,
    groupId: string,
    type: T,
    fields: GroupEventFields<T>,
    now: number,
    recipients: readonly string[],
  ): Promise<string> {
    const group = await this.summary(groupId, manager);
    const payload = {
      group_id: group.group_id,
      conversation_id: group.conversation_id,
      ...fields,
      group,
    } as DurableEventMap[T]['shared'];
    return this.outbox.append<T>(manager, { type, payload, recipients: recipients.map((userId) => ({ userId })) }, now);
  }
}

/**
 * Runs a membership write again when a unique key reports that a concurrent writer created
 * the same membership first; the second run sees that row and converges on it.
 */
export async function convergeOnMembershipRace<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!isUniqueViolation(error, 'group_members')) throw error;
    return work();
  }
}
