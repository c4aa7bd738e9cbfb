import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminApi } from './admin-api.decorator';
import { AdminInsightsService } from './admin-insights.service';
import { ClientErrorDetailReply } from './admin-moderation.reply';
import { ClientErrorRefDto } from './admin.dto';
import { AdminRoles } from './admin.guard';
import { DashboardReply } from './admin.reply';

/** Read-only views for every role. */
@AdminApi()
@Controller('app/admin')
export class AdminInsightsController {
  constructor(private readonly insights: AdminInsightsService) {}

  @Get('client-errors/detail')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'One stored client error record (an occurrence of a group; already scrubbed) with its stack trace, context and similar errors per hour.',
  })
  @ApiEnvelope(ClientErrorDetailReply, ENDPOINT_ERRORS.adminInsights.clientErrorDetail)
  clientErrorDetail(@Query() dto: ClientErrorRefDto): Promise<ClientErrorDetailReply> {
    return this.insights.clientErrorDetail(dto.merge_key);
  }

  @Get('dashboard')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Users, open reports, messages per day (14 days), client errors per hour (24 hours).' })
  @ApiEnvelope(DashboardReply, ENDPOINT_ERRORS.adminInsights.dashboard)
  dashboard(): Promise<DashboardReply> {
    return this.insights.dashboard();
  }
}
