import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { ResetSettingsDto, StageCallbackKeyDto, UpdateSettingsDto } from './admin-settings.dto';
import { RuntimeSettingsReply } from './admin-settings.reply';
import { AdminSettingsService } from './admin-settings.service';
import { AdminRoles } from './admin.guard';

/** Settings that apply without a restart; the environment gives their defaults. */
@AdminApi()
@Controller('app/admin/settings')
export class AdminSettingsController {
  constructor(private readonly settings: AdminSettingsService) {}

  @Get()
  @AdminRoles('viewer')
  @ApiOperation({
    summary: 'The settings in force, which of them the console set, and how soon a change applies everywhere.',
  })
  @ApiEnvelope(RuntimeSettingsReply, ENDPOINT_ERRORS.adminSettings.get)
  get(): Promise<RuntimeSettingsReply> {
    return this.settings.get();
  }

  @Post('update')
  @AdminRoles('owner')
  @ApiOperation({
    summary: 'Change any subset of the settings; maps (capabilities, rate_limits) change only the entries sent.',
  })
  @ApiEnvelope(RuntimeSettingsReply, ENDPOINT_ERRORS.adminSettings.update)
  update(@CurrentAdmin() actor: AdminActor, @Body() dto: UpdateSettingsDto): Promise<RuntimeSettingsReply> {
    return this.settings.update(actor, dto);
  }

  @Post('reset')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Return settings to their environment values.' })
  @ApiEnvelope(RuntimeSettingsReply, ENDPOINT_ERRORS.adminSettings.reset)
  reset(@CurrentAdmin() actor: AdminActor, @Body() dto: ResetSettingsDto): Promise<RuntimeSettingsReply> {
    return this.settings.reset(actor, dto);
  }

  @Post('rtc-callback-key/stage')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Start a room-callback key rotation: the staged key verifies alongside the current one.' })
  @ApiEnvelope(RuntimeSettingsReply, ENDPOINT_ERRORS.adminSettings.stageCallbackKey)
  stage(@CurrentAdmin() actor: AdminActor, @Body() dto: StageCallbackKeyDto): Promise<RuntimeSettingsReply> {
    return this.settings.stageCallbackKey(actor, dto.key);
  }

  @Post('rtc-callback-key/promote')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Finish the rotation: the staged key becomes the only key.' })
  @ApiEnvelope(RuntimeSettingsReply, ENDPOINT_ERRORS.adminSettings.promoteCallbackKey)
  promote(@CurrentAdmin() actor: AdminActor): Promise<RuntimeSettingsReply> {
    return this.settings.promoteCallbackKey(actor);
  }

  @Post('rtc-callback-key/cancel')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Abandon the rotation: only the current key verifies.' })
  @ApiEnvelope(RuntimeSettingsReply, ENDPOINT_ERRORS.adminSettings.cancelCallbackKey)
  cancel(@CurrentAdmin() actor: AdminActor): Promise<RuntimeSettingsReply> {
    return this.settings.cancelCallbackKey(actor);
  }
}
