import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  AVATAR_RULES,
  NICKNAME_RULES,
  SIGNATURE_RULES,
  USERNAME_RULES,
  USER_ID_RULES,
} from '../../common/validation/field-rules';
import { Optional } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import type { UpdateProfileRequest } from '../../contract/requests';

/**
 * POST /app/sdk/users/me/update (updateCurrentUser of the mobile SDKs, spec 5 rule 7): the
 * caller's own public profile, same rules as the host sync. Absent or null keeps a value.
 */
export class UpdateProfileDto implements UpdateProfileRequest {
  @ApiPropertyOptional({
    description:
      "The caller's own user_id may be sent (SDKs send the whole user); any other value is 1004: the user ID never changes.",
  })
  @Optional()
  @IsText(USER_ID_RULES)
  user_id?: string | null;

  @ApiPropertyOptional({
    description: '1–80 characters, no leading/trailing whitespace, no control characters.',
    example: 'Alice',
  })
  @Optional()
  @IsText(NICKNAME_RULES)
  nickname?: string | null;

  @ApiPropertyOptional({
    description:
      'Public account name, unique across users: 1–64 characters; "" removes it. Taken by another user: 1004.',
    example: 'alice',
  })
  @Optional()
  @IsText(USERNAME_RULES)
  username?: string | null;

  @ApiPropertyOptional({
    description: 'http(s) URL, at most 1024 characters; "" (or the default avatar URL) selects the default avatar.',
  })
  @Optional()
  @IsText(AVATAR_RULES)
  avatar?: string | null;

  @ApiPropertyOptional({ description: 'At most 255 characters, no control characters.' })
  @Optional()
  @IsText(SIGNATURE_RULES)
  signature?: string | null;
}
