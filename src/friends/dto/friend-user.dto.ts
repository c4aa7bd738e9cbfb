import { ApiProperty } from '@nestjs/swagger';
import { USER_ID_RULES } from '../../common/validation/field-rules';
import { Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import type { FriendUserRequest } from '../../contract/requests';

/** Names the other user of a friendship or block by external user ID. */
export class FriendUserDto implements FriendUserRequest {
  @ApiProperty({ description: 'External user ID.', example: 'u_10087' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;
}
