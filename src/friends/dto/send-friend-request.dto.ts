import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { USER_ID_RULES } from '../../common/validation/field-rules';
import { REQUEST_ID } from '../../common/validation/patterns';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import type { SendFriendRequestRequest } from '../../contract/requests';

/** POST /app/sdk/friends/requests */
export class SendFriendRequestDto implements SendFriendRequestRequest {
  @ApiProperty({ description: 'External user ID of the user to befriend.', example: 'u_10087' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiProperty({
    description:
      'Idempotency key of the sender: 1–64 characters of letters, digits, ".", "_", ":", "-". A retry repeats user_id and message.',
    example: 'fr-2f1c',
  })
  @Required()
  @IsText({ min: 1, max: 64, pattern: { regex: REQUEST_ID, description: 'letters, digits, ".", "_", ":" or "-"' } })
  request_id: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Greeting shown to the receiver: at most 255 characters, no control characters; absent or null is "".',
  })
  @Optional()
  @IsText({ min: 0, max: 255, noControl: true })
  message?: string | null;
}
