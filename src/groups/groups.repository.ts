import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, MoreThan, Repository } from 'typeorm';
import { GroupInvitationEntity } from './group-invitation.entity';
import { GroupMemberEntity, GroupRole } from './group-member.entity';
import { GroupEntity } from './group.entity';
import { GROUP_COLUMNS, Group, GroupRow, groupFromRow } from './group';
import { dialectOf } from '../database/sql-dialect';

export interface NewGroup {
  publicId: string;
  name: string;
  ownerId: string;
  avatar?: string;
  introduction?: string;
  now: number;
}

export type GroupChanges = Partial<Pick<GroupEntity, 'name' | 'avatar' | 'introduction'>>;

export interface NewInvitation {
  code: string;
  groupId: string;
  createdBy: string;
  expiresAt: number;
  now: number;
}

/** One of a user's current groups, with the membership that puts it in the list. */
export interface MyGroupRow {
  membership: GroupMemberEntity;
  group: Group;
}

/**
 * Groups, memberships and invitations. Writes take the caller's transaction manager; a
 * membership row is kept (status left/removed) after leaving, so "is or was a member" stays
 * answerable and a rejoin reuses the row.
 */
@Injectable()
export class GroupsRepository {
  constructor(
    @InjectRepository(GroupEntity) private readonly groups: Repository<GroupEntity>,
    @InjectRepository(GroupMemberEntity) private readonly members: Repository<GroupMemberEntity>,
    @InjectRepository(GroupInvitationEntity) private readonly invitations: Repository<GroupInvitationEntity>,
  ) {}

  private groupRepo(manager?: EntityManager): Repository<GroupEntity> {
    return manager ? manager.getRepository(GroupEntity) : this.groups;
  }

  private memberRepo(manager?: EntityManager): Repository<GroupMemberEntity> {
    return manager ? manager.getRepository(GroupMemberEntity) : this.members;
  }

  findByPublicId(publicId: string, manager?: EntityManager): Promise<GroupEntity | null> {
    return this.groupRepo(manager).findOneBy({ publicId });
  }

  /** The user's membership row in any status (active, left, removed), or null if never a member. */
  findMembership(groupId: string, userId: string, manager?: EntityManager): Promise<GroupMemberEntity | null> {
    return this.memberRepo(manager).findOneBy({ groupId, userId });
  }

  findById(id: string, manager?: EntityManager): Promise<GroupEntity | null> {
    return this.groupRepo(manager).findOneBy({ id });
  }

  async findByIds(ids: readonly string[]): Promise<Group[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const rows = (await this.groups.query(
      `SELECT ${GROUP_COLUMNS} FROM \`groups\` WHERE id IN (${unique.map(() => '?').join(', ')})`,
      unique,
    )) as GroupRow[];
    return rows.map((row) => groupFromRow(row));
  }

  /**
   * Reads the group inside a transaction and, on MySQL, locks its row until commit, so that
   * every membership change of one group runs one after another (SQLite transactions are
   * already queued by TransactionRunner). Reads made after it see the latest committed state.
   */
  lockById(manager: EntityManager, id: string): Promise<GroupEntity | null> {
    return dialectOf(manager)
      .lockForWrite(manager.createQueryBuilder(GroupEntity, 'g').where('g.id = :id', { id }))
      .getOne();
  }

  /** The membership if the user is a current (active) member, else null. */
  async findActiveMembership(
    groupId: string,
    userId: string,
    manager?: EntityManager,
  ): Promise<GroupMemberEntity | null> {
    return this.memberRepo(manager).findOneBy({ groupId, userId, status: 'active' });
  }

  /** Membership rows (any status) of the given users in one group. */
  findMemberships(groupId: string, userIds: readonly string[], manager?: EntityManager): Promise<GroupMemberEntity[]> {
    return userIds.length
      ? this.memberRepo(manager).findBy({ groupId, userId: In([...userIds]) })
      : Promise.resolve([]);
  }

  /** Every current member of the group. */
  findActiveMembers(groupId: string, manager?: EntityManager): Promise<GroupMemberEntity[]> {
    return this.memberRepo(manager).findBy({ groupId, status: 'active' });
  }

  countActiveMembers(groupId: string, manager?: EntityManager): Promise<number> {
    return this.memberRepo(manager).countBy({ groupId, status: 'active' });
  }

  /** Current member counts of several groups (groups without members are absent). */
  async countActiveMembersByGroup(groupIds: readonly string[]): Promise<Map<string, number>> {
    if (groupIds.length === 0) return new Map();
    const rows = await this.members
      .createQueryBuilder('m')
      .select('m.group_id', 'group_id')
      .addSelect('COUNT(*)', 'count')
      .where({ groupId: In([...groupIds]), status: 'active' })
      .groupBy('m.group_id')
      .getRawMany<{ group_id: string | number; count: string | number }>();
    return new Map(rows.map((row) => [String(row.group_id), Number(row.count)]));
  }

  /** A page of current members in internal user ID order, after `afterUserId`. */
  listActiveMembers(groupId: string, afterUserId: string | null, limit: number): Promise<GroupMemberEntity[]> {
    return this.members.find({
      where: { groupId, status: 'active', ...(afterUserId ? { userId: MoreThan(afterUserId) } : {}) },
      order: { userId: 'ASC' },
      take: limit,
    });
  }

