import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { ListQueryDto } from '../common/pagination/list-query.dto';
import { GROUP_ID_RULES, USER_ID_RULES } from '../common/validation/field-rules';
import { Absentable, Optional, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { REASON_CODES } from '../reports/dto/create-report.dto';
import { ADMIN_ROLES, AdminRole } from './admin-roles';

const USERNAME: TextRules = { min: 1, max: 32, noControl: true, noEdgeWhitespace: true };
const PASSWORD: TextRules = { min: 1, max: 1024 };
const DECIMAL: TextRules = { min: 1, max: 19, pattern: { regex: /^[0-9]+$/, description: 'a decimal number' } };
/** A time in Unix ms: at most 15 digits, so it stays an exact number (2^53 has 16). */
export const UNIX_MS: TextRules = { min: 1, max: 15, pattern: { regex: /^[0-9]+$/, description: 'a time in Unix ms' } };
const NOTE: TextRules = { min: 0, max: 1000, pattern: { regex: /^(?:[^\p{Cc}]|[\t\n\r])*$/u, description: 'text' } };
const SHORT: TextRules = { min: 1, max: 128, noControl: true, noEdgeWhitespace: true };
const TIME_DOC = {
  description: 'Unix ms (decimal string); from is inclusive, to exclusive.',
  example: '1732200000000',
};

const TOTP_CODE: TextRules = { min: 6, max: 6, pattern: { regex: /^[0-9]{6}$/, description: 'six digits' } };

@RefuseUnknownFields()
export class AdminLoginDto {
  @ApiProperty({ example: 'admin' }) @Required() @IsText(USERNAME) username: string;
  @ApiProperty() @Required() @IsText(PASSWORD) password: string;
  @ApiPropertyOptional({
    example: '123456',
    description:
      'The authenticator code, for an account with two-factor sign-in on; missing or wrong, the login fails like a wrong password.',
  })
  @Optional()
  @IsText(TOTP_CODE)
  totp_code?: string;
}

@RefuseUnknownFields()
export class TotpCodeDto {
  @ApiProperty({ example: '123456' }) @Required() @IsText(TOTP_CODE) code: string;
}

export class TotpDisableDto extends TotpCodeDto {
  @ApiProperty() @Required() @IsText(PASSWORD) password: string;
}

@RefuseUnknownFields()
export class ChangePasswordDto {
  @ApiProperty() @Required() @IsText(PASSWORD) current_password: string;
  @ApiProperty({ description: 'At least 12 characters.' }) @Required() @IsText(PASSWORD) new_password: string;
}

@RefuseUnknownFields()
export class CreateAdminDto {
  @ApiProperty({ description: '3-32 of a-z 0-9 . _ -', example: 'alice' })
  @Required()
  @IsText(USERNAME)
  username: string;
  @ApiProperty({ description: 'At least 12 characters.' }) @Required() @IsText(PASSWORD) password: string;
  @ApiProperty({ enum: ADMIN_ROLES })
  @Required()
  @IsIn(ADMIN_ROLES, { message: 'role must be one of viewer, moderator, owner' })
  role: AdminRole;
}

@RefuseUnknownFields()
export class UpdateAdminDto {
  @ApiProperty({ example: 'alice' }) @Required() @IsText(USERNAME) username: string;
  @ApiPropertyOptional({ enum: ADMIN_ROLES })
  @Optional()
  @IsIn(ADMIN_ROLES, { message: 'role must be one of viewer, moderator, owner' })
  role?: AdminRole;
  @ApiPropertyOptional({ description: 'Disabling ends every session of the account.' })
  @Optional()
  @IsBoolean({ message: 'disabled must be a JSON boolean' })
  disabled?: boolean;
  @ApiPropertyOptional({ description: 'A new password (at least 12 characters); ends every session of the account.' })
  @Optional()
  @IsText(PASSWORD)
  password?: string;
  @ApiPropertyOptional({ description: 'true turns the account’s two-factor sign-in off (a lost authenticator).' })
  @Optional()
  @IsBoolean({ message: 'reset_totp must be a JSON boolean' })
  reset_totp?: boolean;
}

@RefuseUnknownFields()
export class AdminRefDto {
  @ApiProperty({ example: 'alice' }) @Required() @IsText(USERNAME) username: string;
}

export class AuditQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ description: 'Username of the acting administrator; "(host)" for the host backend.' })
  @Optional()
  @IsText(USERNAME)
  admin?: string;
  @ApiPropertyOptional({ example: 'user.disabled' }) @Optional() @IsText(SHORT) action?: string;
  @ApiPropertyOptional({ enum: ['admin', 'report', 'user', 'group', 'settings', 'conversation'] })
  @Optional()
  @IsText(SHORT)
  target_type?: string;
  @ApiPropertyOptional() @Optional() @IsText(SHORT) target_id?: string;
  @ApiPropertyOptional(TIME_DOC) @Optional() @IsText(UNIX_MS) from?: string;
  @ApiPropertyOptional(TIME_DOC) @Optional() @IsText(UNIX_MS) to?: string;
}

