import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { GroupReportDto, UserReportDto } from './dto/create-report.dto';
import { ReportReply } from './report.mapper';
import { ReportsService } from './reports.service';

@ApiTags('sdk')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, RateLimitGuard)
@RateLimited('report')
@Controller('app/sdk/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Post('group')
  @ApiOperation({
    summary: 'Report a group the caller is or was a member of (1209 otherwise; 1218 when the group is disabled).',
  })
  @ApiEnvelope(ReportReply, ENDPOINT_ERRORS.reports.reportGroup)
  reportGroup(@CurrentUser() user: AuthUser, @Body() dto: GroupReportDto): Promise<ReportReply> {
    return this.reports.reportGroup(user, dto);
  }

  @Post('user')
  @ApiOperation({ summary: 'Report another user (1204 when no such user; reporting yourself is 1004).' })
  @ApiEnvelope(ReportReply, ENDPOINT_ERRORS.reports.reportUser)
  reportUser(@CurrentUser() user: AuthUser, @Body() dto: UserReportDto): Promise<ReportReply> {
    return this.reports.reportUser(user, dto);
  }
}
