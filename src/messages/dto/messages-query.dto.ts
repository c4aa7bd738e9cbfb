import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { CONVERSATION_ID_RULES, MID_RULES, SEQ_RULES } from './message-fields';

/**
 * GET /app/sdk/messages: conversation_id plus exactly one mode — tail calibration (the trio),
 * history (before_seq or after_seq) or locate (around_mid). page, offset and limit are refused
 * (pagination-params middleware).
 */
export class MessagesQueryDto {
  @ApiProperty({ example: 'friend_YWxpY2U' })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;

  @ApiPropertyOptional({
    description: "Calibration: last_seq of the client's latest window (send with the other two).",
  })
  @Optional()
  @IsText(SEQ_RULES)
  known_last_seq?: string;

  @ApiPropertyOptional({ description: 'Calibration: updated_at (content version, Unix ms) from the same window read.' })
  @Optional()
  @IsText(SEQ_RULES)
  known_updated_at?: string;

  @ApiPropertyOptional({ description: 'Calibration: deletion_revision from the same window read.' })
  @Optional()
  @IsText(SEQ_RULES)
  known_deletion_revision?: string;

  @ApiPropertyOptional({ description: 'History: up to 50 messages with a lower sequence.' })
  @Optional()
  @IsText(MID_RULES)
  before_seq?: string;

  @ApiPropertyOptional({ description: 'History: up to 50 messages with a higher sequence.' })
  @Optional()
  @IsText(SEQ_RULES)
  after_seq?: string;

  @ApiPropertyOptional({ description: 'Locate: the window around this message (from search).' })
  @Optional()
  @IsText(MID_RULES)
  around_mid?: string;
}
