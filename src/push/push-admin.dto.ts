import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { USER_ID_RULES } from '../common/validation/field-rules';
import { Optional, Required } from '../common/validation/presence.decorators';
import { IsText } from '../common/validation/text-field.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import type { PushTestRequest } from '../contract/push';

/** POST /app/admin/push/test */
@RefuseUnknownFields()
export class PushTestDto implements PushTestRequest {
  @ApiProperty({ description: 'External user ID: every registered device of the user gets the notification.' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiPropertyOptional({ description: 'The text shown; default "Test notification".', maxLength: 120 })
  @Optional()
  @IsText({ min: 1, max: 120, noControl: true, noEdgeWhitespace: true })
  text?: string;
}
