import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import {
  CreateGroupDto,
  CreateInvitationDto,
  GroupMembersChangeDto,
  GroupMembersQueryDto,
  GroupQueryDto,
  GroupRefDto,
  JoinGroupDto,
  MuteGroupMemberDto,
  MyGroupsQueryDto,
  SetGroupAdminDto,
  TransferGroupDto,
  UpdateGroupDto,
} from './dto/group.dto';
import { GroupInvitationsService } from './group-invitations.service';
import { GroupMembersService } from './group-members.service';
import {
  GroupChangeReply,
  GroupDismissReply,
  GroupEnvelopeReply,
  GroupLeaveReply,
  GroupMemberPageReply,
  GroupPageReply,
  InvitationReply,
  MemberMuteReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
} from './groups.reply';
import { GroupsService } from './groups.service';

/**
 * Groups (capability `groups`). Every group endpoint answers 1209 unless the caller is a
 * current member of a group that exists and is not dismissed, and 1218 when the group is
 * disabled (checked after membership).
 */
@ApiTags('groups')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@RequiresCapability('groups')
@Controller('app/sdk/groups')
export class GroupsController {
  constructor(
    private readonly groups: GroupsService,
    private readonly members: GroupMembersService,
    private readonly invitations: GroupInvitationsService,
  ) {}

  @Post('create')
  @ApiOperation({
    summary:
      'Create a group owned by the caller, with initial members and its conversation. A taken group_id is 1004; an unknown member 1204.',
  })
  @ApiEnvelope(GroupChangeReply, ENDPOINT_ERRORS.groups.create)
  create(@CurrentUser() user: AuthUser, @Body() dto: CreateGroupDto): Promise<GroupChangeReply> {
    return this.groups.create(user, dto);
  }

  @Get('get')
  @ApiOperation({ summary: 'One group, for a current member.' })
  @ApiEnvelope(GroupEnvelopeReply, ENDPOINT_ERRORS.groups.get)
  get(@CurrentUser() user: AuthUser, @Query() dto: GroupQueryDto): Promise<GroupEnvelopeReply> {
    return this.groups.get(user, dto);
  }

  @Get()
  @ApiOperation({
    summary: "The caller's current groups (disabled groups left out), 50 per page, in order of first joining.",
  })
  @ApiEnvelope(GroupPageReply, ENDPOINT_ERRORS.groups.list)
  list(@CurrentUser() user: AuthUser, @Query() dto: MyGroupsQueryDto): Promise<GroupPageReply> {
    return this.groups.list(user, dto);
  }

  @Post('update')
  @ApiOperation({ summary: 'Change name, avatar or introduction (owner or admin).' })
  @ApiEnvelope(GroupChangeReply, ENDPOINT_ERRORS.groups.update)
  update(@CurrentUser() user: AuthUser, @Body() dto: UpdateGroupDto): Promise<GroupChangeReply> {
    return this.groups.update(user, dto);
  }

  @Get('members')
  @ApiOperation({ summary: 'Current members, 50 per page, in internal user ID order; any member may list.' })
  @ApiEnvelope(GroupMemberPageReply, ENDPOINT_ERRORS.groups.listMembers)
  listMembers(@CurrentUser() user: AuthUser, @Query() dto: GroupMembersQueryDto): Promise<GroupMemberPageReply> {
    return this.members.list(user, dto);
  }

  @Post('members/add')
  @ApiOperation({ summary: 'Add members (owner or admin); current members are skipped, former members rejoin.' })
  @ApiEnvelope(MembersAddedReply, ENDPOINT_ERRORS.groups.addMembers)
  addMembers(@CurrentUser() user: AuthUser, @Body() dto: GroupMembersChangeDto): Promise<MembersAddedReply> {
    return this.members.add(user, dto);
  }

  @Post('members/remove')
  @ApiOperation({
    summary:
      'Remove members: the owner removes admins and members, an admin members only; never the owner or yourself.',
  })
  @ApiEnvelope(MembersRemovedReply, ENDPOINT_ERRORS.groups.removeMembers)
  removeMembers(@CurrentUser() user: AuthUser, @Body() dto: GroupMembersChangeDto): Promise<MembersRemovedReply> {
    return this.members.remove(user, dto);
  }

  @Post('leave')
  @ApiOperation({ summary: 'Leave the group; the owner must transfer it first (1209).' })
  @ApiEnvelope(GroupLeaveReply, ENDPOINT_ERRORS.groups.leave)
  leave(@CurrentUser() user: AuthUser, @Body() dto: GroupRefDto): Promise<GroupLeaveReply> {
    return this.members.leave(user, dto);
  }

  @Post('admins/set')
  @ApiOperation({ summary: 'Appoint (admin: true) or dismiss (false) an admin (owner only).' })
  @ApiEnvelope(MemberRoleReply, ENDPOINT_ERRORS.groups.setAdmin)
  setAdmin(@CurrentUser() user: AuthUser, @Body() dto: SetGroupAdminDto): Promise<MemberRoleReply> {
    return this.members.setAdmin(user, dto);
  }

  @Post('transfer')
  @ApiOperation({ summary: 'Transfer ownership to a current member (owner only); the old owner becomes an admin.' })
  @ApiEnvelope(GroupChangeReply, ENDPOINT_ERRORS.groups.transfer)
  transfer(@CurrentUser() user: AuthUser, @Body() dto: TransferGroupDto): Promise<GroupChangeReply> {
    return this.groups.transfer(user, dto);
  }

  @Post('dismiss')
  @ApiOperation({
    summary: 'Dismiss the group (owner only): every membership ends; afterwards every group operation answers 1209.',
  })
  @ApiEnvelope(GroupDismissReply, ENDPOINT_ERRORS.groups.dismiss)
  dismiss(@CurrentUser() user: AuthUser, @Body() dto: GroupRefDto): Promise<GroupDismissReply> {
    return this.groups.dismiss(user, dto);
  }

  @Post('members/mute')
  @ApiOperation({
    summary: 'Mute a member for duration_seconds (0 unmutes); owner or admin, admins cannot mute the owner or admins.',
  })
  @ApiEnvelope(MemberMuteReply, ENDPOINT_ERRORS.groups.mute)
  mute(@CurrentUser() user: AuthUser, @Body() dto: MuteGroupMemberDto): Promise<MemberMuteReply> {
    return this.members.mute(user, dto);
  }

  @Post('invitations/create')
  @ApiOperation({ summary: 'Create an invitation code (owner or admin), valid ttl_seconds.' })
  @ApiEnvelope(InvitationReply, ENDPOINT_ERRORS.groups.createInvitation)
  createInvitation(@CurrentUser() user: AuthUser, @Body() dto: CreateInvitationDto): Promise<InvitationReply> {
    return this.invitations.create(user, dto);
  }

  @Post('join')
  @ApiOperation({
    summary:
      'Join with an invitation code: 1210 when it is unknown, revoked, expired or the group was dismissed; already a member answers event_id null.',
  })
  @ApiEnvelope(GroupChangeReply, ENDPOINT_ERRORS.groups.join)
  join(@CurrentUser() user: AuthUser, @Body() dto: JoinGroupDto): Promise<GroupChangeReply> {
    return this.invitations.join(user, dto);
  }
}
