import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Optional, Required } from '../../common/validation/presence.decorators';
import type { FriendRequestsQuery } from '../../contract/requests';

export const REQUEST_DIRECTIONS = ['incoming', 'outgoing'] as const;
export const REQUEST_STATUSES = ['pending', 'accepted', 'rejected'] as const;

/** GET /app/sdk/friends/requests */
export class ListFriendRequestsQueryDto extends ListQueryDto implements FriendRequestsQuery {
  @ApiProperty({ enum: REQUEST_DIRECTIONS, description: 'incoming: sent to the caller; outgoing: sent by the caller.' })
  @Required()
  @IsIn(REQUEST_DIRECTIONS, { message: 'direction must be one of incoming, outgoing' })
  direction: (typeof REQUEST_DIRECTIONS)[number];

  @ApiPropertyOptional({
    enum: REQUEST_STATUSES,
    description: 'Only requests in this status; all statuses when absent.',
  })
  @Optional()
  @IsIn(REQUEST_STATUSES, { message: 'status must be one of pending, accepted, rejected' })
  status?: (typeof REQUEST_STATUSES)[number];
}
