import { Body, Controller, Get, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi';
import { AuthUser, CurrentUser } from '../im-token/auth-user';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { HideConversationDto, MuteConversationDto, PinConversationDto, SyncDto } from './dto/sync.dto';
import { SettingsReplyDoc, SyncReplyDoc, UnreadReplyDoc } from './sync.openapi';
import { SettingsReply, SyncReply, SyncService, UnreadReply } from './sync.service';

const TOKEN_CODES = [1003, 1101, 1102, 1103];

@ApiTags('sdk sync')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@Controller('app/sdk')
export class SyncController {
  constructor(private readonly sync: SyncService) {}

  @Post('sync')
  @ApiOperation({
    summary: 'The home list (up to 50 conversations, pinned first, then by last activity), aggregate unread, capabilities and media limits.',
    description: 'More conversations: pass conversations.next_cursor as cursor. page, offset and limit are refused (1004).',
  })
  @ApiEnvelope(SyncReplyDoc, [...TOKEN_CODES, 1004])
  syncHome(@CurrentUser() user: AuthUser, @Body() dto: SyncDto): Promise<SyncReply> {
    return this.sync.sync(user, dto);
  }

  @Get('unread')
  @ApiOperation({
    summary: 'The absolute unread aggregate for the badge, with the conversations that have unread messages (at most 100).',
    description: 'No parameters; page, offset and limit are refused (1004).',
  })
  @ApiEnvelope(UnreadReplyDoc, [...TOKEN_CODES, 1004])
  unread(@CurrentUser() user: AuthUser): Promise<UnreadReply> {
    return this.sync.unread(user);
  }

  @Post('conversations/pin')
  @ApiOperation({ summary: 'Pin or unpin a conversation (pinned ones come first in sync).' })
  @ApiEnvelope(SettingsReplyDoc, [...TOKEN_CODES, 1004, 1201])
  pin(@CurrentUser() user: AuthUser, @Body() dto: PinConversationDto): Promise<SettingsReply> {
    return this.sync.updateSettings(user, dto.conversation_id, { pinned: dto.pinned });
  }

  @Post('conversations/mute')
  @ApiOperation({ summary: 'Mute or unmute a conversation (muted unread is left out of total_unmuted).' })
  @ApiEnvelope(SettingsReplyDoc, [...TOKEN_CODES, 1004, 1201])
  mute(@CurrentUser() user: AuthUser, @Body() dto: MuteConversationDto): Promise<SettingsReply> {
    return this.sync.updateSettings(user, dto.conversation_id, { muted: dto.muted });
  }

  @Post('conversations/hide')
  @ApiOperation({ summary: 'Hide a conversation from the home list until its next message (or unhide it).' })
  @ApiEnvelope(SettingsReplyDoc, [...TOKEN_CODES, 1004, 1201])
  hide(@CurrentUser() user: AuthUser, @Body() dto: HideConversationDto): Promise<SettingsReply> {
    return this.sync.updateSettings(user, dto.conversation_id, { hidden: dto.hidden });
  }
}
