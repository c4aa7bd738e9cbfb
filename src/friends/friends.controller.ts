import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { FriendUserDto } from './dto/friend-user.dto';
import { EventReply, FriendPageReply } from './friends.reply';
import { FriendsService } from './friends.service';

@ApiTags('friends')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@RequiresCapability('friends')
@Controller('app/sdk/friends')
export class FriendsController {
  constructor(private readonly friends: FriendsService) {}

  @Get()
  @ApiOperation({
    summary: "The caller's friends with their direct conversation IDs; most recent friendship first, 50 per page.",
  })
  @ApiEnvelope(FriendPageReply, ENDPOINT_ERRORS.friends.list)
  list(@CurrentUser() user: AuthUser, @Query() query: ListQueryDto): Promise<FriendPageReply> {
    return this.friends.list(user, query);
  }

  @Post('delete')
  @ApiOperation({
    summary: 'End a friendship for both users. The conversation history stays. Not a friend (or no such user) 1204.',
  })
  @ApiEnvelope(EventReply, ENDPOINT_ERRORS.friends.remove)
  remove(@CurrentUser() user: AuthUser, @Body() dto: FriendUserDto): Promise<EventReply> {
    return this.friends.remove(user, dto);
  }
}
