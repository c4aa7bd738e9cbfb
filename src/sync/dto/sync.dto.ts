import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { CONVERSATION_ID_RULES } from '../../messages/dto/message-fields';

/** POST /app/sdk/sync: no cursor for the first 50 conversations, then conversations.next_cursor. */
export class SyncDto extends ListQueryDto {}

class ConversationRefDto {
  @ApiProperty({ example: 'group_team-1' })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;
}

export class PinConversationDto extends ConversationRefDto {
  @ApiProperty({ description: 'JSON boolean.' })
  @Required()
  @IsBoolean({ message: 'pinned must be a JSON boolean (true or false)' })
  pinned: boolean;
}

export class MuteConversationDto extends ConversationRefDto {
  @ApiProperty({
    description: 'JSON boolean. Muted conversations still count unread, but not in unread.total_unmuted (the badge).',
  })
  @Required()
  @IsBoolean({ message: 'muted must be a JSON boolean (true or false)' })
  muted: boolean;
}

export class HideConversationDto extends ConversationRefDto {
  @ApiProperty({ description: 'JSON boolean. A hidden conversation leaves the home list until its next message.' })
  @Required()
  @IsBoolean({ message: 'hidden must be a JSON boolean (true or false)' })
  hidden: boolean;
}
