import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { GROUP_ID_RULES, USER_ID_RULES } from '../common/validation/field-rules';
import { Absentable, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { IsTextList } from '../common/validation/text-list.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { MAX_DISABLE_REASON, MAX_DISABLE_SECONDS, MIN_DISABLE_SECONDS, UserStatusChange } from './admin-disable-terms';
import { AdminUserActionDto } from './admin.dto';

const DECIMAL_ID: TextRules = {
  min: 1,
  max: 19,
  pattern: { regex: /^[1-9][0-9]*$/, description: 'a decimal ID (no leading zero)' },
};
/** The internal conversation ID, or a group's `group_<group_id>` (the same for every member). */
const CONVERSATION_REF: TextRules = {
  min: 1,
  max: 40,
  pattern: {
    regex: /^(?:[1-9][0-9]{0,18}|group_[A-Za-z0-9._-]{1,32})$/,
    description: 'an internal conversation ID (decimal) or group_<group_id>',
  },
};
/** Edge whitespace is trimmed by the service; the length is checked again after trimming. */
const REASON: TextRules = { min: 1, max: MAX_DISABLE_REASON, noControl: true };
const MAX_MUTE_SECONDS = 30 * 24 * 3600;
export const MAX_ADMIN_MESSAGE_IDS = 50;

/** POST /app/admin/users/status */
export class SetUserStatusDto extends AdminUserActionDto {
  @ApiProperty() @Required() @IsBoolean({ message: 'disabled must be a JSON boolean' }) disabled: boolean;

  @ApiPropertyOptional({
    description: `Disable only: JSON integer ${MIN_DISABLE_SECONDS}–${MAX_DISABLE_SECONDS} (a year); absent: for good.`,
    example: 86400,
  })
  @Absentable()
  @IsInt({ message: 'duration_seconds must be a JSON integer' })
  @Min(MIN_DISABLE_SECONDS, {
    message: `duration_seconds must be an integer from ${MIN_DISABLE_SECONDS} to ${MAX_DISABLE_SECONDS}`,
  })
  @Max(MAX_DISABLE_SECONDS, {
    message: `duration_seconds must be an integer from ${MIN_DISABLE_SECONDS} to ${MAX_DISABLE_SECONDS}`,
  })
  duration_seconds?: number;

  @ApiPropertyOptional({
    description: `Disable only: 1–${MAX_DISABLE_REASON} characters (trimmed), no control characters; the user's client sees it as the 1003 error's msg.`,
    example: 'Spam in group chats',
  })
  @Absentable()
  @IsText(REASON)
  reason?: string;
}

/**
 * POST /app/admin/users/status's body as the service takes it. The direct endpoints take no
 * report_id: an action is linked to a report only through POST /app/admin/reports/act, which
 * checks that the action fits the report and moves it on.
 */
export function statusChangeOf(dto: SetUserStatusDto): UserStatusChange {
  return { disabled: dto.disabled, durationSeconds: dto.duration_seconds, reason: dto.reason };
}

@RefuseUnknownFields()
export class AdminMemberRefDto {
  @ApiProperty({ example: 'team-1' }) @Required() @IsText(GROUP_ID_RULES) group_id: string;
  @ApiProperty({ example: 'u_10087' }) @Required() @IsText(USER_ID_RULES) user_id: string;
}

/** POST /app/admin/groups/members/mute */
export class AdminMuteMemberDto extends AdminMemberRefDto {
  @ApiProperty({ description: `JSON integer 0–${MAX_MUTE_SECONDS} (30 days); 0 unmutes.`, example: 3600 })
  @Required()
  @IsInt({ message: 'duration_seconds must be a JSON integer' })
  @Min(0, { message: `duration_seconds must be an integer from 0 to ${MAX_MUTE_SECONDS}` })
  @Max(MAX_MUTE_SECONDS, { message: `duration_seconds must be an integer from 0 to ${MAX_MUTE_SECONDS}` })
  duration_seconds: number;
}

/** POST /app/admin/messages/recall and /delete */
@RefuseUnknownFields()
export class AdminMessagesDto {
  @ApiProperty({ description: CONVERSATION_REF.pattern!.description, example: '17' })
  @Required()
  @IsText(CONVERSATION_REF)
  conversation_id: string;

  @ApiProperty({ type: [String], description: `1–${MAX_ADMIN_MESSAGE_IDS} message IDs (decimal strings), no repeats.` })
  @Required()
  @IsTextList({
    min: 1,
    max: MAX_ADMIN_MESSAGE_IDS,
    item: DECIMAL_ID,
    unique: true,
    of: 'strings',
    tooFew: 'must not be empty',
  })
  message_ids: string[];
}
