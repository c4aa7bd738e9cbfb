import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SecretGuard } from '../auth/secret.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { SendReply } from '../messages/messages.reply';
import { ConversationPageReply } from '../sync/sync.reply';
import {
  ServerListConversationsDto,
  ServerListMessagesDto,
  ServerNoticeDto,
  ServerSendMessageDto,
} from './dto/server-messages.dto';
import { CurrentHost, HostActor } from './host-actor';
import { ServerApiRateLimitGuard } from './server-api-rate-limit.guard';
import { ServerMessagePageReply } from './server-api.reply';
import { ServerMessagesService } from './server-messages.service';

const E = ENDPOINT_ERRORS.serverApi;

/** Server API: messages and conversations, for the host backend (SDK secret). */
@ApiTags('host backend')
@ApiBearerAuth('sdk-secret')
@UseGuards(SecretGuard, ServerApiRateLimitGuard)
@Controller('app/server')
export class ServerMessagesController {
  constructor(private readonly messages: ServerMessagesService) {}

  @Post('messages/send')
  @ApiOperation({
    summary:
      'Send a text or custom message as a user, to another user (one-to-one; friendship not required, a block refuses) or into a group the user is a member of. Idempotent by request_id.',
  })
  @ApiEnvelope(SendReply, E.send)
  send(@CurrentHost() host: HostActor, @Body() dto: ServerSendMessageDto): Promise<SendReply> {
    return this.messages.send(host, dto);
  }

  @Post('messages/notice')
  @ApiOperation({
    summary:
      'Post a system notice (type notice, no sender) into a group or the one-to-one conversation of two users. Idempotent by request_id.',
  })
  @ApiEnvelope(SendReply, E.notice)
  notice(@CurrentHost() host: HostActor, @Body() dto: ServerNoticeDto): Promise<SendReply> {
    return this.messages.notice(host, dto);
  }

  @Post('messages/list')
  @ApiOperation({
    summary: "A conversation's messages by sequence (the conversation as a whole, tombstones included), oldest first.",
  })
  @ApiEnvelope(ServerMessagePageReply, E.listMessages)
  listMessages(@Body() dto: ServerListMessagesDto): Promise<ServerMessagePageReply> {
    return this.messages.listMessages(dto);
  }

  @Post('conversations/list')
  @ApiOperation({ summary: "A user's conversations, as their own sync lists them (paged by cursor)." })
  @ApiEnvelope(ConversationPageReply, E.listConversations)
  listConversations(@Body() dto: ServerListConversationsDto): Promise<ConversationPageReply> {
    return this.messages.listConversations(dto);
  }
}
