import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { USER_ID_RULES } from '../common/validation/field-rules';
import { Optional, Required } from '../common/validation/presence.decorators';
import { IsText } from '../common/validation/text-field.decorator';
import type { ExportUserRequest } from '../contract/server-users';

export class ExportUserDto implements ExportUserRequest {
  @ApiProperty({ description: 'External user ID of the user whose data to export.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiPropertyOptional({
    description:
      'next_cursor of the previous page, unchanged (bound to the user); absent for the first page, which carries every section.',
  })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;
}
