import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { Alongside } from '../database/alongside';
import { TransactionRunner } from '../database/transaction-runner';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import { AuthUser } from '../common/auth-user';
import {
  GroupMembersChangeDto,
  GroupMembersQueryDto,
  GroupRefDto,
  MuteGroupMemberDto,
  SetGroupAdminDto,
} from './dto/group.dto';
import { GroupAccess, OWNER_ONLY, OWNER_OR_ADMIN, convergeOnMembershipRace, forbidden } from './group-access.service';
import { GROUP_PAGE_SIZE, decodeIdCursor } from './group-cursor';
import { GroupRole } from './group-member.entity';
import { toGroupMemberReply } from './group.mapper';
import { GroupsRepository } from './groups.repository';
import {
  GroupLeaveReply,
  GroupMemberPageReply,
  MemberMuteReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
} from './groups.reply';

/** Membership of a group: listing, adding, removing, leaving, admins and mutes. */
@Injectable()
export class GroupMembersService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly conversations: ConversationStore,
    private readonly access: GroupAccess,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    private readonly callChanges: RelationshipChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Current members in internal user ID order; any current member may list. */
  async list(user: AuthUser, dto: GroupMembersQueryDto): Promise<GroupMemberPageReply> {
    const filters = { group_id: dto.group_id };
    const after = dto.cursor
      ? decodeIdCursor(this.cursors, dto.cursor, user.internalId, 'groups.members', filters)
      : null;
    const { group } = await this.access.forMember(dto.group_id, user.internalId);
    const rows = await this.groups.listActiveMembers(group.id, after, GROUP_PAGE_SIZE + 1);
    const page = rows.slice(0, GROUP_PAGE_SIZE);
    const users = await this.access.usersById(page.map((m) => m.userId));
    const items = page.flatMap((member) => {
      const profile = users.get(member.userId);
      return profile ? [toGroupMemberReply(member, profile, this.access.defaultAvatarUrl)] : [];
    });
    const hasMore = rows.length > GROUP_PAGE_SIZE;
    return {
      items,
      next_cursor: hasMore
        ? this.cursors.encode(user.internalId, 'groups.members', filters, page[page.length - 1].userId)
        : null,
      has_more: hasMore,
    };
  }

  /**
   * Owner or admin. Current members are skipped, so a retry is harmless; former members rejoin
   * as plain members and see only messages sent from now on. Nothing added answers event_id null.
   */
  async add(
    user: AuthUser,
    dto: GroupMembersChangeDto,
    alongside?: Alongside<MembersAddedReply>,
  ): Promise<MembersAddedReply> {
    const targets = await this.access.resolveUsers(dto.user_ids, 'user_ids', true);
    const groupId = await this.access.resolveGroupId(dto.group_id);
    return convergeOnMembershipRace(() =>
      this.tx.run(async (manager) => {
        const { group } = await this.access.lockForMember(
          manager,
          groupId,
          user.internalId,
          OWNER_OR_ADMIN('add members'),
        );
        const active = new Set(
          (
            await this.groups.findMemberships(
              group.id,
              targets.map((u) => String(u.id)),
              manager,
            )
          )
            .filter((m) => m.status === 'active')
            .map((m) => m.userId),
        );
        const added = targets.filter((u) => !active.has(String(u.id)));
        if (added.length === 0) {
          const none = { added: [], event_id: null };
          await alongside?.(manager, none);
          return none;
        }
        const now = this.clock.now();
        const addedIds = added.map((u) => String(u.id));
        await this.groups.activateMembers(manager, group.id, addedIds, 'member', now);
        const conversationId = await this.access.conversationId(group.id, manager);
        await this.conversations.openMembers(manager, conversationId, addedIds, now);
        const addedExternal = added.map((u) => u.externalId);
        const eventId = await this.access.emit(
          manager,
          group.id,
          conversationId,
          'group.members_added',
          { operator_user_id: user.externalId, user_ids: addedExternal },
          now,
        );
        const reply = { added: addedExternal, event_id: eventId };
        await alongside?.(manager, reply);
        return reply;
      }),
    );
  }

  /**
   * Owner removes admins and members, an admin removes members only; nobody removes the owner
   * or themselves here (1209, and nothing is removed). Users who are not current members are
   * skipped; nothing removed answers event_id null.
   */
  async remove(
    user: AuthUser,
    dto: GroupMembersChangeDto,
    alongside?: Alongside<MembersRemovedReply>,
  ): Promise<MembersRemovedReply> {
    const targets = await this.access.resolveUsers(dto.user_ids, 'user_ids');
    const groupId = await this.access.resolveGroupId(dto.group_id);
    const reply = await this.tx.run(async (manager) => {
      const { group, me } = await this.access.lockForMember(
        manager,
        groupId,
        user.internalId,
        OWNER_OR_ADMIN('remove members'),
      );
      const memberships = new Map(
        (
          await this.groups.findMemberships(
            group.id,
            targets.map((u) => String(u.id)),
            manager,
          )
        ).map((m) => [m.userId, m]),
      );
      const removed = [];
      for (const target of targets) {
        const membership = memberships.get(String(target.id));
        if (String(target.id) === user.internalId)
          throw forbidden(`user_ids: you cannot remove yourself ("${target.externalId}"); leave the group instead`);
        if (!membership || membership.status !== 'active') continue;
        if (membership.role === 'owner')
          throw forbidden(`user_ids: the owner ("${target.externalId}") cannot be removed`);
        if (membership.role === 'admin' && me.role !== 'owner')
          throw forbidden(`user_ids: only the owner can remove an admin ("${target.externalId}")`);
        removed.push(target);
      }
      if (removed.length === 0) {
        const none = { removed: [], event_id: null };
        await alongside?.(manager, none);
        return none;
      }
      const now = this.clock.now();
      const conversationId = await this.access.conversationId(group.id, manager);
      for (const target of removed) await this.groups.markLeft(manager, group.id, String(target.id), 'removed', now);
      await this.conversations.closeMembers(
        manager,
        conversationId,
        removed.map((u) => String(u.id)),
        now,
      );
      const removedExternal = removed.map((u) => u.externalId);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.members_removed',
        { operator_user_id: user.externalId, user_ids: removedExternal },
        now,
        removed.map((u) => String(u.id)),
      );
      const changed = { removed: removedExternal, event_id: eventId };
      await alongside?.(manager, changed);
      return changed;
    });
    await this.callChanges.groupChanged(groupId);
    return reply;
  }

  /** Any current member except the owner, who must transfer the group first (1209). */
  async leave(user: AuthUser, dto: GroupRefDto): Promise<GroupLeaveReply> {
    const groupId = await this.access.resolveGroupId(dto.group_id);
    const reply = await this.tx.run(async (manager) => {
      const { group, me } = await this.access.lockForMember(manager, groupId, user.internalId);
      if (me.role === 'owner')
        throw forbidden('group_id: the owner must transfer the group before leaving (or dismiss it)');
      const now = this.clock.now();
      const conversationId = await this.access.conversationId(group.id, manager);
      await this.groups.markLeft(manager, group.id, user.internalId, 'left', now);
      await this.conversations.closeMember(manager, conversationId, user.internalId, now);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.member_left',
        { operator_user_id: user.externalId, user_id: user.externalId },
        now,
        [user.internalId],
      );
      return { group_id: group.publicId, event_id: eventId };
    });
    await this.callChanges.groupChanged(groupId);
    return reply;
  }

  /** Owner only; the target must be a current member other than the owner. Same role again answers event_id null. */
  async setAdmin(
    user: AuthUser,
    dto: SetGroupAdminDto,
    alongside?: Alongside<MemberRoleReply>,
  ): Promise<MemberRoleReply> {
    const target = await this.access.resolveUser(dto.user_id, 'user_id');
    const targetId = String(target.id);
    const groupId = await this.access.resolveGroupId(dto.group_id);
    return this.tx.run(async (manager) => {
      const { group } = await this.access.lockForMember(
        manager,
        groupId,
        user.internalId,
        OWNER_ONLY('appoint or dismiss admins'),
      );
      if (targetId === user.internalId)
        throw forbidden("user_id: the owner's role changes only by transferring the group");
      const membership = await this.groups.findActiveMembership(group.id, targetId, manager);
      if (!membership) throw forbidden('user_id: is not a current member of the group');
      const role: GroupRole = dto.admin ? 'admin' : 'member';
      if (membership.role === role) {
        const same = { user_id: target.externalId, role, event_id: null };
        await alongside?.(manager, same);
        return same;
      }
      const now = this.clock.now();
      await this.groups.setRole(manager, group.id, targetId, role);
      const conversationId = await this.access.conversationId(group.id, manager);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.admin_changed',
        { operator_user_id: user.externalId, user_id: target.externalId, role },
        now,
      );
      const reply = { user_id: target.externalId, role, event_id: eventId };
      await alongside?.(manager, reply);
      return reply;
    });
  }

  /**
   * Owner or admin; admins cannot mute the owner or other admins, nobody mutes themselves.
   * muted_until = now + duration (0 unmutes); while it is in the future, sending answers 1203.
   */
  async mute(user: AuthUser, dto: MuteGroupMemberDto): Promise<MemberMuteReply> {
    const target = await this.access.resolveUser(dto.user_id, 'user_id');
    const targetId = String(target.id);
    const groupId = await this.access.resolveGroupId(dto.group_id);
    return this.tx.run(async (manager) => {
      const { group, me } = await this.access.lockForMember(
        manager,
        groupId,
        user.internalId,
        OWNER_OR_ADMIN('mute members'),
      );
      if (targetId === user.internalId) throw forbidden('user_id: you cannot mute yourself');
      const membership = await this.groups.findActiveMembership(group.id, targetId, manager);
      if (!membership) throw forbidden('user_id: is not a current member of the group');
      if (membership.role === 'owner') throw forbidden('user_id: the owner cannot be muted');
      if (membership.role === 'admin' && me.role !== 'owner')
        throw forbidden('user_id: only the owner can mute an admin');
      const now = this.clock.now();
      const mutedUntil = dto.duration_seconds === 0 ? 0 : now + dto.duration_seconds * 1000;
      await this.groups.setMutedUntil(manager, group.id, targetId, mutedUntil);
      const conversationId = await this.access.conversationId(group.id, manager);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.member_muted',
        { operator_user_id: user.externalId, user_id: target.externalId, muted_until: mutedUntil },
        now,
      );
      return { user_id: target.externalId, muted_until: mutedUntil, event_id: eventId };
    });
  }
}
