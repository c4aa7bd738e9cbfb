import { ApiProperty } from '@nestjs/swagger';
import { USER_ID_RULES } from '../../common/validation/field-rules';
import { Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import type { UserProfileQuery, UsernameLookupQuery } from '../../contract/requests';

/** GET /app/sdk/users/profile */
export class UserProfileQueryDto implements UserProfileQuery {
  @ApiProperty({ description: 'External user ID.', example: 'u_10087' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;
}

/** GET /app/sdk/users/lookup */
export class UsernameLookupQueryDto implements UsernameLookupQuery {
  @ApiProperty({ description: 'Exact (case-sensitive) username, 1–64 characters.', example: 'alice' })
  @Required()
  @IsText({ min: 1, max: 64, noControl: true, noEdgeWhitespace: true })
  username: string;
}
