import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import type { AuthUser } from '../common/auth-user';
import { ErrorCode } from '../common/error-code';
import { AcceptFriendRequestReply, EventReply } from '../friends/friends.reply';
import { FriendRequestsService } from '../friends/friend-requests.service';
import { FriendsService } from '../friends/friends.service';
import { GroupDirectory } from '../groups/group-directory.service';
import { GroupMembersService } from '../groups/group-members.service';
import {
  GroupChangeReply,
  GroupDismissReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
} from '../groups/groups.reply';
import { GroupsService } from '../groups/groups.service';
import { UsersService } from '../users/users.service';
import {
  ServerCreateGroupDto,
  ServerFriendPairDto,
  ServerGroupMembersDto,
  ServerGroupRefDto,
  ServerSetRoleDto,
  ServerUpdateGroupDto,
} from './dto/server-groups.dto';
import type { HostActor } from './host-actor';
import { ServerWrites, asAuthUser } from './server-writes.service';

const noSuchGroup = (): AppError => new AppError(ErrorCode.GROUP_OPERATION_FORBIDDEN, 'group_id: no such group');

/**
 * Groups and friendships written by the host. The host acts as the group's owner (who may do
 * all of it), through the same services and rules as the owner's own requests, so the events
 * are the owner's (`operator_user_id` names the owner; the audit log names the host).
 */
@Injectable()
export class ServerGroupsService {
  constructor(
    private readonly writes: ServerWrites,
    private readonly groups: GroupsService,
    private readonly members: GroupMembersService,
    private readonly directory: GroupDirectory,
    private readonly users: UsersService,
    private readonly friends: FriendsService,
    private readonly friendRequests: FriendRequestsService,
  ) {}

  async create(host: HostActor, dto: ServerCreateGroupDto): Promise<GroupChangeReply> {
    const owner = await this.writes.user(dto.owner_id, 'owner_id');
    const memberIds = dto.member_ids ?? [];
    if (memberIds.includes(dto.owner_id)) throw AppError.invalid('member_ids', 'must not include the owner');
    await this.writes.usersNamed(memberIds, 'member_ids');
    const audit = {
      action: 'server.group.created',
      targetType: 'group' as const,
      // A generated ID is known only from the reply.
      targetId: (reply: GroupChangeReply) => reply.group.group_id,
      after: (reply: GroupChangeReply) => ({
        group_id: reply.group.group_id,
        owner_id: dto.owner_id,
        event_id: reply.event_id,
      }),
    };
    return this.writes.once(host, 'groups.create', dto, audit, (alongside) =>
      this.groups.create(
        asAuthUser(owner),
        {
          group_id: dto.group_id,
          name: dto.name,
          avatar: dto.avatar,
          introduction: dto.introduction,
          member_ids: memberIds,
        },
        alongside,
      ),
    );
  }

  async update(host: HostActor, dto: ServerUpdateGroupDto): Promise<GroupChangeReply> {
    const owner = await this.ownerOf(dto.group_id);
    const audit = this.groupAudit('server.group.updated', dto.group_id, (reply: GroupChangeReply) => ({
      name: dto.name,
      avatar: dto.avatar,
      introduction: dto.introduction,
      event_id: reply.event_id,
    }));
    return this.writes.once(host, 'groups.update', dto, audit, (alongside) =>
      this.groups.update(
        owner,
        { group_id: dto.group_id, name: dto.name, avatar: dto.avatar, introduction: dto.introduction },
        alongside,
      ),
    );
  }

  async addMembers(host: HostActor, dto: ServerGroupMembersDto): Promise<MembersAddedReply> {
    const owner = await this.ownerOf(dto.group_id);
    await this.writes.usersNamed(dto.user_ids, 'user_ids');
    const audit = this.groupAudit('server.group.members_added', dto.group_id, (reply: MembersAddedReply) => ({
      ...reply,
    }));
    return this.writes.once(host, 'groups.members.add', dto, audit, (alongside) =>
      this.members.add(owner, { group_id: dto.group_id, user_ids: dto.user_ids }, alongside),
    );
  }

