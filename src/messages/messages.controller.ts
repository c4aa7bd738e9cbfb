import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { MarkReadDto, MessageRefDto } from './dto/message-ref.dto';
import { MessagesQueryDto } from './dto/messages-query.dto';
import { SearchMessagesQueryDto } from './dto/search-query.dto';
import { SendMessageDto } from './dto/send-message.dto';
import { MessageWindowService } from './message-window.service';
import { MessageChangeReply, MessageWindowReply, ReadReply, SearchPageReply, SendReply } from './messages.reply';
import { MessageChangesService } from './message-changes.service';
import { MessageReadsService } from './message-reads.service';
import { MessagingService } from './messaging.service';

@ApiTags('sdk messages')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, RateLimitGuard)
@Controller('app/sdk/messages')
export class MessagesController {
  constructor(
    private readonly messaging: MessagingService,
    private readonly changes: MessageChangesService,
    private readonly reads: MessageReadsService,
    private readonly windows: MessageWindowService,
  ) {}

  @Get()
  @ApiOperation({
    summary: "Restore one conversation's message window (spec 4.6, 4.7): conversation_id plus exactly one mode.",
    description:
      'Tail calibration: known_last_seq + known_updated_at + known_deletion_revision together; outcome "unchanged" (no messages) when all three match, else "reset" with the latest 50. ' +
      'History: before_seq or after_seq (50, outcome "page"). Locate: around_mid (25 before, the message and 24 after). Mixing modes or part of the trio: 1004. ' +
      'A removed member reads only what was sent while a member. page, offset and limit are refused (1004).',
  })
  @ApiEnvelope(MessageWindowReply, ENDPOINT_ERRORS.messages.list)
  list(@CurrentUser() user: AuthUser, @Query() query: MessagesQueryDto): Promise<MessageWindowReply> {
    return this.windows.read(user, query);
  }

  @Post('send')
  @RateLimited('send')
  @ApiOperation({
    summary: 'Send a text, image, file or custom message. Sequences per conversation run 1, 2, 3… with no gap.',
  })
  @ApiEnvelope(SendReply, ENDPOINT_ERRORS.messages.send)
  send(@CurrentUser() user: AuthUser, @Body() dto: SendMessageDto): Promise<SendReply> {
    return this.messaging.send(user, dto);
  }

  @Post('recall')
  @ApiOperation({
    summary:
      'Recall a message (sender within RECALL_WINDOW_SECONDS, or a group owner/admin). Keeps mid and sequence as a tombstone.',
  })
  @ApiEnvelope(MessageChangeReply, ENDPOINT_ERRORS.messages.recall)
  recall(@CurrentUser() user: AuthUser, @Body() dto: MessageRefDto): Promise<MessageChangeReply> {
    return this.changes.recall(user, dto);
  }

  @Post('delete')
  @ApiOperation({
    summary: 'Delete a message for everyone (the sender, or a group owner/admin). Raises deletion_revision.',
  })
  @ApiEnvelope(MessageChangeReply, ENDPOINT_ERRORS.messages.delete)
  delete(@CurrentUser() user: AuthUser, @Body() dto: MessageRefDto): Promise<MessageChangeReply> {
    return this.changes.delete(user, dto);
  }

  @Post('read')
  @ApiOperation({
    summary: 'Mark read up to read_seq (only forward, never past last_seq). Returns the exact unread count.',
  })
  @ApiEnvelope(ReadReply, ENDPOINT_ERRORS.messages.read)
  read(@CurrentUser() user: AuthUser, @Body() dto: MarkReadDto): Promise<ReadReply> {
    return this.reads.markRead(user, dto);
  }

  @Get('search')
  @RequiresCapability('search')
  @ApiOperation({ summary: 'Search one conversation by keyword, newest first, paged by before_mid (or next_cursor).' })
  @ApiEnvelope(SearchPageReply, ENDPOINT_ERRORS.messages.search)
  search(@CurrentUser() user: AuthUser, @Query() query: SearchMessagesQueryDto): Promise<SearchPageReply> {
    return this.windows.search(user, query);
  }
}
