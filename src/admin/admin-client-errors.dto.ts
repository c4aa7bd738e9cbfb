import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { Optional, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { UNIX_MS } from './admin.dto';

/** The spec's values (4.2). */
export const ERROR_PLATFORMS = ['android', 'ios', 'harmony'] as const;
export const ERROR_SEVERITIES = ['normal', 'serious', 'fatal'] as const;
export const GROUP_SORTS = ['last_seen', 'occurrences', 'users'] as const;

const TIME_DOC = {
  description: 'Unix ms (decimal string); from is inclusive, to exclusive.',
  example: '1732200000000',
};
/** As the SDK must send it (spec 4.2). */
const ERROR_CODE: TextRules = {
  min: 1,
  max: 128,
  pattern: {
    regex: /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/,
    description: 'lowercase letters and digits in segments separated by single ".", "_" or "-"',
  },
};

export class ClientErrorGroupsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: ERROR_PLATFORMS })
  @Optional()
  @IsIn(ERROR_PLATFORMS, { message: 'platform must be one of android, ios, harmony' })
  platform?: (typeof ERROR_PLATFORMS)[number];

  @ApiPropertyOptional({
    description: 'build_id exactly as reported (at most 128 characters); "" for the groups without a build.',
  })
  @Optional()
  @IsText({ min: 0, max: 128 })
  build_id?: string;

  @ApiPropertyOptional({ example: 'net.timeout' }) @Optional() @IsText(ERROR_CODE) error_code?: string;

  @ApiPropertyOptional({ enum: ERROR_SEVERITIES, description: "The group's severity: the most severe reported." })
  @Optional()
  @IsIn(ERROR_SEVERITIES, { message: 'severity must be one of normal, serious, fatal' })
  severity?: (typeof ERROR_SEVERITIES)[number];

  @ApiPropertyOptional({ enum: GROUP_SORTS, description: 'Descending; last_seen by default.' })
  @Optional()
  @IsIn(GROUP_SORTS, { message: 'sort must be one of last_seen, occurrences, users' })
  sort?: (typeof GROUP_SORTS)[number];

  @ApiPropertyOptional({ ...TIME_DOC, description: 'Groups last seen at or after this time (Unix ms).' })
  @Optional()
  @IsText(UNIX_MS)
  from?: string;

  @ApiPropertyOptional({ ...TIME_DOC, description: 'Groups first seen before this time (Unix ms).' })
  @Optional()
  @IsText(UNIX_MS)
  to?: string;
}

/** One group: error code, platform and build (absent or "" for no build). */
export class ClientErrorGroupRefDto {
  @ApiProperty({ example: 'net.timeout' }) @Required() @IsText(ERROR_CODE) error_code: string;

  @ApiProperty({ enum: ERROR_PLATFORMS })
  @Required()
  @IsIn(ERROR_PLATFORMS, { message: 'platform must be one of android, ios, harmony' })
  platform: (typeof ERROR_PLATFORMS)[number];

  @ApiPropertyOptional({ description: 'build_id as reported; absent or "" for the group without a build.' })
  @Optional()
  @IsText({ min: 0, max: 128 })
  build_id?: string;
}

export class ClientErrorOccurrencesQueryDto extends ClientErrorGroupRefDto {
  @ApiPropertyOptional({
    description: 'next_cursor of the previous page, unchanged. Bound to the account, endpoint and group.',
  })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;
}
