import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { FriendRequestRefDto } from './dto/friend-request-ref.dto';
import { ListFriendRequestsQueryDto } from './dto/list-friend-requests.dto';
import { SendFriendRequestDto } from './dto/send-friend-request.dto';
import { FriendRequestsService } from './friend-requests.service';
import {
  AcceptFriendRequestReply,
  FriendRequestPageReply,
  RejectFriendRequestReply,
  SendFriendRequestReply,
} from './friends.reply';

@ApiTags('friends')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@RequiresCapability('friends')
@Controller('app/sdk/friends/requests')
export class FriendRequestsController {
  constructor(private readonly requests: FriendRequestsService) {}

  @Post()
  @UseGuards(RateLimitGuard)
  @RateLimited('friend_request')
  @ApiOperation({
    summary:
      'Send a friend request. Idempotent per request_id (a retry with the same user_id and message answers the stored request with event_id null; other content is 1004). ' +
      'A request already pending to the same user is answered instead of a new one. If that user has a request pending to the caller, both are accepted and `friend` is set. ' +
      'Unknown or disabled user 1204, yourself 1004, a block either way 1211, already friends 1206.',
  })
  @ApiEnvelope(SendFriendRequestReply, ENDPOINT_ERRORS.friendRequests.send)
  send(@CurrentUser() user: AuthUser, @Body() dto: SendFriendRequestDto): Promise<SendFriendRequestReply> {
    return this.requests.send(user, dto);
  }

  @Get()
  @ApiOperation({
    summary:
      'Friend requests sent to (incoming) or by (outgoing) the caller, every status unless `status` is given; newest first, 50 per page.',
  })
  @ApiEnvelope(FriendRequestPageReply, ENDPOINT_ERRORS.friendRequests.list)
  list(@CurrentUser() user: AuthUser, @Query() query: ListFriendRequestsQueryDto): Promise<FriendRequestPageReply> {
    return this.requests.list(user, query);
  }

  @Post('accept')
  @ApiOperation({
    summary:
      'Accept a pending request addressed to the caller: both become friends and get their direct conversation. Not addressed to the caller or no longer pending 1205; ' +
      'already friends 1206 (the request is then marked accepted); a block either way 1211.',
  })
  @ApiEnvelope(AcceptFriendRequestReply, ENDPOINT_ERRORS.friendRequests.accept)
  accept(@CurrentUser() user: AuthUser, @Body() dto: FriendRequestRefDto): Promise<AcceptFriendRequestReply> {
    return this.requests.accept(user, dto);
  }

  @Post('reject')
  @ApiOperation({
    summary: 'Reject a pending request addressed to the caller. Not addressed to the caller or no longer pending 1205.',
  })
  @ApiEnvelope(RejectFriendRequestReply, ENDPOINT_ERRORS.friendRequests.reject)
  reject(@CurrentUser() user: AuthUser, @Body() dto: FriendRequestRefDto): Promise<RejectFriendRequestReply> {
    return this.requests.reject(user, dto);
  }
}
