import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { CONVERSATION_ID_RULES, MID_RULES } from './message-fields';

export class SearchMessagesQueryDto extends ListQueryDto {
  @ApiProperty({ example: 'group_team-1' })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;

  @ApiProperty({
    description: '1–100 characters, matched case-insensitively in text messages and custom descriptions.',
    example: 'lunch',
  })
  @Required()
  @IsText({ min: 1, max: 100, noControl: true })
  keyword: string;

  @ApiPropertyOptional({
    description: 'Only messages older than this mid (the next page); or pass next_cursor as cursor.',
  })
  @Optional()
  @IsText(MID_RULES)
  before_mid?: string;
}