  async removeMembers(host: HostActor, dto: ServerGroupMembersDto): Promise<MembersRemovedReply> {
    const owner = await this.ownerOf(dto.group_id);
    await this.writes.usersNamed(dto.user_ids, 'user_ids', false);
    if (dto.user_ids.includes(owner.externalId))
      throw new AppError(
        ErrorCode.GROUP_OPERATION_FORBIDDEN,
        `user_ids: the owner ("${owner.externalId}") cannot be removed; dismiss the group instead`,
      );
    const audit = this.groupAudit('server.group.members_removed', dto.group_id, (reply: MembersRemovedReply) => ({
      ...reply,
    }));
    return this.writes.once(host, 'groups.members.remove', dto, audit, (alongside) =>
      this.members.remove(owner, { group_id: dto.group_id, user_ids: dto.user_ids }, alongside),
    );
  }

  async setRole(host: HostActor, dto: ServerSetRoleDto): Promise<MemberRoleReply> {
    const owner = await this.ownerOf(dto.group_id);
    await this.writes.user(dto.user_id, 'user_id', false);
    const audit = this.groupAudit('server.group.role_set', dto.group_id, (reply: MemberRoleReply) => ({ ...reply }));
    return this.writes.once(host, 'groups.members.role', dto, audit, (alongside) =>
      this.members.setAdmin(
        owner,
        { group_id: dto.group_id, user_id: dto.user_id, admin: dto.role === 'admin' },
        alongside,
      ),
    );
  }

  async dismiss(host: HostActor, dto: ServerGroupRefDto): Promise<GroupDismissReply> {
    const owner = await this.ownerOf(dto.group_id);
    const audit = this.groupAudit('server.group.dismissed', dto.group_id, (reply: GroupDismissReply) => ({
      event_id: reply.event_id,
    }));
    return this.writes.once(host, 'groups.dismiss', dto, audit, (alongside) =>
      this.groups.dismiss(owner, { group_id: dto.group_id }, alongside),
    );
  }

  /** Friends at once, no request (pending ones between them are accepted). Already friends 1206, a block 1211. */
  async befriend(host: HostActor, dto: ServerFriendPairDto): Promise<AcceptFriendRequestReply> {
    const [user, friend] = await this.pair(dto, true);
    const audit = {
      action: 'server.friends.added',
      targetType: 'user' as const,
      targetId: dto.user_id,
      after: (reply: AcceptFriendRequestReply) => ({ friend_id: dto.friend_id, event_id: reply.event_id }),
    };
    return this.writes.once(host, 'friends.add', dto, audit, (alongside) =>
      this.friendRequests.befriendByHost(user, friend, alongside),
    );
  }

  /** Ends the friendship as `user_id` ending it would (`friend.deleted`, by user_id). Not friends: 1204. */
  async unfriend(host: HostActor, dto: ServerFriendPairDto): Promise<EventReply> {
    const [user] = await this.pair(dto, false);
    const audit = {
      action: 'server.friends.deleted',
      targetType: 'user' as const,
      targetId: dto.user_id,
      after: (reply: EventReply) => ({ friend_id: dto.friend_id, event_id: reply.event_id }),
    };
    return this.writes.once(host, 'friends.delete', dto, audit, async (alongside) => {
      try {
        return await this.friends.remove(asAuthUser(user), { user_id: dto.friend_id }, alongside);
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.PROFILE_INACCESSIBLE)
          throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'friend_id: the users are not friends');
        throw error;
      }
    });
  }

  private async pair(dto: ServerFriendPairDto, active: boolean) {
    if (dto.user_id === dto.friend_id) throw AppError.invalid('friend_id', 'must differ from user_id');
    return Promise.all([
      this.writes.user(dto.user_id, 'user_id', active),
      this.writes.user(dto.friend_id, 'friend_id', active),
    ]);
  }

  /** The group's owner, as whom the host acts (1209 when there is no such group). */
  private async ownerOf(groupId: string): Promise<AuthUser> {
    const group = await this.directory.findByPublicId(groupId);
    if (!group) throw noSuchGroup();
    const owner = await this.users.findById(group.ownerId);
    if (!owner) throw noSuchGroup();
    return asAuthUser(owner);
  }

  private groupAudit<R>(action: string, groupId: string, after: (reply: R) => unknown) {
    return { action, targetType: 'group' as const, targetId: groupId, after };
  }
}
