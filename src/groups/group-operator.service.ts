import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { TransactionRunner } from '../database/transaction-runner';
import { ConversationStore } from '../conversations/conversation-store.service';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import type { User } from '../users/user';
import { GroupAccess, forbidden } from './group-access.service';
import { GroupMemberEntity } from './group-member.entity';
import { GroupEntity } from './group.entity';
import { GroupsRepository } from './groups.repository';

/** What an operator's change did, handed to `alongside` inside its transaction (the audit row). */
export interface OperatorMemberChange {
  groupPublicId: string;
  /** The member as it was (null: not a current member). */
  before: Pick<GroupMemberEntity, 'role' | 'status' | 'mutedUntil'> | null;
  ownerExternalId: string;
}

export interface OperatorMuteResult {
  groupPublicId: string;
  userExternalId: string;
  mutedUntil: number;
  eventId: string;
}

export interface OperatorRemoveResult {
  groupPublicId: string;
  userExternalId: string;
  removed: boolean;
  eventId: string | null;
}

export interface OperatorTransferResult {
  groupPublicId: string;
  ownerExternalId: string;
  previousOwnerExternalId: string;
  eventId: string;
}

type Alongside<R> = (manager: EntityManager, change: OperatorMemberChange, result: R) => Promise<void>;

/**
 * The group owner's member operations (mute, remove, transfer) made by the service's operator
 * from the admin console: the same state changes and the same events as the owner's own
 * (GroupMembersService, GroupsService.transfer), with the owner named as operator in them, as
 * dismissAsOperator does (an event has no notion of a console operator; who really acted is in
 * the audit log, written by `alongside` in the same transaction). The operator acts on disabled
 * groups too (a disabled group is where moderation happens); a dismissed one is 1209.
 */
@Injectable()
export class GroupOperatorService {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly conversations: ConversationStore,
    private readonly access: GroupAccess,
    private readonly tx: TransactionRunner,
    private readonly callChanges: RelationshipChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** muted_until = now + duration (0 unmutes); the owner cannot be muted (nobody could lift it). */
  async mute(
    publicId: string,
    userExternalId: string,
    durationSeconds: number,
    alongside: Alongside<OperatorMuteResult>,
  ): Promise<OperatorMuteResult> {
    const target = await this.access.resolveUser(userExternalId, 'user_id');
    const groupId = await this.resolveGroupId(publicId);
    return this.tx.run(async (manager) => {
      const { group, owner } = await this.lock(manager, groupId);
      const membership = await this.currentMember(manager, group, target);
      if (membership.role === 'owner') throw forbidden('user_id: the owner cannot be muted (transfer the group first)');
      const now = this.clock.now();
      const mutedUntil = durationSeconds === 0 ? 0 : now + durationSeconds * 1000;
      await this.groups.setMutedUntil(manager, group.id, String(target.id), mutedUntil);
      const conversationId = await this.access.conversationId(group.id, manager);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.member_muted',
        { operator_user_id: owner, user_id: target.externalId, muted_until: mutedUntil },
        now,
      );
      const result = { groupPublicId: group.publicId, userExternalId: target.externalId, mutedUntil, eventId };
      await alongside(manager, { groupPublicId: group.publicId, before: membership, ownerExternalId: owner }, result);
      return result;
    });
  }

  /** A user who is not a current member is no change (removed false, no event); the owner is 1209. */
  async remove(
    publicId: string,
    userExternalId: string,
    alongside: Alongside<OperatorRemoveResult>,
  ): Promise<OperatorRemoveResult> {
    const target = await this.access.resolveUser(userExternalId, 'user_id');
    const groupId = await this.resolveGroupId(publicId);
    const result = await this.tx.run(async (manager) => {
      const { group, owner } = await this.lock(manager, groupId);
      const targetId = String(target.id);
      const membership = await this.groups.findActiveMembership(group.id, targetId, manager);
      const change = { groupPublicId: group.publicId, before: membership, ownerExternalId: owner };
      if (!membership) {
        const none = {
          groupPublicId: group.publicId,
          userExternalId: target.externalId,
          removed: false,
          eventId: null,
        };
        await alongside(manager, change, none);
        return none;
      }
      if (membership.role === 'owner')
        throw forbidden('user_id: the owner cannot be removed (transfer the group first)');
      const now = this.clock.now();
      const conversationId = await this.access.conversationId(group.id, manager);
      await this.groups.markLeft(manager, group.id, targetId, 'removed', now);
      await this.conversations.closeMembers(manager, conversationId, [targetId], now);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.members_removed',
        { operator_user_id: owner, user_ids: [target.externalId] },
        now,
        [targetId],
      );
      const removed = { groupPublicId: group.publicId, userExternalId: target.externalId, removed: true, eventId };
      await alongside(manager, change, removed);
      return removed;
    });
    if (result.removed) await this.callChanges.groupChanged(groupId);
    return result;
  }

  /**
   * The target must be a current member other than the owner, on an account that is not
   * disabled (nobody is made owner on one, as for the owner's transfer). The old owner becomes
   * an admin; the new one is never muted.
   */
  async transfer(
    publicId: string,
    newOwnerExternalId: string,
    alongside: Alongside<OperatorTransferResult>,
  ): Promise<OperatorTransferResult> {
    const target = await this.access.resolveUser(newOwnerExternalId, 'user_id', true);
    const groupId = await this.resolveGroupId(publicId);
    return this.tx.run(async (manager) => {
      const { group, owner } = await this.lock(manager, groupId);
      const targetId = String(target.id);
      const membership = await this.currentMember(manager, group, target);
      if (membership.role === 'owner') throw forbidden('user_id: already owns the group');
      const now = this.clock.now();
      await this.groups.setRole(manager, group.id, targetId, 'owner');
      await this.groups.setMutedUntil(manager, group.id, targetId, 0);
      await this.groups.setRole(manager, group.id, group.ownerId, 'admin');
      await this.groups.setOwner(manager, group.id, targetId, now);
      const conversationId = await this.access.conversationId(group.id, manager);
      const eventId = await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.owner_transferred',
        { operator_user_id: owner, previous_owner_user_id: owner, owner_user_id: target.externalId },
        now,
      );
      const result = {
        groupPublicId: group.publicId,
        ownerExternalId: target.externalId,
        previousOwnerExternalId: owner,
        eventId,
      };
      await alongside(manager, { groupPublicId: group.publicId, before: membership, ownerExternalId: owner }, result);
      return result;
    });
  }

  private async resolveGroupId(publicId: string): Promise<string> {
    const group = await this.groups.findByPublicId(publicId);
    if (!group) throw forbidden('group_id: no such group');
    return group.id;
  }

  /** The group locked (changes of one group are serialised) and its owner's external ID; 1209 when dismissed. */
  private async lock(manager: EntityManager, groupId: string): Promise<{ group: GroupEntity; owner: string }> {
    const group = await this.groups.lockById(manager, groupId);
    if (!group) throw forbidden('group_id: no such group');
    if (group.dismissedAt !== null) throw forbidden('group_id: the group was dismissed');
    const { ownerUserId } = await this.access.facts(group, manager);
    return { group, owner: ownerUserId };
  }

  private async currentMember(manager: EntityManager, group: GroupEntity, target: User): Promise<GroupMemberEntity> {
    const membership = await this.groups.findActiveMembership(group.id, String(target.id), manager);
    if (!membership) throw forbidden('user_id: is not a current member of the group');
    return membership;
  }
}
