import { Body, Controller, Get, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser } from '../common/auth-user';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { PushRegisterDto, PushSettingsDto, PushUnregisterDto } from './dto/push.dto';
import { PushRegistrationReplyDto, PushSettingsReplyDto, PushUnregisterReplyDto } from './push.reply';
import { PushService } from './push.service';

@ApiTags('sdk push')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@Controller('app/sdk/push')
export class PushController {
  constructor(private readonly push: PushService) {}

  @Post('register')
  @ApiOperation({
    summary: "Register the device's provider token for offline notifications (docs/push.md).",
    description:
      'Call at every start and whenever the provider hands the app a new token. One registration per device and provider: a new token replaces the old one. ' +
      'A token registered by another user moves to this one (a shared device where users sign in and out). ' +
      '1004 names the field: a provider this service has no credentials for, a platform the provider does not reach, a malformed token.',
  })
  @ApiEnvelope(PushRegistrationReplyDto, ENDPOINT_ERRORS.push.register)
  register(@CurrentUser() user: AuthUser, @Body() dto: PushRegisterDto): Promise<PushRegistrationReplyDto> {
    return this.push.register(user, dto);
  }

  @Post('unregister')
  @ApiOperation({
    summary:
      "Remove the device's registrations (at sign-out): all of them, or one provider's. Unregistering twice answers removed 0.",
  })
  @ApiEnvelope(PushUnregisterReplyDto, ENDPOINT_ERRORS.push.unregister)
  unregister(@CurrentUser() user: AuthUser, @Body() dto: PushUnregisterDto): Promise<PushUnregisterReplyDto> {
    return this.push.unregister(user, dto);
  }

  @Get('settings')
  @ApiOperation({ summary: "The user's preview level, quiet hours and registered devices." })
  @ApiEnvelope(PushSettingsReplyDto, ENDPOINT_ERRORS.push.settings)
  settings(@CurrentUser() user: AuthUser): Promise<PushSettingsReplyDto> {
    return this.push.getSettings(user);
  }

  @Post('settings')
  @ApiOperation({
    summary: 'Set the preview level and quiet hours (both fields; null for the default).',
    description:
      'preview: full (sender and text), sender (who, not what), none (nothing but "New message"). quiet_hours: no notification from start to end in the time zone (crossing midnight when end is earlier; equal: all day).',
  })
  @ApiEnvelope(PushSettingsReplyDto, ENDPOINT_ERRORS.push.setSettings)
  setSettings(@CurrentUser() user: AuthUser, @Body() dto: PushSettingsDto): Promise<PushSettingsReplyDto> {
    return this.push.setSettings(user, dto);
  }
}
