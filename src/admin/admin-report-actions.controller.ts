import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { ReportActionDto, ReportContextQueryDto, ReportTargetsQueryDto } from './admin-report-actions.dto';
import {
  AdminReportActionReply,
  AdminReportContextReply,
  AdminReportTargetPageReply,
} from './admin-report-actions.reply';
import { AdminReportActionsService } from './admin-report-actions.service';
import { AdminReportViewsService } from './admin-report-views.service';
import { AdminRoles } from './admin.guard';

/** Moderation from a report: acting on what it names, the context of its messages, and the queue by target. */
@AdminApi()
@Controller('app/admin/reports')
export class AdminReportActionsController {
  constructor(
    private readonly actions: AdminReportActionsService,
    private readonly views: AdminReportViewsService,
  ) {}

  @Post('act')
  @AdminRoles('moderator')
  @ApiOperation({
    summary:
      "One action on what the report names (disable or mute its user, recall or delete its messages, disable or dismiss its group, close it), audited with the report's ID; a pending report becomes reviewed.",
  })
  @ApiEnvelope(AdminReportActionReply, ENDPOINT_ERRORS.adminReports.act)
  act(@CurrentAdmin() actor: AdminActor, @Body() dto: ReportActionDto): Promise<AdminReportActionReply> {
    return this.actions.act(actor, dto);
  }

  @Get('context')
  @AdminRoles('moderator')
  @ApiOperation({
    summary:
      'A reported message with up to 20 messages before and after it, as the reporter can see them; the viewing is audited (report.context_viewed).',
  })
  @ApiEnvelope(AdminReportContextReply, ENDPOINT_ERRORS.adminReports.context)
  context(@CurrentAdmin() actor: AdminActor, @Query() dto: ReportContextQueryDto): Promise<AdminReportContextReply> {
    return this.views.messageContext(actor, dto);
  }

  @Get('targets')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'Reports grouped by target (user or group): counts, reporters, first and last report, top reason; by count or latest, 50 per page.',
  })
  @ApiEnvelope(AdminReportTargetPageReply, ENDPOINT_ERRORS.adminReports.targets)
  targets(@CurrentAdmin() actor: AdminActor, @Query() dto: ReportTargetsQueryDto): Promise<AdminReportTargetPageReply> {
    return this.views.targets(actor, dto);
  }
}
