import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { AdminDirectoryService } from './admin-directory.service';
import { AdminBrowseService } from './admin-browse.service';
import { GroupsBrowseQueryDto, UsersBrowseQueryDto } from './admin-browse.dto';
import { AdminGroupListReply, AdminUserListReply } from './admin-browse.reply';
import {
  AdminGroupDismissReply,
  AdminGroupMembersPageReply,
  AdminGroupReply,
  AdminReportDetailReply,
  AdminReportPageReply,
  AdminReportReply,
  AdminUserDetailReply,
  AdminUserReply,
} from './admin-moderation.reply';
import { AdminReportsService } from './admin-reports.service';
import {
  GroupMembersQueryDto,
  AdminGroupRefDto,
  ReportRefDto,
  ReportTransitionDto,
  ReportsQueryDto,
  SetDisabledGroupDto,
  AdminUserActionDto,
  AdminUserRefDto,
} from './admin.dto';
import { AdminRoles } from './admin.guard';
import { SetUserStatusDto, statusChangeOf } from './admin-enforcement.dto';

/** The reports queue: every role reads, moderators and owners move reports. */
@AdminApi()
@Controller('app/admin/reports')
export class AdminReportsController {
  constructor(private readonly reports: AdminReportsService) {}

  @Get()
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Reports, newest first, 50 per page; filter by status, target type, reason, date.' })
  @ApiEnvelope(AdminReportPageReply, ENDPOINT_ERRORS.adminReports.list)
  list(@CurrentAdmin() actor: AdminActor, @Query() dto: ReportsQueryDto): Promise<AdminReportPageReply> {
    return this.reports.list(actor, dto);
  }

  @Get('detail')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'One report with its evidence as the reporter can see it, and its admin history.' })
  @ApiEnvelope(AdminReportDetailReply, ENDPOINT_ERRORS.adminReports.detail)
  detail(@Query() dto: ReportRefDto): Promise<AdminReportDetailReply> {
    return this.reports.detail(dto.report_id);
  }

  @Post('transition')
  @AdminRoles('moderator')
  @ApiOperation({ summary: 'pending → reviewed → closed (or pending → closed) with a note; anything else is 1004.' })
  @ApiEnvelope(AdminReportReply, ENDPOINT_ERRORS.adminReports.transition)
  transition(@CurrentAdmin() actor: AdminActor, @Body() dto: ReportTransitionDto): Promise<AdminReportReply> {
    return this.reports.transition(actor, dto);
  }
}

/** IM users: search and detail for every role; disable and force logout for moderators and owners. */
@AdminApi()
@Controller('app/admin/users')
export class AdminUsersController {
  constructor(
    private readonly directory: AdminDirectoryService,
    private readonly browse: AdminBrowseService,
  ) {}

  @Get()
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'Users, 50 per page, newest first or by last activity or name; optional search (exact user_id or username, or nickname prefix) and filters.',
  })
  @ApiEnvelope(AdminUserListReply, ENDPOINT_ERRORS.adminUsers.search)
  search(@CurrentAdmin() actor: AdminActor, @Query() dto: UsersBrowseQueryDto): Promise<AdminUserListReply> {
    return this.browse.listUsers(actor, dto);
  }

  @Get('detail')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Profile, token version, disabled flag, and counts of groups and conversations.' })
  @ApiEnvelope(AdminUserDetailReply, ENDPOINT_ERRORS.adminUsers.detail)
  detail(@Query() dto: AdminUserRefDto): Promise<AdminUserDetailReply> {
    return this.directory.userDetail(dto.user_id);
  }

  @Post('status')
  @AdminRoles('moderator')
  @ApiOperation({
    summary:
      "Disable for duration_seconds or for good, with a reason the user's client sees as the 1003 msg (next SDK call; sockets closed), or enable.",
  })
  @ApiEnvelope(AdminUserReply, ENDPOINT_ERRORS.adminUsers.setStatus)
  setStatus(@CurrentAdmin() actor: AdminActor, @Body() dto: SetUserStatusDto): Promise<AdminUserReply> {
    return this.directory.setUserDisabled(actor, dto.user_id, statusChangeOf(dto));
  }

  @Post('force-logout')
  @AdminRoles('moderator')
  @ApiOperation({ summary: 'Revoke every token issued so far (1102), as POST /app/sdk/users/revoke-tokens.' })
  @ApiEnvelope(AdminUserReply, ENDPOINT_ERRORS.adminUsers.forceLogout)
  forceLogout(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminUserActionDto): Promise<AdminUserReply> {
    return this.directory.forceLogout(actor, dto.user_id);
  }
}

/** Groups: search and members for every role; disable and dismiss for moderators and owners. */
@AdminApi()
@Controller('app/admin/groups')
export class AdminGroupsController {
  constructor(
    private readonly directory: AdminDirectoryService,
    private readonly browse: AdminBrowseService,
  ) {}

  @Get()
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'Groups, 50 per page, newest first or by name; optional search (exact group_id or name prefix) and filters.',
  })
  @ApiEnvelope(AdminGroupListReply, ENDPOINT_ERRORS.adminGroups.search)
  search(@CurrentAdmin() actor: AdminActor, @Query() dto: GroupsBrowseQueryDto): Promise<AdminGroupListReply> {
    return this.browse.listGroups(actor, dto);
  }

  @Get('members')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Current members of a group, 50 per page.' })
  @ApiEnvelope(AdminGroupMembersPageReply, ENDPOINT_ERRORS.adminGroups.members)
  members(@CurrentAdmin() actor: AdminActor, @Query() dto: GroupMembersQueryDto): Promise<AdminGroupMembersPageReply> {
    return this.directory.groupMembers(actor, dto);
  }

  @Post('status')
  @AdminRoles('moderator')
  @ApiOperation({ summary: 'Disable (1218 for every member operation and send) or enable a group.' })
  @ApiEnvelope(AdminGroupReply, ENDPOINT_ERRORS.adminGroups.setStatus)
  setStatus(@CurrentAdmin() actor: AdminActor, @Body() dto: SetDisabledGroupDto): Promise<AdminGroupReply> {
    return this.directory.setGroupDisabled(actor, dto.group_id, dto.disabled);
  }

  @Post('dismiss')
  @AdminRoles('moderator')
  @ApiOperation({ summary: 'Dismiss a group exactly as its owner would (state and the group.dismissed event).' })
  @ApiEnvelope(AdminGroupDismissReply, ENDPOINT_ERRORS.adminGroups.dismiss)
  dismiss(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminGroupRefDto): Promise<AdminGroupDismissReply> {
    return this.directory.dismissGroup(actor, dto.group_id);
  }
}
