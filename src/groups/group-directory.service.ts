import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Group, GroupMember } from './group';
import { GroupsRepository } from './groups.repository';

/**
 * Groups and memberships as other modules read them (reports, the admin console, conversation
 * titles), as plain records. Membership changes stay with the group services; the only write
 * here is the operator's disable switch, which the admin console audits in its own transaction.
 */
@Injectable()
export class GroupDirectory {
  constructor(private readonly groups: GroupsRepository) {}

  findByPublicId(publicId: string): Promise<Group | null> {
    return this.groups.findByPublicId(publicId);
  }

  findByIds(ids: readonly string[]): Promise<Group[]> {
    return this.groups.findByIds(ids);
  }

  /** The user's membership in any status (active, left, removed), or null if never a member. */
  findMembership(groupId: string, userId: string): Promise<GroupMember | null> {
    return this.groups.findMembership(groupId, userId);
  }

  countActiveMembers(groupId: string): Promise<number> {
    return this.groups.countActiveMembers(groupId);
  }

  /** Current member counts of several groups (groups without members are absent). */
  countActiveMembersByGroup(groupIds: readonly string[]): Promise<Map<string, number>> {
    return this.groups.countActiveMembersByGroup(groupIds);
  }

  /** A page of current members in internal user ID order, after `afterUserId`. */
  listActiveMembers(groupId: string, afterUserId: string | null, limit: number): Promise<GroupMember[]> {
    return this.groups.listActiveMembers(groupId, afterUserId, limit);
  }

  /** How many groups the user is a current member of. */
  countActiveGroupsOfUser(userId: string): Promise<number> {
    return this.groups.countActiveGroupsOfUser(userId);
  }

  /**
   * Locks the group's row for the rest of the transaction and reads its switches as they are now,
   * so a dismissal or another switch racing the caller is seen (null: no such group).
   */
  async lockSwitches(
    manager: EntityManager,
    groupId: string,
  ): Promise<{ disabled: boolean; dismissedAt: number | null } | null> {
    const row = await this.groups.lockById(manager, groupId);
    return row && { disabled: row.disabled, dismissedAt: row.dismissedAt };
  }

  /** The operator's switch; a disabled group answers 1218 to every member's group operation and send. */
  setDisabled(manager: EntityManager, groupId: string, disabled: boolean, now: number): Promise<void> {
    return this.groups.setDisabled(groupId, disabled, now, manager);
  }
}
