import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { Alongside } from '../database/alongside';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import { AuthUser } from '../common/auth-user';
import {
  CreateGroupDto,
  GroupRefDto,
  GroupQueryDto,
  MyGroupsQueryDto,
  TransferGroupDto,
  UpdateGroupDto,
} from './dto/group.dto';
import { GROUP_PAGE_SIZE, decodeIdCursor } from './group-cursor';
import { GroupAccess, OWNER_ONLY, OWNER_OR_ADMIN, forbidden } from './group-access.service';
import { GroupEntity } from './group.entity';
import { toGroupReply } from './group.mapper';
import { GroupChanges, GroupsRepository } from './groups.repository';
import { GroupChangeReply, GroupDismissReply, GroupEnvelopeReply, GroupPageReply } from './groups.reply';

const GENERATED_ID_ATTEMPTS = 3;

/** 'g' + 16 random base36 characters (about 80 bits). */
function generateGroupId(): string {
  const bytes = randomBytes(16);
  return `g${Array.from(bytes, (b) => (b % 36).toString(36)).join('')}`;
}

/** The group itself: creation, reading, profile, ownership and dismissal. */
@Injectable()
export class GroupsService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly conversations: ConversationStore,
    private readonly access: GroupAccess,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    private readonly callChanges: RelationshipChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * One transaction: the group, its owner and members, its conversation with everyone as a
   * member, and `group.created`. The public ID is decided by its unique key. `alongside` runs
   * in the same transaction (the server API's record and audit).
   */
  async create(
    user: AuthUser,
    dto: CreateGroupDto,
    alongside?: Alongside<GroupChangeReply>,
  ): Promise<GroupChangeReply> {
    const memberExternalIds = dto.member_ids ?? [];
    if (memberExternalIds.includes(user.externalId))
      throw AppError.invalid('member_ids', 'must not include yourself (the creator becomes the owner)');
    const members = await this.access.resolveUsers(memberExternalIds, 'member_ids', true);
    const memberIds = members.map((m) => String(m.id));
    for (let attempt = 1; ; attempt++) {
      const publicId = dto.group_id ?? generateGroupId();
      try {
        return await this.tx.run(async (manager) => {
          const now = this.clock.now();
          const group = await this.groups.insertGroup(manager, {
            publicId,
            name: dto.name,
            avatar: dto.avatar ?? '',
            introduction: dto.introduction ?? '',
            ownerId: user.internalId,
            now,
          });
          const conversation = await this.conversations.createGroupConversation(manager, group.id, now);
          await this.groups.insertMember(manager, group.id, user.internalId, 'owner', now);
          await this.groups.activateMembers(manager, group.id, memberIds, 'member', now);
          await this.conversations.openFirstMembers(manager, conversation, [user.internalId, ...memberIds], now);
          const eventId = await this.access.emit(
            manager,
            group.id,
            conversation.id,
            'group.created',
            { operator_user_id: user.externalId, member_user_ids: [user.externalId, ...memberExternalIds] },
            now,
          );
          const reply = { group: await this.access.reply(group.id, 'owner', manager), event_id: eventId };
          await alongside?.(manager, reply);
          return reply;
        });
      } catch (error) {
        if (!isUniqueViolation(error, 'public_id')) throw error;
        if (dto.group_id !== undefined && dto.group_id !== null) throw AppError.invalid('group_id', 'is already taken');
        if (attempt >= GENERATED_ID_ATTEMPTS) throw error;
      }
    }
  }

  async get(user: AuthUser, dto: GroupQueryDto): Promise<GroupEnvelopeReply> {
    const { group, me } = await this.access.forMember(dto.group_id, user.internalId);
    return { group: toGroupReply(group, await this.access.facts(group), me.role, this.access.defaultAvatarUrl) };
  }

  /** The caller's current groups (disabled groups are left out), in the order they were first joined. */
  async list(user: AuthUser, dto: MyGroupsQueryDto): Promise<GroupPageReply> {
    const after = dto.cursor ? decodeIdCursor(this.cursors, dto.cursor, user.internalId, 'groups.list', {}) : null;
    const rows = await this.groups.listMyGroups(user.internalId, after, GROUP_PAGE_SIZE + 1);
    const page = rows.slice(0, GROUP_PAGE_SIZE);
    const counts = await this.groups.countActiveMembersByGroup(page.map((r) => r.group.id));
    const owners = await this.access.usersById(page.map((r) => r.group.ownerId));
    const items = page.map(({ group, membership }) =>
      toGroupReply(
        group,
        { ownerUserId: owners.get(group.ownerId)?.externalId ?? '', memberCount: counts.get(group.id) ?? 0 },
        membership.role,
        this.access.defaultAvatarUrl,
      ),
    );
    const hasMore = rows.length > GROUP_PAGE_SIZE;
    return {
      items,
      next_cursor: hasMore
        ? this.cursors.encode(user.internalId, 'groups.list', {}, page[page.length - 1].membership.id)
        : null,
      has_more: hasMore,
    };
  }

  /** Owner or admin. Nothing changed (every sent field equals the stored one) answers event_id null. */
  async update(
    user: AuthUser,
    dto: UpdateGroupDto,
    alongside?: Alongside<GroupChangeReply>,
  ): Promise<GroupChangeReply> {
    const sent = (['name', 'avatar', 'introduction'] as const).filter(
      (field) => dto[field] !== undefined && dto[field] !== null,
    );
    if (sent.length === 0) throw AppError.invalid('name', 'send at least one of name, avatar, introduction');
    const groupId = await this.access.resolveGroupId(dto.group_id);
    const reply = await this.tx.run(async (manager) => {
      const { group, me } = await this.access.lockForMember(
        manager,
        groupId,
        user.internalId,
        OWNER_OR_ADMIN('update the group'),
      );
      const changes: GroupChanges = {};
      for (const field of sent) if (dto[field] !== group[field]) changes[field] = dto[field] as string;
      const changed = Object.keys(changes);
      if (changed.length === 0) {
        const unchanged = { group: await this.access.reply(group.id, me.role, manager), event_id: null };
        await alongside?.(manager, unchanged);
        return unchanged;
      }
      const now = this.clock.now();
      await this.groups.updateGroup(manager, group.id, changes, now);
      const conversationId = await this.access.conversationId(group.id, manager);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.updated',
        { operator_user_id: user.externalId, changed_fields: changed },
        now,
      );
      const updated = { group: await this.access.reply(group.id, me.role, manager), event_id: eventId };
      await alongside?.(manager, updated);
      return updated;
    });
    return reply;
  }

  /** Owner only; the target must be a current member. The old owner becomes an admin. */
  async transfer(user: AuthUser, dto: TransferGroupDto): Promise<GroupChangeReply> {
    const target = await this.access.resolveUser(dto.user_id, 'user_id', true);
    const groupId = await this.access.resolveGroupId(dto.group_id);
    return this.tx.run(async (manager) => {
      const { group } = await this.access.lockForMember(
        manager,
        groupId,
        user.internalId,
        OWNER_ONLY('transfer the group'),
      );
      const targetId = String(target.id);
      if (targetId === user.internalId) throw forbidden('user_id: you already own the group');
      if (!(await this.groups.findActiveMembership(group.id, targetId, manager)))
        throw forbidden('user_id: is not a current member of the group');
      const now = this.clock.now();
      await this.groups.setRole(manager, group.id, targetId, 'owner');
      // An owner is never muted (nobody could lift it).
      await this.groups.setMutedUntil(manager, group.id, targetId, 0);
      await this.groups.setRole(manager, group.id, user.internalId, 'admin');
      await this.groups.setOwner(manager, group.id, targetId, now);
      const conversationId = await this.access.conversationId(group.id, manager);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.owner_transferred',
        {
          operator_user_id: user.externalId,
          previous_owner_user_id: user.externalId,
          owner_user_id: target.externalId,
        },
        now,
      );
      return { group: await this.access.reply(group.id, 'admin', manager), event_id: eventId };
    });
  }

  /** Owner only: every membership is closed (status removed) and everyone receives `group.dismissed`. */
  async dismiss(
    user: AuthUser,
    dto: GroupRefDto,
    alongside?: Alongside<GroupDismissReply>,
  ): Promise<GroupDismissReply> {
    const groupId = await this.access.resolveGroupId(dto.group_id);
    const reply = await this.tx.run(async (manager) => {
      const { group } = await this.access.lockForMember(
        manager,
        groupId,
        user.internalId,
        OWNER_ONLY('dismiss the group'),
      );
      const dismissed = await this.dismissLocked(manager, group, user.externalId);
      await alongside?.(manager, dismissed);
      return dismissed;
    });
    await this.callChanges.groupChanged(groupId);
    return reply;
  }

  /**
   * The operator's dismissal (admin console): the same state and `group.dismissed` event as the
   * owner's, with the owner named as operator (the event has no notion of a console operator;
   * who really did it is in the audit log). `alongside` runs in the same transaction with the
   * group as it was. 1209 when the group is absent or already dismissed.
   */
  async dismissAsOperator(
    publicId: string,
    alongside: (manager: EntityManager, before: GroupEntity, reply: GroupDismissReply) => Promise<void>,
  ): Promise<GroupDismissReply> {
    const groupId = await this.access.resolveGroupId(publicId);
    const dismissed = await this.tx.run(async (manager) => {
      const group = await this.groups.lockById(manager, groupId);
      if (!group || group.dismissedAt !== null) throw forbidden('group_id: the group was already dismissed');
      const { ownerUserId } = await this.access.facts(group, manager);
      const reply = await this.dismissLocked(manager, group, ownerUserId);
      await alongside(manager, group, reply);
      return reply;
    });
    await this.callChanges.groupChanged(groupId);
    return dismissed;
  }

  private async dismissLocked(
    manager: EntityManager,
    group: GroupEntity,
    operatorExternalId: string,
  ): Promise<GroupDismissReply> {
    const now = this.clock.now();
    const conversationId = await this.access.conversationId(group.id, manager);
    const members = await this.groups.findActiveMembers(group.id, manager);
    await this.groups.markDismissed(manager, group.id, now);
    await this.groups.markAllRemoved(manager, group.id, now);
    await this.conversations.closeMembers(
      manager,
      conversationId,
      members.map((m) => m.userId),
      now,
    );
    const eventId = await this.access.emit(
      manager,
      group.id,
      conversationId,
      'group.dismissed',
      { operator_user_id: operatorExternalId, dismissed_at: now },
      now,
      members.map((m) => m.userId),
    );
    return { group_id: group.publicId, dismissed_at: now, event_id: eventId };
  }
}
