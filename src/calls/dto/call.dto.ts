import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { TextRules, IsText } from '../../common/validation/text-field.decorator';
import { AreUserIds } from '../../common/validation/user-ids.decorator';
import { CONVERSATION_ID_RULES } from '../../messages/dto/message-fields';
import { CALL_MEDIA, CallMedia } from '../call.entity';
import type { AcceptCallRequest, CallRefRequest, RejectCallRequest, StartCallRequest } from '../../contract/requests';

const KEY_RULES: TextRules = {
  min: 1,
  max: 64,
  pattern: { regex: /^[A-Za-z0-9._:-]+$/, description: 'letters, digits, ".", "_", ":" or "-"' },
};
const CALL_ID_RULES: TextRules = {
  min: 1,
  max: 36,
  pattern: { regex: /^[0-9a-f-]+$/, description: 'a call ID as returned (UUID)' },
};
/** Largest group call (participants, caller included); the operator's CALL_MAX_PARTICIPANTS may be lower. */
export const MAX_CALL_INVITEES = 300;

/** POST /app/sdk/calls/start */
export class StartCallDto implements StartCallRequest {
  @ApiProperty({ example: 'friend_dV8xMDA4Ng' })
  @Required()
  @IsText(CONVERSATION_ID_RULES)
  conversation_id: string;

  @ApiProperty({ enum: CALL_MEDIA })
  @Required()
  @IsIn(CALL_MEDIA, { message: 'media must be audio or video' })
  media: CallMedia;

  @ApiProperty({
    description: "The caller's idempotency key: a retry with the same key answers the same call.",
    example: 'c-1700000000-1',
  })
  @Required()
  @IsText(KEY_RULES)
  client_call_id: string;

  @ApiProperty({
    description: 'The calling device (any stable ID the SDK keeps per installation).',
    example: 'web-7f3a',
  })
  @Required()
  @IsText(KEY_RULES)
  device_id: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Group calls: the members to ring (default: every other current member). Refused in one-to-one calls.',
  })
  @Optional()
  @AreUserIds(1, MAX_CALL_INVITEES)
  user_ids?: string[];
}

/** Names one call. */
export class CallRefDto implements CallRefRequest {
  @ApiProperty({ description: 'The call ID.' })
  @Required()
  @IsText(CALL_ID_RULES)
  call_id: string;
}

/** POST /app/sdk/calls/accept */
export class AcceptCallDto extends CallRefDto implements AcceptCallRequest {
  @ApiProperty({
    description: 'The accepting device: another device of the same user that accepts later gets 1217.',
    example: 'ios-1c9e',
  })
  @Required()
  @IsText(KEY_RULES)
  device_id: string;
}

/** POST /app/sdk/calls/reject */
export class RejectCallDto extends CallRefDto implements RejectCallRequest {
  @ApiProperty({ enum: ['decline', 'busy'] })
  @Required()
  @IsIn(['decline', 'busy'], { message: 'reason must be decline or busy' })
  reason: 'decline' | 'busy';
}
