import { ApiProperty } from '@nestjs/swagger';
import { Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { CONVERSATION_ID_RULES, MID_RULES, SEQ_RULES } from './message-fields';

export class MessageRefDto {
  @ApiProperty({ example: 'group_team-1' })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;

  @ApiProperty({ description: 'The message ID (decimal string).', example: '1024' })
  @Required()
  @IsText(MID_RULES)
  mid: string;
}

export class MarkReadDto {
  @ApiProperty({ example: 'group_team-1' })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;

  @ApiProperty({
    description: 'The highest continuous sequence the user has seen. Only moves forward; never past last_seq (1004).',
    example: '42',
  })
  @Required()
  @IsText(SEQ_RULES)
  read_seq: string;
}
