import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi';
import { Page } from '../common/pagination/cursor';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { AuthUser, CurrentUser } from '../im-token/auth-user';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { FriendUserDto } from './dto/friend-user.dto';
import { FriendReply } from './friend.mapper';
import { EventReplyDoc, friendsCodes, FriendPageDoc } from './friends.openapi';
import { EventReply, FriendsService } from './friends.service';

@ApiTags('friends')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@RequiresCapability('friends')
@Controller('app/sdk/friends')
export class FriendsController {
  constructor(private readonly friends: FriendsService) {}

  @Get()
  @ApiOperation({ summary: 'The caller\'s friends with their direct conversation IDs; most recent friendship first, 50 per page.' })
  @ApiEnvelope(FriendPageDoc, friendsCodes())
  list(@CurrentUser() user: AuthUser, @Query() query: ListQueryDto): Promise<Page<FriendReply>> {
    return this.friends.list(user, query);
  }

  @Post('delete')
  @ApiOperation({ summary: 'End a friendship for both users. The conversation history stays. Not a friend (or no such user) 1204.' })
  @ApiEnvelope(EventReplyDoc, friendsCodes(1204))
  remove(@CurrentUser() user: AuthUser, @Body() dto: FriendUserDto): Promise<EventReply> {
    return this.friends.remove(user, dto);
  }
}