  /**
   * A page of the user's current memberships in groups that are not disabled, in membership
   * row order (first join), after the membership `afterMembershipId`.
   */
  async listMyGroups(userId: string, afterMembershipId: string | null, limit: number): Promise<MyGroupRow[]> {
    const query = this.members
      .createQueryBuilder('m')
      .innerJoin(GroupEntity, 'g', 'g.id = m.group_id AND g.disabled = 0')
      .where('m.user_id = :userId AND m.status = :status', { userId, status: 'active' })
      .orderBy('m.id', 'ASC')
      .limit(limit);
    if (afterMembershipId) query.andWhere('m.id > :after', { after: afterMembershipId });
    const memberships = await query.getMany();
    const groups = new Map((await this.findByIds(memberships.map((m) => m.groupId))).map((g) => [g.id, g]));
    return memberships.flatMap((membership) => {
      const group = groups.get(membership.groupId);
      return group ? [{ membership, group }] : [];
    });
  }

  /** Every current membership of the user, disabled groups included (erasure and export). */
  findActiveMembershipsOfUser(userId: string): Promise<GroupMemberEntity[]> {
    return this.members.find({ where: { userId, status: 'active' }, order: { id: 'ASC' } });
  }

  async insertGroup(manager: EntityManager, group: NewGroup): Promise<GroupEntity> {
    const entity = manager.create(GroupEntity, {
      publicId: group.publicId,
      name: group.name,
      avatar: group.avatar ?? '',
      introduction: group.introduction ?? '',
      ownerId: group.ownerId,
      disabled: false,
      dismissedAt: null,
      createdAt: group.now,
      updatedAt: group.now,
    });
    const result = await manager.insert(GroupEntity, entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  async updateGroup(manager: EntityManager, groupId: string, changes: GroupChanges, now: number): Promise<void> {
    await manager.update(GroupEntity, { id: groupId }, { ...changes, updatedAt: now });
  }

  async setOwner(manager: EntityManager, groupId: string, ownerId: string, now: number): Promise<void> {
    await manager.update(GroupEntity, { id: groupId }, { ownerId, updatedAt: now });
  }

  async markDismissed(manager: EntityManager, groupId: string, now: number): Promise<void> {
    await manager.update(GroupEntity, { id: groupId }, { dismissedAt: now, updatedAt: now });
  }

  async insertMember(
    manager: EntityManager,
    groupId: string,
    userId: string,
    role: GroupRole,
    now: number,
  ): Promise<void> {
    await manager.insert(GroupMemberEntity, {
      groupId,
      userId,
      role,
      status: 'active',
      mutedUntil: 0,
      joinedAt: now,
      leftAt: null,
    });
  }

  /**
   * Makes the users current members with `role`: a new row for a first-time member, the old row
   * reset (role, mute, join time) for a former member. Rows that are already active must not be
   * passed. A unique violation means a concurrent writer added one of them first.
   */
  async activateMembers(
    manager: EntityManager,
    groupId: string,
    userIds: readonly string[],
    role: GroupRole,
    now: number,
  ): Promise<void> {
    if (userIds.length === 0) return;
    const former = new Set((await this.findMemberships(groupId, userIds, manager)).map((m) => m.userId));
    const fresh = userIds.filter((id) => !former.has(id));
    if (former.size) {
      await manager.update(
        GroupMemberEntity,
        { groupId, userId: In([...former]) },
        { role, status: 'active', mutedUntil: 0, joinedAt: now, leftAt: null },
      );
    }
    for (let i = 0; i < fresh.length; i += 500) {
      await manager.insert(
        GroupMemberEntity,
        fresh.slice(i, i + 500).map((userId) => ({
          groupId,
          userId,
          role,
          status: 'active' as const,
          mutedUntil: 0,
          joinedAt: now,
          leftAt: null,
        })),
      );
    }
  }

  async markLeft(
    manager: EntityManager,
    groupId: string,
    userId: string,
    status: 'left' | 'removed',
    now: number,
  ): Promise<void> {
    await manager.update(GroupMemberEntity, { groupId, userId }, { status, leftAt: now });
  }

  /**
   * Closes every current membership of the group (dismissal). On MySQL the statement is held to
   * the group's own rows: on a small table the optimizer scans the whole table instead, and a
   * scanning UPDATE locks every group's membership rows until commit.
   */
  async markAllRemoved(manager: EntityManager, groupId: string, now: number): Promise<void> {
    await manager.query(
      `UPDATE group_members${dialectOf(manager).forceIndex('UQ_group_members_group_user')} SET status = ?, left_at = ? WHERE group_id = ? AND status = ?`,
      ['removed', now, groupId, 'active'],
    );
  }

  async setRole(manager: EntityManager, groupId: string, userId: string, role: GroupRole): Promise<void> {
    await manager.update(GroupMemberEntity, { groupId, userId }, { role });
  }

  async setMutedUntil(manager: EntityManager, groupId: string, userId: string, mutedUntil: number): Promise<void> {
    await manager.update(GroupMemberEntity, { groupId, userId }, { mutedUntil });
  }

  async setDisabled(groupId: string, disabled: boolean, now: number, manager?: EntityManager): Promise<void> {
    await this.groupRepo(manager).update({ id: groupId }, { disabled, updatedAt: now });
  }

  /** How many groups the user is a current member of (the admin console's user detail). */
  countActiveGroupsOfUser(userId: string): Promise<number> {
    return this.members.countBy({ userId, status: 'active' });
  }

  /** A unique violation on the code means it is already used (a random collision). */
  async insertInvitation(manager: EntityManager, invitation: NewInvitation): Promise<GroupInvitationEntity> {
    const entity = manager.create(GroupInvitationEntity, {
      code: invitation.code,
      groupId: invitation.groupId,
      createdBy: invitation.createdBy,
      expiresAt: invitation.expiresAt,
      revoked: false,
      createdAt: invitation.now,
    });
    const result = await manager.insert(GroupInvitationEntity, entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  findInvitationByCode(code: string): Promise<GroupInvitationEntity | null> {
    return this.invitations.findOneBy({ code });
  }
}