export const REPORT_STATUSES = ['pending', 'reviewed', 'closed'] as const;
/** The spec's reason codes (4.3) as query strings. */
const REASON_FILTERS = REASON_CODES.map(String);

export class ReportsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ enum: REPORT_STATUSES })
  @Optional()
  @IsIn(REPORT_STATUSES, { message: 'status must be one of pending, reviewed, closed' })
  status?: (typeof REPORT_STATUSES)[number];
  @ApiPropertyOptional({ enum: ['user', 'group'] })
  @Optional()
  @IsIn(['user', 'group'], { message: 'target_type must be user or group' })
  target_type?: 'user' | 'group';
  @ApiPropertyOptional({ enum: REASON_FILTERS, description: 'reason_code (spec 4.3), as a decimal string: 1–8.' })
  @Optional()
  @IsIn(REASON_FILTERS, { message: 'reason must be a reason code from 1 to 8 (spec 4.3)' })
  reason?: string;
  @ApiPropertyOptional(TIME_DOC) @Optional() @IsText(UNIX_MS) from?: string;
  @ApiPropertyOptional(TIME_DOC) @Optional() @IsText(UNIX_MS) to?: string;
}

export class ReportRefDto {
  @ApiProperty({ description: 'Report ID (decimal string).', example: '12' })
  @Required()
  @IsText(DECIMAL)
  report_id: string;
}

@RefuseUnknownFields()
export class ReportTransitionDto extends ReportRefDto {
  @ApiProperty({ enum: ['reviewed', 'closed'], description: 'pending → reviewed → closed, or pending → closed.' })
  @Required()
  @IsIn(['reviewed', 'closed'], { message: 'status must be reviewed or closed' })
  status: 'reviewed' | 'closed';
  @ApiPropertyOptional({ description: 'Moderator note, kept in the audit log.' })
  @Absentable()
  @IsText(NOTE)
  note?: string;
}

export class ClientErrorRefDto {
  @ApiProperty({ description: 'The merge key of the group.' })
  @Required()
  @IsText({ min: 64, max: 64, pattern: { regex: /^[0-9a-f]{64}$/, description: 'a merge key (64 hex)' } })
  merge_key: string;
}

export class AdminUserRefDto {
  @ApiProperty({ example: 'u_10086' }) @Required() @IsText(USER_ID_RULES) user_id: string;
}

/** A write on one user (the detail's query, AdminUserRefDto, ignores unknown keys like every query). */
@RefuseUnknownFields()
export class AdminUserActionDto extends AdminUserRefDto {}

export class SetDisabledUserDto extends AdminUserActionDto {
  @ApiProperty() @Required() @IsBoolean({ message: 'disabled must be a JSON boolean' }) disabled: boolean;
}

@RefuseUnknownFields()
export class AdminGroupRefDto {
  @ApiProperty({ example: 'team-1' }) @Required() @IsText(GROUP_ID_RULES) group_id: string;
}

export class GroupMembersQueryDto extends ListQueryDto {
  @ApiProperty({ example: 'team-1' }) @Required() @IsText(GROUP_ID_RULES) group_id: string;
}

export class SetDisabledGroupDto extends AdminGroupRefDto {
  @ApiProperty() @Required() @IsBoolean({ message: 'disabled must be a JSON boolean' }) disabled: boolean;
}
