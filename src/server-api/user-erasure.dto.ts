import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { USER_ID_RULES } from '../common/validation/field-rules';
import { REQUEST_ID } from '../common/validation/patterns';
import { Optional, Required } from '../common/validation/presence.decorators';
import { IsText } from '../common/validation/text-field.decorator';
import type { EraseUserRequest } from '../contract/server-users';

export class EraseUserDto implements EraseUserRequest {
  @ApiProperty({ description: 'External user ID of the user to erase.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiPropertyOptional({
    description:
      'Idempotency key, 1–64 characters of letters, digits, ".", "_", ":", "-": a repeat answers the first reply; reused for another request: 1004.',
    example: 'erase-2f1c',
  })
  @Optional()
  @IsText({ min: 1, max: 64, pattern: { regex: REQUEST_ID, description: 'letters, digits, ".", "_", ":" or "-"' } })
  request_id?: string;
}
