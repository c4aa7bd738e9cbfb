import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsObject, ValidateNested } from 'class-validator';
import { Optional, Required, RequiredNullable } from '../../common/validation/presence.decorators';
import { IsText, TextRules } from '../../common/validation/text-field.decorator';
import type {
  PushPlatform,
  PushPreviewLevel,
  PushProviderId,
  PushRegisterRequest,
  PushSettingsRequest,
  PushUnregisterRequest,
  QuietHours,
} from '../../contract/push';
import { PREVIEW_LEVELS } from '../../config/push-config';
import { PUSH_PROVIDERS } from '../providers/push-provider';

export const PUSH_PLATFORMS: readonly PushPlatform[] = ['ios', 'android', 'harmony'];

const DEVICE_ID_RULES: TextRules = {
  min: 1,
  max: 64,
  pattern: { regex: /^[A-Za-z0-9._:-]+$/, description: 'letters, digits, ".", "_", ":" or "-"' },
};
/** Provider tokens: FCM's carry ":" "-" "_", Xiaomi's "/" "+" "="; the provider's own check (APNs hex) is the service's. */
const TOKEN_RULES: TextRules = {
  min: 8,
  max: 512,
  pattern: {
    regex: /^[A-Za-z0-9:_\-.+/=]+$/,
    description: 'a provider device token (letters, digits and : _ - . + / =)',
  },
};
const PACKAGE_RULES: TextRules = {
  min: 1,
  max: 255,
  pattern: { regex: /^[A-Za-z0-9._-]+$/, description: 'a bundle ID or package name' },
};
const APP_VERSION_RULES: TextRules = { min: 1, max: 64, noControl: true, noEdgeWhitespace: true };
const LOCALE_RULES: TextRules = {
  min: 2,
  max: 35,
  pattern: { regex: /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$/, description: 'a BCP 47 language tag such as "zh-CN"' },
};
const TIME_RULES: TextRules = {
  min: 5,
  max: 5,
  pattern: { regex: /^([01][0-9]|2[0-3]):[0-5][0-9]$/, description: 'a 24-hour time "HH:MM"' },
};
const ZONE_RULES: TextRules = {
  min: 1,
  max: 64,
  pattern: { regex: /^[A-Za-z0-9_+/-]+$/, description: 'an IANA time zone such as "Asia/Shanghai"' },
};

/** POST /app/sdk/push/register */
export class PushRegisterDto implements PushRegisterRequest {
  @ApiProperty({
    description: "The installation's stable ID: 1–64 letters, digits, '.', '_', ':' or '-' (the one calls use).",
    example: 'ios-1c9e',
    pattern: DEVICE_ID_RULES.pattern!.regex.source,
    maxLength: 64,
  })
  @Required()
  @IsText(DEVICE_ID_RULES)
  device_id: string;

  @ApiProperty({
    enum: PUSH_PROVIDERS,
    description:
      "The provider of the push rule that matched the device (the token reply's `push` object); `apns_voip` is a PushKit token, for calls.",
  })
  @Required()
  @IsIn(PUSH_PROVIDERS, { message: `provider must be one of ${PUSH_PROVIDERS.join(', ')}` })
  provider: PushProviderId;

  @ApiProperty({
    description: "The provider's device token: 8–512 letters, digits and : _ - . + / = (APNs: hexadecimal).",
    pattern: TOKEN_RULES.pattern!.regex.source,
    maxLength: 512,
  })
  @Required()
  @IsText(TOKEN_RULES)
  token: string;

  @ApiProperty({ enum: PUSH_PLATFORMS })
  @Required()
  @IsIn(PUSH_PLATFORMS, { message: `platform must be one of ${PUSH_PLATFORMS.join(', ')}` })
  platform: PushPlatform;

  @ApiPropertyOptional({ description: 'Bundle ID (iOS) or package name.', example: 'com.example.chat' })
  @Optional()
  @IsText(PACKAGE_RULES)
  package_name?: string;

  @ApiPropertyOptional({ example: '3.2.1' })
  @Optional()
  @IsText(APP_VERSION_RULES)
  app_version?: string;

  @ApiPropertyOptional({
    description: 'The language of generic texts ("New message"); zh* gets Chinese.',
    example: 'zh-CN',
  })
  @Optional()
  @IsText(LOCALE_RULES)
  locale?: string;
}

/** POST /app/sdk/push/unregister */
export class PushUnregisterDto implements PushUnregisterRequest {
  @ApiProperty({ example: 'ios-1c9e', pattern: DEVICE_ID_RULES.pattern!.regex.source, maxLength: 64 })
  @Required()
  @IsText(DEVICE_ID_RULES)
  device_id: string;

  @ApiPropertyOptional({ enum: PUSH_PROVIDERS, description: 'One provider; absent: every registration of the device.' })
  @Optional()
  @IsIn(PUSH_PROVIDERS, { message: `provider must be one of ${PUSH_PROVIDERS.join(', ')}` })
  provider?: PushProviderId;
}

export class QuietHoursDto implements QuietHours {
  @ApiProperty({ example: '22:00' })
  @Required()
  @IsText(TIME_RULES)
  start: string;

  @ApiProperty({ example: '07:30', description: 'Earlier than start: the window crosses midnight; equal: all day.' })
  @Required()
  @IsText(TIME_RULES)
  end: string;

  @ApiProperty({ example: 'Asia/Shanghai' })
  @Required()
  @IsText(ZONE_RULES)
  timezone: string;
}

/** POST /app/sdk/push/settings: both fields, replacing what was set. Unknown fields are ignored, as on every SDK endpoint. */
export class PushSettingsDto implements PushSettingsRequest {
  @ApiProperty({
    enum: PREVIEW_LEVELS,
    nullable: true,
    description: 'null: the service default (PUSH_PREVIEW_DEFAULT).',
  })
  @RequiredNullable()
  @IsIn(PREVIEW_LEVELS, { message: `preview must be one of ${PREVIEW_LEVELS.join(', ')} or null` })
  preview: PushPreviewLevel | null;

  @ApiProperty({ type: QuietHoursDto, nullable: true, description: 'null: no quiet hours.' })
  @RequiredNullable()
  @IsObject({ message: 'quiet_hours must be an object or null' })
  @ValidateNested()
  @Type(() => QuietHoursDto)
  quiet_hours: QuietHoursDto | null;
}
