import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { USER_ID_RULES } from '../common/validation/field-rules';
import { Absentable, Optional, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { IsTextList } from '../common/validation/text-list.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { ReportRefDto } from './admin.dto';
import { MAX_DISABLE_REASON, MAX_DISABLE_SECONDS, MIN_DISABLE_SECONDS } from './admin-disable-terms';
import { MAX_MUTE_SECONDS } from '../groups/dto/group.dto';
import { MAX_REPORT_MESSAGE_IDS } from '../reports/dto/create-report.dto';

/** One range for both actions that read duration_seconds; the service checks each action's own. */
const DURATION_RANGE = `duration_seconds must be an integer from 1 to ${MAX_DISABLE_SECONDS} (disable_user: at least ${MIN_DISABLE_SECONDS}; mute_member: at most ${MAX_MUTE_SECONDS})`;

const DECIMAL: TextRules = { min: 1, max: 19, pattern: { regex: /^[0-9]+$/, description: 'a decimal number' } };
const MESSAGE_ID: TextRules = {
  min: 1,
  max: 19,
  pattern: { regex: /^[1-9][0-9]*$/, description: 'a message ID (decimal, no leading zero)' },
};
/**
 * The users.disabled_reason column: the user's client shows it as the 1003 error's msg. Edge
 * whitespace is trimmed by the service (as POST /app/admin/users/status), which checks the length again.
 */
const REASON: TextRules = { min: 1, max: MAX_DISABLE_REASON, noControl: true };
const NOTE: TextRules = { min: 0, max: 1000, pattern: { regex: /^(?:[^\p{Cc}]|[\t\n\r])*$/u, description: 'text' } };

export const REPORT_ACTIONS = [
  'disable_user',
  'mute_member',
  'recall_messages',
  'delete_messages',
  'disable_group',
  'dismiss_group',
  'close',
] as const;
export type ReportAction = (typeof REPORT_ACTIONS)[number];

/** POST /app/admin/reports/act: one action on what the report names. */
@RefuseUnknownFields()
export class ReportActionDto extends ReportRefDto {
  @ApiProperty({
    enum: REPORT_ACTIONS,
    description:
      "disable_user (the reported user, or user_id), mute_member (that user in the report's group), recall_messages / delete_messages (the reported messages, or message_ids of them), disable_group / dismiss_group (the report's group), close (with a note).",
  })
  @Required()
  @IsIn(REPORT_ACTIONS, { message: `action must be one of ${REPORT_ACTIONS.join(', ')}` })
  action: ReportAction;

  @ApiPropertyOptional({
    description:
      "disable_user, mute_member: the user to act on, when not the reported user: the sender of one of the report's messages. Defaults to the reported user (a user report).",
    example: 'u_10087',
  })
  @Absentable()
  @IsText(USER_ID_RULES)
  user_id?: string;

  @ApiPropertyOptional({
    description: `disable_user: JSON integer ${MIN_DISABLE_SECONDS}–${MAX_DISABLE_SECONDS} (a year); absent means for good; refused while the user is disabled for good (enable first). mute_member: required, 1–${MAX_MUTE_SECONDS} (30 days).`,
    example: 86400,
  })
  @Absentable()
  @IsInt({ message: 'duration_seconds must be a JSON integer' })
  @Min(1, { message: DURATION_RANGE })
  @Max(MAX_DISABLE_SECONDS, { message: DURATION_RANGE })
  duration_seconds?: number;

  @ApiPropertyOptional({
    description: `disable_user (required): 1–${MAX_DISABLE_REASON} characters after trimming edge whitespace, no control characters; shown to the user's client as the 1003 error's msg.`,
    example: 'Spam in group chats',
  })
  @Absentable()
  @IsText(REASON)
  reason?: string;

  @ApiPropertyOptional({
    type: [String],
    description: "recall_messages, delete_messages: a subset of the report's message_ids; absent means all of them.",
  })
  @Absentable()
  @IsTextList({
    min: 1,
    max: MAX_REPORT_MESSAGE_IDS,
    item: MESSAGE_ID,
    unique: true,
    of: 'strings',
    tooFew: 'must not be empty (leave it out for all the reported messages)',
  })
  message_ids?: string[];

  @ApiPropertyOptional({
    description:
      "close only (refused with any other action): a moderator note, kept on the closing report.transitioned audit row in the report's history.",
  })
  @Absentable()
  @IsText(NOTE)
  note?: string;
}

/** GET /app/admin/reports/context */
export class ReportContextQueryDto extends ReportRefDto {
  @ApiProperty({ description: "One of the report's message_ids.", example: '1024' })
  @Required()
  @IsText(DECIMAL)
  message_id: string;
}

export const REPORT_TARGET_STATUSES = ['open', 'all'] as const;
export const REPORT_TARGET_SORTS = ['count', 'latest'] as const;

/** GET /app/admin/reports/targets */
export class ReportTargetsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    enum: REPORT_TARGET_STATUSES,
    description: 'open (default): pending reports only; all: every report.',
  })
  @Optional()
  @IsIn(REPORT_TARGET_STATUSES, { message: 'status must be open or all' })
  status?: (typeof REPORT_TARGET_STATUSES)[number];

  @ApiPropertyOptional({
    enum: REPORT_TARGET_SORTS,
    description: 'count (default): most reports first; latest: most recent report first.',
  })
  @Optional()
  @IsIn(REPORT_TARGET_SORTS, { message: 'sort must be count or latest' })
  sort?: (typeof REPORT_TARGET_SORTS)[number];
}
