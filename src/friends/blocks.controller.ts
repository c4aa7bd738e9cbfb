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
import { BlockPageReply, BlockStateReply } from './friends.reply';
import { BlocksService } from './blocks.service';

@ApiTags('friends')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@RequiresCapability('friends')
@Controller('app/sdk/friends')
export class BlocksController {
  constructor(private readonly blocks: BlocksService) {}

  @Post('block')
  @ApiOperation({
    summary:
      'Block a user (idempotent; event_id null when already blocked). Only the caller is told. A friendship stays; friend requests either way are refused (1211).',
  })
  @ApiEnvelope(BlockStateReply, ENDPOINT_ERRORS.blocks.block)
  block(@CurrentUser() user: AuthUser, @Body() dto: FriendUserDto): Promise<BlockStateReply> {
    return this.blocks.block(user, dto);
  }

  @Post('unblock')
  @ApiOperation({ summary: 'Unblock a user (idempotent; event_id null when not blocked).' })
  @ApiEnvelope(BlockStateReply, ENDPOINT_ERRORS.blocks.unblock)
  unblock(@CurrentUser() user: AuthUser, @Body() dto: FriendUserDto): Promise<BlockStateReply> {
    return this.blocks.unblock(user, dto);
  }

  @Get('blocks')
  @ApiOperation({ summary: 'Users the caller blocks; most recent first, 50 per page.' })
  @ApiEnvelope(BlockPageReply, ENDPOINT_ERRORS.blocks.list)
  list(@CurrentUser() user: AuthUser, @Query() query: ListQueryDto): Promise<BlockPageReply> {
    return this.blocks.list(user, query);
  }
}
