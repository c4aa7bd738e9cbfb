import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SecretGuard } from '../auth/secret.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AcceptFriendRequestReply, EventReply } from '../friends/friends.reply';
import {
  GroupChangeReply,
  GroupDismissReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
} from '../groups/groups.reply';
import {
  ServerCreateGroupDto,
  ServerFriendPairDto,
  ServerGroupMembersDto,
  ServerGroupRefDto,
  ServerSetRoleDto,
  ServerUpdateGroupDto,
} from './dto/server-groups.dto';
import { CurrentHost, HostActor } from './host-actor';
import { ServerApiRateLimitGuard } from './server-api-rate-limit.guard';
import { ServerGroupsService } from './server-groups.service';

const E = ENDPOINT_ERRORS.serverApi;

/**
 * Server API: groups (the host acts as the group's owner) and friendships, for the host backend
 * (SDK secret). Every write is idempotent by request_id and audited with the host as actor.
 */
@ApiTags('host backend')
@ApiBearerAuth('sdk-secret')
@UseGuards(SecretGuard, ServerApiRateLimitGuard)
@Controller('app/server')
export class ServerGroupsController {
  constructor(private readonly groups: ServerGroupsService) {}

  @Post('groups/create')
  @ApiOperation({ summary: 'Create a group with an owner and members (group.created).' })
  @ApiEnvelope(GroupChangeReply, E.createGroup)
  createGroup(@CurrentHost() host: HostActor, @Body() dto: ServerCreateGroupDto): Promise<GroupChangeReply> {
    return this.groups.create(host, dto);
  }

  @Post('groups/update')
  @ApiOperation({
    summary: "Update a group's name, avatar or introduction (group.updated; event_id null if unchanged).",
  })
  @ApiEnvelope(GroupChangeReply, E.updateGroup)
  updateGroup(@CurrentHost() host: HostActor, @Body() dto: ServerUpdateGroupDto): Promise<GroupChangeReply> {
    return this.groups.update(host, dto);
  }

  @Post('groups/members/add')
  @ApiOperation({ summary: 'Add members (group.members_added); current members are skipped.' })
  @ApiEnvelope(MembersAddedReply, E.addMembers)
  addMembers(@CurrentHost() host: HostActor, @Body() dto: ServerGroupMembersDto): Promise<MembersAddedReply> {
    return this.groups.addMembers(host, dto);
  }

  @Post('groups/members/remove')
  @ApiOperation({ summary: 'Remove members other than the owner (group.members_removed); non-members are skipped.' })
  @ApiEnvelope(MembersRemovedReply, E.removeMembers)
  removeMembers(@CurrentHost() host: HostActor, @Body() dto: ServerGroupMembersDto): Promise<MembersRemovedReply> {
    return this.groups.removeMembers(host, dto);
  }

  @Post('groups/members/role')
  @ApiOperation({ summary: 'Make a member an admin or a plain member (group.admin_changed).' })
  @ApiEnvelope(MemberRoleReply, E.setRole)
  setRole(@CurrentHost() host: HostActor, @Body() dto: ServerSetRoleDto): Promise<MemberRoleReply> {
    return this.groups.setRole(host, dto);
  }

  @Post('groups/dismiss')
  @ApiOperation({ summary: 'Dismiss a group (group.dismissed).' })
  @ApiEnvelope(GroupDismissReply, E.dismissGroup)
  dismissGroup(@CurrentHost() host: HostActor, @Body() dto: ServerGroupRefDto): Promise<GroupDismissReply> {
    return this.groups.dismiss(host, dto);
  }

  @Post('friends/add')
  @ApiOperation({ summary: 'Make two users friends without a request (friend.added).' })
  @ApiEnvelope(AcceptFriendRequestReply, E.addFriend)
  addFriend(@CurrentHost() host: HostActor, @Body() dto: ServerFriendPairDto): Promise<AcceptFriendRequestReply> {
    return this.groups.befriend(host, dto);
  }

  @Post('friends/delete')
  @ApiOperation({ summary: 'End a friendship as user_id would (friend.deleted).' })
  @ApiEnvelope(EventReply, E.deleteFriend)
  deleteFriend(@CurrentHost() host: HostActor, @Body() dto: ServerFriendPairDto): Promise<EventReply> {
    return this.groups.unfriend(host, dto);
  }
}
