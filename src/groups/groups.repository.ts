import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { GroupMemberEntity, GroupRole } from './group-member.entity';
import { GroupEntity } from './group.entity';

export interface NewGroup {
  publicId: string;
  name: string;
  ownerId: string;
  now: number;
}

@Injectable()
export class GroupsRepository {
  constructor(
    @InjectRepository(GroupEntity) private readonly groups: Repository<GroupEntity>,
    @InjectRepository(GroupMemberEntity) private readonly members: Repository<GroupMemberEntity>,
  ) {}

  findByPublicId(publicId: string): Promise<GroupEntity | null> {
    return this.groups.findOneBy({ publicId });
  }

  /** The user's membership row in any status (active, left, removed), or null if never a member. */
  findMembership(groupId: string, userId: string): Promise<GroupMemberEntity | null> {
    return this.members.findOneBy({ groupId, userId });
  }

  findById(id: string): Promise<GroupEntity | null> {
    return this.groups.findOneBy({ id });
  }

  findByIds(ids: string[]): Promise<GroupEntity[]> {
    return ids.length ? this.groups.findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  /** The membership if the user is a current (active) member, else null. */
  async findActiveMembership(groupId: string, userId: string, manager?: EntityManager): Promise<GroupMemberEntity | null> {
    const repo = manager ? manager.getRepository(GroupMemberEntity) : this.members;
    return repo.findOneBy({ groupId, userId, status: 'active' });
  }

  async insertGroup(manager: EntityManager, group: NewGroup): Promise<GroupEntity> {
    const entity = manager.create(GroupEntity, {
      publicId: group.publicId,
      name: group.name,
      avatar: '',
      introduction: '',
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

  async insertMember(manager: EntityManager, groupId: string, userId: string, role: GroupRole, now: number): Promise<void> {
    await manager.insert(GroupMemberEntity, { groupId, userId, role, status: 'active', mutedUntil: 0, joinedAt: now, leftAt: null });
  }

  async markLeft(manager: EntityManager, groupId: string, userId: string, status: 'left' | 'removed', now: number): Promise<void> {
    await manager.update(GroupMemberEntity, { groupId, userId }, { status, leftAt: now });
  }

  async setDisabled(groupId: string, disabled: boolean, now: number): Promise<void> {
    await this.groups.update({ id: groupId }, { disabled, updatedAt: now });
  }
}
