import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsJsonObject } from '../../common/validation/object-rules.decorator';
import { Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { MESSAGE_TYPES } from '../message-content';
import { CLIENT_MESSAGE_ID_RULES, CONVERSATION_ID_RULES } from './message-fields';

export class SendMessageDto {
  @ApiProperty({
    description: 'As returned by the server: friend_<base64url peer user_id> or group_<group_id>.',
    example: 'friend_YWxpY2U',
  })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;

  @ApiProperty({
    description:
      'Idempotency key per sender, 1–64 of [A-Za-z0-9._:-]. A retry with the same content returns the original message; other content is refused (1004).',
    example: 'c-8f2a',
  })
  @Required()
  @IsText(CLIENT_MESSAGE_ID_RULES)
  client_message_id: string;

  @ApiProperty({ enum: MESSAGE_TYPES })
  @Required()
  @IsIn(MESSAGE_TYPES, { message: 'type must be one of text, image, file, custom' })
  type: (typeof MESSAGE_TYPES)[number];

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'text: {text (1–5000 characters)}; image: {media_id, width?, height?}; file: {media_id}; custom: {data (object, ≤ 8192 characters as JSON), description? (≤ 200)}. Unknown fields are dropped.',
  })
  @Required()
  @IsJsonObject(1)
  content: Record<string, unknown>;
}
