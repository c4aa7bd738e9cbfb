import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, ValidateIf } from 'class-validator';
import { IsText } from '../../common/validation/text-field.decorator';
import { SentTogether } from '../../common/validation/presence.decorators';
import { ProfileFieldsDto } from './profile-fields.dto';

const DEVICE_FIELDS = ['platform', 'manufacturer', 'package_name'] as const;
export const PUSH_PLATFORMS = ['android', 'ios', 'harmony'] as const;
// All three are checked as soon as any one is sent, so a missing partner is named.
const anyDeviceField = (dto: object): boolean =>
  DEVICE_FIELDS.some((field) => (dto as Record<string, unknown>)[field] != null);

/** POST /app/sdk/token (spec 4.1). */
export class IssueTokenDto extends ProfileFieldsDto {
  @ApiPropertyOptional({
    enum: PUSH_PLATFORMS,
    description:
      'Native push matching; platform, manufacturer and package_name are sent together or not at all. Web omits them.',
  })
  @SentTogether(DEVICE_FIELDS)
  @ValidateIf(anyDeviceField)
  @IsIn(PUSH_PLATFORMS, { message: 'platform must be one of android, ios, harmony' })
  platform?: string;

  @ApiPropertyOptional({
    description: 'Device manufacturer, 1–64 characters (matched case-insensitively).',
    example: 'Xiaomi',
  })
  @SentTogether(DEVICE_FIELDS)
  @ValidateIf(anyDeviceField)
  @IsText({ min: 1, max: 64, noControl: true, noEdgeWhitespace: true })
  manufacturer?: string;

  @ApiPropertyOptional({
    description: 'Application package / bundle name, 1–255 characters of letters, digits, ".", "_" or "-".',
    example: 'com.example.chat',
  })
  @SentTogether(DEVICE_FIELDS)
  @ValidateIf(anyDeviceField)
  @IsText({
    min: 1,
    max: 255,
    pattern: { regex: /^[A-Za-z0-9._-]+$/, description: 'letters, digits, ".", "_" or "-"' },
  })
  package_name?: string;
}
