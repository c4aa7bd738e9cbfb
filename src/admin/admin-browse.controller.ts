import { Body, Controller, Get, Header, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import { ErrorCode } from '../common/error-code';
import { RawReply } from '../common/http/raw-reply.decorator';
import { ApiEnvelope, describeCodes, errorEnvelopeSchema } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { AdminBrowseExportService, EXPORT_ROW_CAP } from './admin-browse-export.service';
import {
  AdminEditProfileDto,
  GroupOverviewQueryDto,
  GroupsExportQueryDto,
  UsersExportQueryDto,
} from './admin-browse.dto';
import { AdminGroupOverviewReply, AdminUserListItemReply, AdminUserOverviewReply } from './admin-browse.reply';
import { AdminProfileService } from './admin-profile.service';
import { AdminBrowseService } from './admin-browse.service';
import { AdminUserRefDto } from './admin.dto';
import { AdminRoles } from './admin.guard';

const csvReply = (codes: readonly ErrorCode[]) =>
  ApiOkResponse({
    description: `The CSV (UTF-8 with a byte order mark, CRLF, RFC 4180 quoting, formula-like text prefixed with '); or, on failure, the envelope. Codes:\n${describeCodes(codes)}`,
    content: {
      'text/csv': { schema: { type: 'string', format: 'binary' } },
      'application/json': { schema: errorEnvelopeSchema(codes, ErrorCode.INVALID_PARAMETER) },
    },
  });

/** A user's page and the Users list as CSV (personal data: moderators and owners only, audited). */
@AdminApi()
@Controller('app/admin/users')
export class AdminUserBrowseController {
  constructor(
    private readonly browse: AdminBrowseService,
    private readonly exports: AdminBrowseExportService,
    private readonly profiles: AdminProfileService,
  ) {}

  @Post('profile')
  @AdminRoles('moderator')
  @ApiOperation({
    summary:
      'Edit the host-owned profile fields (nickname, avatar) where the bundled host app runs (HOST_APP_ENABLED); elsewhere 1202. Sends user.profile_updated; audited as user.profile_edited.',
  })
  @ApiEnvelope(AdminUserListItemReply, ENDPOINT_ERRORS.adminUsers.editProfile)
  editProfile(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminEditProfileDto): Promise<AdminUserListItemReply> {
    return this.profiles.edit(actor, dto);
  }

  @Get('overview')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'A user’s page: profile, presence and connections on every instance, friends, groups with role, reports by and against them, client errors, admin actions.',
  })
  @ApiEnvelope(AdminUserOverviewReply, ENDPOINT_ERRORS.adminUsers.overview)
  overview(@Query() dto: AdminUserRefDto): Promise<AdminUserOverviewReply> {
    return this.browse.userOverview(dto.user_id);
  }

  @Get('export')
  @AdminRoles('moderator')
  @RawReply()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: `The Users list with the same search, filters and sort as CSV, streamed; at most ${EXPORT_ROW_CAP} rows; audited as users.exported.`,
  })
  @ApiProduces('text/csv', 'application/json')
  @csvReply(ENDPOINT_ERRORS.adminUsers.export)
  export(@CurrentAdmin() actor: AdminActor, @Query() dto: UsersExportQueryDto): Promise<StreamableFile> {
    return this.exports.users(actor, dto);
  }
}

/** A group's page and the Groups list as CSV (moderators and owners only, audited). */
@AdminApi()
@Controller('app/admin/groups')
export class AdminGroupBrowseController {
  constructor(
    private readonly browse: AdminBrowseService,
    private readonly exports: AdminBrowseExportService,
  ) {}

  @Get('overview')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'A group’s page: profile, owner, member count, reports against it, admin actions on it.' })
  @ApiEnvelope(AdminGroupOverviewReply, ENDPOINT_ERRORS.adminGroups.overview)
  overview(@Query() dto: GroupOverviewQueryDto): Promise<AdminGroupOverviewReply> {
    return this.browse.groupOverview(dto);
  }

  @Get('export')
  @AdminRoles('moderator')
  @RawReply()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: `The Groups list with the same search, filters and sort as CSV, streamed; at most ${EXPORT_ROW_CAP} rows; audited as groups.exported.`,
  })
  @ApiProduces('text/csv', 'application/json')
  @csvReply(ENDPOINT_ERRORS.adminGroups.export)
  export(@CurrentAdmin() actor: AdminActor, @Query() dto: GroupsExportQueryDto): Promise<StreamableFile> {
    return this.exports.groups(actor, dto);
  }
}
