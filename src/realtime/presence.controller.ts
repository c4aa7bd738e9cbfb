import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../common/auth-user';
import { RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { PresenceQueryDto } from './dto/presence-query.dto';
import { PresenceQueryReply } from './presence.reply';
import { PresenceService } from './presence.service';

@ApiTags('presence')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@RequiresCapability('friends')
@Controller('app/sdk/presence')
export class PresenceController {
  constructor(private readonly presence: PresenceService) {}

  @Post('query')
  @ApiOperation({
    summary:
      "Friends' presence now, for the state presence.changed then keeps current (its changes are never replayed). Only friends are answered, as only friends hear presence.changed; a presence store that does not answer is 503 / 1500.",
  })
  @ApiEnvelope(PresenceQueryReply, ENDPOINT_ERRORS.presence.query)
  query(@CurrentUser() user: AuthUser, @Body() dto: PresenceQueryDto): Promise<PresenceQueryReply> {
    return this.presence.query(user, dto);
  }
}
