import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminApi } from './admin-api.decorator';
import { AnalyticsQueryDto } from './admin-analytics.dto';
import { AnalyticsReply } from './admin-analytics.reply';
import { AdminInsightsService } from './admin-insights.service';
import { AdminRoles } from './admin.guard';

/** The analytics page: figures from the rollups (never a scan of the messages table). */
@AdminApi()
@Controller('app/admin')
export class AdminAnalyticsController {
  constructor(private readonly insights: AdminInsightsService) {}

  @Get('analytics')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'DAU, MAU, messages by type, calls and call minutes per UTC day (30 or 90 days); peak connections, requests and error rate per hour (48 hours).',
  })
  @ApiEnvelope(AnalyticsReply, ENDPOINT_ERRORS.adminInsights.analytics)
  analytics(@Query() dto: AnalyticsQueryDto): Promise<AnalyticsReply> {
    return this.insights.analytics(dto);
  }
}
