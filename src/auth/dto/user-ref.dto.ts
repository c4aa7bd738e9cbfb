import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsText } from '../../common/validation/text-field.decorator';
import { Required } from '../../common/validation/presence.decorators';
import { USER_ID_RULES } from '../../common/validation/field-rules';

/** Names one user by external ID (host-backend user administration). */
export class UserRefDto {
  @ApiProperty({ description: 'External user ID.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;
}

export class SetUserDisabledDto extends UserRefDto {
  @ApiProperty({
    description:
      'true disables the user: every token of theirs fails with 1003 and no new token is issued; false enables them again.',
  })
  @Required()
  @IsBoolean({ message: 'disabled must be a JSON boolean (true or false)' })
  disabled: boolean;
}
