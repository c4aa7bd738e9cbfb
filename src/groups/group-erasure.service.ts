import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { ConversationStore } from '../conversations/conversation-store.service';
import { TransactionRunner } from '../database/transaction-runner';
import { RelationshipChanges } from '../relationship-changes/relationship-changes';
import type { User } from '../users/user';
import { UsersService } from '../users/users.service';
import { GroupAccess } from './group-access.service';
import type { GroupMember, GroupRole } from './group';
import { GroupsRepository } from './groups.repository';

/** What erasure did to one group. */
export type GroupExit = 'left' | 'transferred' | 'dismissed';

/** A current membership as the export shows it. */
export interface MembershipOfUser {
  groupId: string;
  publicId: string;
  name: string;
  role: GroupRole;
  joinedAt: number;
}

/**
 * The groups side of erasing a user (server API): the user leaves every group they are in, by
 * the same state changes and events as a member's own leave, an owner's transfer and a
 * dismissal. An owner cannot leave (1209 for a user), so an erased owner's group passes first to
 * the longest-standing admin, or else to the longest-standing member, and is dismissed when the
 * owner was alone. Disabled groups are left too: erasure does not wait for a moderator.
 */
@Injectable()
export class GroupErasure {
  constructor(
    private readonly groups: GroupsRepository,
    private readonly conversations: ConversationStore,
    private readonly access: GroupAccess,
    private readonly users: UsersService,
    private readonly tx: TransactionRunner,
    private readonly callChanges: RelationshipChanges,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** The user's current groups with their role (export). */
  async membershipsOf(userId: string): Promise<MembershipOfUser[]> {
    const memberships = await this.groups.findActiveMembershipsOfUser(userId);
    const groups = new Map((await this.groups.findByIds(memberships.map((m) => m.groupId))).map((g) => [g.id, g]));
    return memberships.flatMap((m) => {
      const group = groups.get(m.groupId);
      return group && group.dismissedAt === null
        ? [{ groupId: group.id, publicId: group.publicId, name: group.name, role: m.role, joinedAt: m.joinedAt }]
        : [];
    });
  }

  /** Takes the user out of every group, one transaction per group; what happened to each. */
  async leaveAll(user: Pick<User, 'id' | 'externalId'>): Promise<GroupExit[]> {
    const exits: GroupExit[] = [];
    for (const membership of await this.groups.findActiveMembershipsOfUser(user.id)) {
      const exit = await this.tx.run((manager) => this.leaveOne(manager, membership.groupId, user));
      if (exit) {
        exits.push(exit);
        await this.callChanges.groupChanged(membership.groupId);
      }
    }
    return exits;
  }

  /** Null when a concurrent change (another erasure, a removal, a dismissal) got there first. */
  private async leaveOne(
    manager: EntityManager,
    groupId: string,
    user: Pick<User, 'id' | 'externalId'>,
  ): Promise<GroupExit | null> {
    const group = await this.groups.lockById(manager, groupId);
    const me = group ? await this.groups.findMembership(group.id, user.id, manager) : null;
    if (!group || !me || group.dismissedAt !== null || me.status !== 'active') return null;
    const now = this.clock.now();
    const conversationId = await this.access.conversationId(group.id, manager);
    let exit: GroupExit = 'left';
    if (me.role === 'owner') {
      const others = (await this.groups.findActiveMembers(group.id, manager)).filter((m) => m.userId !== user.id);
      const successor = nextOwner(others);
      if (!successor) {
        await this.groups.markDismissed(manager, group.id, now);
        await this.groups.markAllRemoved(manager, group.id, now);
        await this.conversations.closeMembers(manager, conversationId, [user.id], now);
        await this.access.emit(
          manager,
          group.id,
          conversationId,
          'group.dismissed',
          { operator_user_id: user.externalId, dismissed_at: now },
          now,
          [user.id],
        );
        return 'dismissed';
      }
      await this.groups.setRole(manager, group.id, successor.userId, 'owner');
      await this.groups.setMutedUntil(manager, group.id, successor.userId, 0);
      await this.groups.setRole(manager, group.id, user.id, 'admin');
      await this.groups.setOwner(manager, group.id, successor.userId, now);
      const successorUser = await this.users.findById(successor.userId, manager);
      if (!successorUser) throw new Error(`group member ${successor.userId} has no user row`);
      await this.access.emit(
        manager,
        group.id,
        conversationId,
        'group.owner_transferred',
        {
          operator_user_id: user.externalId,
          previous_owner_user_id: user.externalId,
          owner_user_id: successorUser.externalId,
        },
        now,
      );
      exit = 'transferred';
    }
    await this.groups.markLeft(manager, group.id, user.id, 'left', now);
    await this.conversations.closeMember(manager, conversationId, user.id, now);
    await this.access.emit(
      manager,
      group.id,
      conversationId,
      'group.member_left',
      { operator_user_id: user.externalId, user_id: user.externalId },
      now,
      [user.id],
    );
    return exit;
  }
}

/** The longest-standing admin, else the longest-standing member (ties: the lower row ID). */
export function nextOwner<M extends Pick<GroupMember, 'id' | 'role' | 'joinedAt'>>(members: M[]): M | null {
  const order = (a: M, b: M): number => a.joinedAt - b.joinedAt || Number(BigInt(a.id) - BigInt(b.id));
  const admins = members.filter((m) => m.role === 'admin').sort(order);
  return admins[0] ?? [...members].sort(order)[0] ?? null;
}
