import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsText } from '../../common/validation/text-field.decorator';
import { Optional, Required } from '../../common/validation/presence.decorators';
import {
  AVATAR_RULES,
  NICKNAME_RULES,
  SIGNATURE_RULES,
  USERNAME_RULES,
  USER_ID_RULES,
} from '../../common/validation/field-rules';

/**
 * The public profile a host backend synchronises (spec 4.1). An optional field that is
 * absent (or null) leaves the stored value unchanged.
 */
export class ProfileFieldsDto {
  @ApiProperty({
    description:
      'External user ID from the host: 1–64 characters, no leading/trailing whitespace, no control characters. Never changes.',
    example: 'u_10086',
  })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiProperty({
    description: '1–80 characters, no leading/trailing whitespace, no control characters.',
    example: 'Alice',
  })
  @Required()
  @IsText(NICKNAME_RULES)
  nickname: string;

  @ApiPropertyOptional({
    description:
      'Public account name, unique across users: 1–64 characters; "" removes it. A name taken by another user is refused with 1004.',
    example: 'alice',
  })
  @Optional()
  @IsText(USERNAME_RULES)
  username?: string;

  @ApiPropertyOptional({
    description: 'http(s) URL, at most 1024 characters; "" selects the server\'s default avatar.',
    example: 'https://cdn.example.com/a.png',
  })
  @Optional()
  @IsText(AVATAR_RULES)
  avatar?: string;

  @ApiPropertyOptional({ description: 'At most 255 characters, no control characters.', example: 'Hello' })
  @Optional()
  @IsText(SIGNATURE_RULES)
  signature?: string;
}
