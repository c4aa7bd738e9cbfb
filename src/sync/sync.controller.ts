import { Body, Controller, Get, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { HideConversationDto, MuteConversationDto, PinConversationDto, SyncDto } from './dto/sync.dto';
import { SettingsReply, SyncReply, UnreadReply } from './sync.reply';
import { SyncService } from './sync.service';

@ApiTags('sdk sync')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@Controller('app/sdk')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Post('sync')
  @ApiOperation({
    summary:
      'The home list (up to 50 conversations, pinned first, then by last activity), aggregate unread, capabilities and media limits.',
    description:
      'More conversations: pass conversations.next_cursor as cursor. page, offset and limit are refused (1004).',
  })
  @ApiEnvelope(SyncReply, ENDPOINT_ERRORS.sync.syncHome)
  syncHome(@CurrentUser() user: AuthUser, @Body() dto: SyncDto): Promise<SyncReply> {
    return this.sync.sync(user, dto);
  }

  @Get('unread')
  @ApiOperation({
    summary:
      'The absolute unread aggregate for the badge, with the conversations that have unread messages (at most 100).',
    description: 'No parameters; page, offset and limit are refused (1004).',
  })
  @ApiEnvelope(UnreadReply, ENDPOINT_ERRORS.sync.unread)
  unread(@CurrentUser() user: AuthUser): Promise<UnreadReply> {
    return this.sync.unread(user);
  }

  @Post('conversations/pin')
  @ApiOperation({ summary: 'Pin or unpin a conversation (pinned ones come first in sync).' })
  @ApiEnvelope(SettingsReply, ENDPOINT_ERRORS.sync.pin)
  pin(@CurrentUser() user: AuthUser, @Body() dto: PinConversationDto): Promise<SettingsReply> {
    return this.sync.updateSettings(user, dto.conversation_id, { pinned: dto.pinned });
  }

  @Post('conversations/mute')
  @ApiOperation({ summary: 'Mute or unmute a conversation (muted unread is left out of total_unmuted).' })
  @ApiEnvelope(SettingsReply, ENDPOINT_ERRORS.sync.mute)
  mute(@CurrentUser() user: AuthUser, @Body() dto: MuteConversationDto): Promise<SettingsReply> {
    return this.sync.updateSettings(user, dto.conversation_id, { muted: dto.muted });
  }

  @Post('conversations/hide')
  @ApiOperation({ summary: 'Hide a conversation from the home list until its next message (or unhide it).' })
  @ApiEnvelope(SettingsReply, ENDPOINT_ERRORS.sync.hide)
  hide(@CurrentUser() user: AuthUser, @Body() dto: HideConversationDto): Promise<SettingsReply> {
    return this.sync.updateSettings(user, dto.conversation_id, { hidden: dto.hidden });
  }
}
