import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { ClientErrorReply } from './client-errors.reply';
import { ClientErrorsService } from './client-errors.service';
import { ReportClientErrorDto } from './dto/report-client-error.dto';

@ApiTags('sdk')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, RateLimitGuard)
@RateLimited('client_error')
@Controller('app/sdk/client-errors')
export class ClientErrorsController {
  constructor(private readonly clientErrors: ClientErrorsService) {}

  @Post()
  @ApiOperation({
    summary:
      'Report a client error. Idempotent per event_id; similar errors (same user, device, platform, severity, error_code, operation, build_id) in the same minute are merged.',
  })
  @ApiEnvelope(ClientErrorReply, ENDPOINT_ERRORS.clientErrors.report)
  report(@CurrentUser() user: AuthUser, @Body() dto: ReportClientErrorDto): Promise<ClientErrorReply> {
    return this.clientErrors.report(user, dto);
  }
}
