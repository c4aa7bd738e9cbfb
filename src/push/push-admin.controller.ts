import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AdminActor, CurrentAdmin } from '../admin/admin-actor';
import { AdminApi } from '../admin/admin-api.decorator';
import { AdminRoles } from '../admin/admin.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { PushTestDto } from './push-admin.dto';
import { PushAdminService } from './push-admin.service';
import { PushStatusReplyDto, PushTestReplyDto } from './push.reply';

/** Offline push in the console: any admin role reads the providers' state, the owner sends a test. */
@AdminApi()
@Controller('app/admin/push')
export class PushAdminController {
  constructor(private readonly push: PushAdminService) {}

  @Get('status')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      "Each provider: configured or not, requests in flight on this instance, notifications waiting, registrations, and its last success and failure (this instance's, since it started).",
  })
  @ApiEnvelope(PushStatusReplyDto, ENDPOINT_ERRORS.adminPush.status)
  status(): Promise<PushStatusReplyDto> {
    return this.push.status();
  }

  @Post('test')
  @AdminRoles('owner')
  @ApiOperation({
    summary:
      "Send a test notification to every registered device of a user now (past presence, mute and quiet hours), answering each provider's verdict. Audited.",
  })
  @ApiEnvelope(PushTestReplyDto, ENDPOINT_ERRORS.adminPush.test)
  test(@CurrentAdmin() actor: AdminActor, @Body() dto: PushTestDto): Promise<PushTestReplyDto> {
    return this.push.test(actor, dto);
  }
}
