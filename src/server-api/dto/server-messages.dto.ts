import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import type {
  ServerListConversationsRequest,
  ServerListMessagesRequest,
  ServerNoticeRequest,
  ServerSendMessageRequest,
  ServerWriteRequest,
} from '../../contract/server-api';
import { GROUP_ID_RULES, USER_ID_RULES } from '../../common/validation/field-rules';
import { IsJsonObject } from '../../common/validation/object-rules.decorator';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { AreUserIds } from '../../common/validation/user-ids.decorator';
import { HOST_SEND_TYPES } from '../../messages/host-messaging.service';
import { CLIENT_MESSAGE_ID_RULES, SEQ_RULES } from '../../messages/dto/message-fields';

export const MAX_LIST_COUNT = 200;
export const DEFAULT_LIST_COUNT = 50;

/** Every server API write. */
export class ServerWriteDto implements ServerWriteRequest {
  @ApiProperty({
    description:
      "The host's idempotency key, 1–64 of [A-Za-z0-9._:-]. A repeat with the same body answers the stored reply; the same key with another body is 1004.",
    example: 'welcome-42',
  })
  @Required()
  @IsText(CLIENT_MESSAGE_ID_RULES)
  request_id: string;
}

export class ServerSendMessageDto extends ServerWriteDto implements ServerSendMessageRequest {
  @ApiProperty({ description: 'External ID of the user the message is sent as.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  sender_id: string;

  @ApiPropertyOptional({ description: 'One-to-one: the other user (exactly one of to_user_id, group_id).' })
  @Optional()
  @IsText(USER_ID_RULES)
  to_user_id?: string;

  @ApiPropertyOptional({
    description: 'A group the sender is a current member of (exactly one of to_user_id, group_id).',
  })
  @Optional()
  @IsText(GROUP_ID_RULES)
  group_id?: string;

  @ApiProperty({ enum: HOST_SEND_TYPES, description: 'Types without an upload; a notice has its own endpoint.' })
  @Required()
  @IsIn(HOST_SEND_TYPES, { message: 'type must be text or custom (notices: /app/server/messages/notice)' })
  type: (typeof HOST_SEND_TYPES)[number];

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'As an SDK send: text {text (1–5000 characters)}; custom {data (object, ≤ 8192 characters as JSON), description? (≤ 200)}.',
  })
  @Required()
  @IsJsonObject(1)
  content: Record<string, unknown>;
}

export class ServerNoticeDto extends ServerWriteDto implements ServerNoticeRequest {
  @ApiPropertyOptional({ description: 'The group (exactly one of group_id, user_ids).' })
  @Optional()
  @IsText(GROUP_ID_RULES)
  group_id?: string;

  @ApiPropertyOptional({ type: [String], description: 'Two distinct users: their one-to-one conversation.' })
  @Optional()
  @AreUserIds(2, 2)
  user_ids?: string[];

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: '{text (1–5000 characters), data? (object, ≤ 8192 characters as JSON)}.',
    example: { text: 'The group moved to the new project space.' },
  })
  @Required()
  @IsJsonObject(1)
  content: { text: string; data?: Record<string, unknown> };
}

export class ServerListMessagesDto implements ServerListMessagesRequest {
  @ApiPropertyOptional({ description: 'The group (exactly one of group_id, user_ids).' })
  @Optional()
  @IsText(GROUP_ID_RULES)
  group_id?: string;

  @ApiPropertyOptional({ type: [String], description: 'Two distinct users: their one-to-one conversation.' })
  @Optional()
  @AreUserIds(2, 2)
  user_ids?: string[];

  @ApiPropertyOptional({ description: 'Messages with a higher sequence (decimal string); "0" by default.' })
  @Optional()
  @IsText(SEQ_RULES)
  after_seq?: string;

  @ApiPropertyOptional({ description: `How many, 1–${MAX_LIST_COUNT} (default ${DEFAULT_LIST_COUNT}).` })
  @Optional()
  @IsInt({ message: 'count must be a JSON integer' })
  @Min(1, { message: `count must be an integer from 1 to ${MAX_LIST_COUNT}` })
  @Max(MAX_LIST_COUNT, { message: `count must be an integer from 1 to ${MAX_LIST_COUNT}` })
  count?: number;
}

export class ServerListConversationsDto implements ServerListConversationsRequest {
  @ApiProperty({ description: 'External user ID.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page, unchanged.' })
  @Optional()
  @IsText({ min: 1, max: 1024, noControl: true })
  cursor?: string;
}
