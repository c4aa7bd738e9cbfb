import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsIn } from 'class-validator';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { AVATAR_RULES, GROUP_ID_RULES, NICKNAME_RULES, USER_ID_RULES } from '../common/validation/field-rules';
import { Absentable, Optional, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { GROUP_SORTS, GroupSort } from '../groups/group-browse';
import { USER_SORTS, UserSort } from '../users/user-browse';

const SEARCH: TextRules = { min: 1, max: 80, noControl: true };
/** Query strings stay strings: a filter is the text 'true' or 'false', nothing converted. */
const TRUE_FALSE: TextRules = {
  min: 4,
  max: 5,
  pattern: { regex: /^(?:true|false)$/, description: "'true' or 'false'" },
};
/** Only 'true' filters: leaving the field out lists everyone. */
const TrueOnly = (field: string): PropertyDecorator =>
  IsIn(['true'], { message: `${field} must be true (leave it out for all)` });
/** An export is one stream of every matching row (up to its cap): a cursor would be silently ignored. */
const NoCursor = (): PropertyDecorator => Equals(undefined, { message: 'cursor the export takes no cursor' });

/** The Users list's search, order and filters (the list and its CSV export). */
export class UsersFilterDto {
  @ApiPropertyOptional({ description: 'Exact user_id or username, or the start of a nickname.' })
  @Optional()
  @IsText(SEARCH)
  q?: string;

  @ApiPropertyOptional({
    enum: USER_SORTS,
    description:
      'newest (default): creation, newest first; last_active: most recently active first, never-active users last; name: nickname (binary collation), then ID.',
  })
  @Optional()
  @IsIn(USER_SORTS, { message: `sort must be one of ${USER_SORTS.join(', ')}` })
  sort?: UserSort;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'Disabled now (a timed disable that has ended counts as enabled).',
  })
  @Optional()
  @IsText(TRUE_FALSE)
  disabled?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'Connected now on any instance (the presence registry). Pages may then hold fewer than 50 items; see `partial`.',
  })
  @Optional()
  @IsText(TRUE_FALSE)
  online?: string;

  @ApiPropertyOptional({ enum: ['true'], description: 'Only users with an open (pending) report against them.' })
  @Optional()
  @TrueOnly('open_reports')
  open_reports?: string;
}

/** GET /app/admin/users/export: the list's filters, no cursor. */
export class UsersExportQueryDto extends UsersFilterDto {
  @Absentable()
  @NoCursor()
  cursor?: never;
}

export class UsersBrowseQueryDto extends UsersFilterDto implements ListQueryDto {
  @ApiPropertyOptional({ description: 'next_cursor of the previous page, unchanged; bound to the filters and sort.' })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;
}

/** The Groups list's search, order and filters (the list and its CSV export). */
export class GroupsFilterDto {
  @ApiPropertyOptional({ description: 'Exact group_id, or the start of a name.' })
  @Optional()
  @IsText(SEARCH)
  q?: string;

  @ApiPropertyOptional({
    enum: GROUP_SORTS,
    description:
      "newest (default): creation, newest first; last_active: the group conversation's latest message, most recent first, never-messaged groups last (newest first); name: name (binary collation), then ID. With last_active, a filter may answer partial pages (see `partial`).",
  })
  @Optional()
  @IsIn(GROUP_SORTS, { message: `sort must be one of ${GROUP_SORTS.join(', ')}` })
  sort?: GroupSort;

  @ApiPropertyOptional({ enum: ['true', 'false'] }) @Optional() @IsText(TRUE_FALSE) disabled?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @Optional() @IsText(TRUE_FALSE) dismissed?: string;

  @ApiPropertyOptional({ enum: ['true'], description: 'Only groups with an open (pending) report against them.' })
  @Optional()
  @TrueOnly('open_reports')
  open_reports?: string;
}

/** GET /app/admin/groups/export: the list's filters, no cursor. */
export class GroupsExportQueryDto extends GroupsFilterDto {
  @Absentable()
  @NoCursor()
  cursor?: never;
}

export class GroupsBrowseQueryDto extends GroupsFilterDto implements ListQueryDto {
  @ApiPropertyOptional({ description: 'next_cursor of the previous page, unchanged; bound to the filters and sort.' })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;
}

/** A group's page (a query: unknown keys are ignored like every query's). */
export class GroupOverviewQueryDto {
  @ApiProperty({ example: 'team-1' }) @Required() @IsText(GROUP_ID_RULES) group_id: string;
}

/** POST /app/admin/users/profile: the host-owned fields, only where the bundled host app runs. */
@RefuseUnknownFields()
export class AdminEditProfileDto {
  @ApiProperty({ example: 'u_10086' }) @Required() @IsText(USER_ID_RULES) user_id: string;
  @ApiPropertyOptional({ description: '1–80 characters, no edge whitespace or control characters.' })
  @Absentable()
  @IsText(NICKNAME_RULES)
  nickname?: string;
  @ApiPropertyOptional({ description: 'http(s) URL, at most 1024 characters; "" selects the default avatar.' })
  @Absentable()
  @IsText(AVATAR_RULES)
  avatar?: string;
}
