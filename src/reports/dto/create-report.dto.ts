import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt } from 'class-validator';
import { GROUP_ID_RULES, USER_ID_RULES } from '../../common/validation/field-rules';
import { REQUEST_ID } from '../../common/validation/patterns';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText, TextRules } from '../../common/validation/text-field.decorator';
import { IsTextList } from '../../common/validation/text-list.decorator';
import type { GroupReportRequest, ReportFieldsRequest, UserReportRequest } from '../../contract/requests';

export const REASON_CODES = [1, 2, 3, 4, 5, 6, 7, 8] as const;
export const MAX_REPORT_MESSAGE_IDS = 20;

/** Every item is a positive decimal string of at most 19 digits, without leading zeros. */
const MESSAGE_ID: TextRules = {
  min: 1,
  max: 19,
  pattern: {
    regex: /^[1-9][0-9]{0,18}$/,
    description: 'a positive decimal string of at most 19 digits (no sign, no leading zero)',
  },
};

/** Fields shared by group and user reports (spec 4.3, 4.4). */
export class ReportFieldsDto implements ReportFieldsRequest {
  @ApiProperty({
    description:
      '1–64 characters of letters, digits, ".", "_", ":", "-". Unchanged on retry; one key, one report. One holding a JWT or a service secret is refused (1004).',
    example: 'rpt-2f1c',
  })
  @Required()
  @IsText({ min: 1, max: 64, pattern: { regex: REQUEST_ID, description: 'letters, digits, ".", "_", ":" or "-"' } })
  request_id: string;

  @ApiProperty({
    enum: REASON_CODES,
    description:
      '1 harassment, 2 inappropriate content, 3 fraud, 4 infringement, 5 impersonation, 6 other violation, 7 chat content violation, 8 profile violation.',
  })
  @Required()
  @IsInt({ message: 'reason_code must be a JSON integer' })
  @IsIn(REASON_CODES, { message: 'reason_code must be an integer from 1 to 8' })
  reason_code: (typeof REASON_CODES)[number];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'At most 1000 characters; absent or null is stored as "". Stored scrubbed of tokens and secrets (replaced by [REDACTED]).',
  })
  @Optional()
  @IsText({ min: 0, max: 1000 })
  description?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description:
      'At most 256 characters; required when message_ids is non-empty. Must be accessible to the reporter (1201).',
  })
  @Optional()
  @IsText({ min: 0, max: 256 })
  conversation_id?: string | null;

  @ApiPropertyOptional({
    type: [String],
    description:
      'Evidence: at most 20 unique message IDs (positive decimal strings, ≤19 digits), each a visible message of conversation_id (1207).',
    default: [],
  })
  @Optional()
  @IsTextList({ min: 0, max: MAX_REPORT_MESSAGE_IDS, item: MESSAGE_ID, unique: true, of: 'strings' })
  message_ids?: string[] | null;
}

export class GroupReportDto extends ReportFieldsDto implements GroupReportRequest {
  @ApiProperty({
    description: 'Public group ID: 1–32 characters of letters, digits, ".", "_", "-".',
    example: 'team-1',
  })
  @Required()
  @IsText(GROUP_ID_RULES)
  group_id: string;
}

export class UserReportDto extends ReportFieldsDto implements UserReportRequest {
  @ApiProperty({
    description: 'External user ID of the reported user: 1–64 characters, no control characters.',
    example: 'u_10087',
  })
  @Required()
  @IsText({ ...USER_ID_RULES, noEdgeWhitespace: false })
  user_id: string;
}
