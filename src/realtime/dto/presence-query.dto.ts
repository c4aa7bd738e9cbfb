import { ApiProperty } from '@nestjs/swagger';
import type { PresenceQueryRequest } from '../../contract/requests';
import { Required } from '../../common/validation/presence.decorators';
import { AreUserIds } from '../../common/validation/user-ids.decorator';

/** At most one registry round per request (its scripts take 200 users at a time). */
export const MAX_PRESENCE_QUERY = 100;

/** POST /app/sdk/presence/query */
export class PresenceQueryDto implements PresenceQueryRequest {
  @ApiProperty({ type: [String], description: `1–${MAX_PRESENCE_QUERY} distinct external user IDs.` })
  @Required()
  @AreUserIds(1, MAX_PRESENCE_QUERY)
  user_ids: string[];
}
