import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi';
import { AuthUser, CurrentUser } from '../im-token/auth-user';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { GroupReportDto, UserReportDto } from './dto/create-report.dto';
import { ReportReply } from './report.mapper';
import { ReportsService } from './reports.service';

class ReportReplyDoc {
  @ApiProperty({ example: 'rpt-2f1c' }) request_id: string;
  @ApiProperty({ enum: ['pending', 'reviewed', 'closed'] }) status: string;
  @ApiProperty({ description: 'Unix ms of the original submission.' }) created_at: number;
  @ApiProperty({ description: 'false when this request_id was already stored (a retry).' }) created: boolean;
}

const REPORT_CODES = [1003, 1004, 1005, 1101, 1102, 1103, 1201, 1207, 1500];

@ApiTags('sdk')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, RateLimitGuard)
@RateLimited('report')
@Controller('app/sdk/reports')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Post('group')
  @ApiOperation({ summary: 'Report a group the caller is or was a member of (1209 otherwise; 1218 when the group is disabled).' })
  @ApiEnvelope(ReportReplyDoc, [...REPORT_CODES, 1209, 1218])
  reportGroup(@CurrentUser() user: AuthUser, @Body() dto: GroupReportDto): Promise<ReportReply> {
    return this.reports.reportGroup(user, dto);
  }

  @Post('user')
  @ApiOperation({ summary: 'Report another user (1204 when no such user; reporting yourself is 1004).' })
  @ApiEnvelope(ReportReplyDoc, [...REPORT_CODES, 1204])
  reportUser(@CurrentUser() user: AuthUser, @Body() dto: UserReportDto): Promise<ReportReply> {
    return this.reports.reportUser(user, dto);
  }
}
