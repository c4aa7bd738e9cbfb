import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi';
import { AuthUser, CurrentUser } from '../im-token/auth-user';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { ClientErrorReply, ClientErrorsService } from './client-errors.service';
import { ReportClientErrorDto } from './dto/report-client-error.dto';

class ClientErrorReplyDoc {
  @ApiProperty({ description: 'ID of the stored or merged record; may differ from the submitted one.' }) event_id: string;
  @ApiProperty({ description: 'Occurrences accumulated in that record.', example: 1 }) occurrence_count: number;
}

@ApiTags('sdk')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, RateLimitGuard)
@RateLimited('client_error')
@Controller('app/sdk/client-errors')
export class ClientErrorsController {
  constructor(private readonly clientErrors: ClientErrorsService) {}

  @Post()
  @ApiOperation({
    summary: 'Report a client error. Idempotent per event_id; similar errors (same user, device, platform, severity, error_code, operation, build_id) in the same minute are merged.',
  })
  @ApiEnvelope(ClientErrorReplyDoc, [1003, 1004, 1005, 1101, 1102, 1103, 1500])
  report(@CurrentUser() user: AuthUser, @Body() dto: ReportClientErrorDto): Promise<ClientErrorReply> {
    return this.clientErrors.report(user, dto);
  }
}
