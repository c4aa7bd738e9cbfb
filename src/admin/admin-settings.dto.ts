import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsIn, IsInt, Max, Min, ValidateNested } from 'class-validator';
import { IsJsonObject } from '../common/validation/object-rules.decorator';
import { Optional, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { RESETTABLE_SETTINGS, ResettableSetting, SETTING_LIMITS } from '../settings/runtime-settings';

const KEYWORD: TextRules = { min: 1, max: SETTING_LIMITS.keywordLength, noControl: true, noEdgeWhitespace: true };
const PUSH_MATCH: TextRules = { min: 1, max: 128, noControl: true, noEdgeWhitespace: true };
const APP_ID: TextRules = {
  min: 1,
  max: 20,
  pattern: { regex: /^[1-9][0-9]*$/, description: 'a positive decimal number' },
};
const CALLBACK_KEY: TextRules = {
  min: SETTING_LIMITS.callbackKeyMinBytes,
  max: SETTING_LIMITS.callbackKeyMaxBytes,
  pattern: { regex: /^[\x21-\x7e]+$/, description: 'printable ASCII without spaces' },
};

const boolean = (name: string) => IsBoolean({ message: `${name} must be a JSON boolean` });

/** Capabilities to open (true) or close (false); the ones not sent keep their value. */
@RefuseUnknownFields('capability')
export class CapabilitiesPatchDto {
  @ApiPropertyOptional() @Optional() @boolean('friends') friends?: boolean;
  @ApiPropertyOptional() @Optional() @boolean('groups') groups?: boolean;
  @ApiPropertyOptional() @Optional() @boolean('calls') calls?: boolean;
  @ApiPropertyOptional() @Optional() @boolean('search') search?: boolean;
  @ApiPropertyOptional() @Optional() @boolean('media') media?: boolean;
}

export class RateLimitRuleDto {
  @ApiProperty({ minimum: 1, maximum: SETTING_LIMITS.rateLimit, example: 20 })
  @Required()
  @IsInt({ message: 'limit must be a JSON integer' })
  @Min(1, { message: `limit must be from 1 to ${SETTING_LIMITS.rateLimit}` })
  @Max(SETTING_LIMITS.rateLimit, { message: `limit must be from 1 to ${SETTING_LIMITS.rateLimit}` })
  limit: number;

  @ApiProperty({ minimum: SETTING_LIMITS.windowMsMin, maximum: SETTING_LIMITS.windowMsMax, example: 1000 })
  @Required()
  @IsInt({ message: 'window_ms must be a JSON integer' })
  @Min(SETTING_LIMITS.windowMsMin, { message: `window_ms must be from 100 to ${SETTING_LIMITS.windowMsMax}` })
  @Max(SETTING_LIMITS.windowMsMax, { message: `window_ms must be from 100 to ${SETTING_LIMITS.windowMsMax}` })
  window_ms: number;
}

/** Per-user limits behind code 1005; the ones not sent keep their value. */
@RefuseUnknownFields('rate limit')
export class RateLimitsPatchDto {
  @ApiPropertyOptional({ type: RateLimitRuleDto })
  @Optional()
  @ValidateNested()
  @Type(() => RateLimitRuleDto)
  send?: RateLimitRuleDto;

  @ApiPropertyOptional({ type: RateLimitRuleDto })
  @Optional()
  @ValidateNested()
  @Type(() => RateLimitRuleDto)
  friend_request?: RateLimitRuleDto;

  @ApiPropertyOptional({ type: RateLimitRuleDto })
  @Optional()
  @ValidateNested()
  @Type(() => RateLimitRuleDto)
  report?: RateLimitRuleDto;

  @ApiPropertyOptional({ type: RateLimitRuleDto })
  @Optional()
  @ValidateNested()
  @Type(() => RateLimitRuleDto)
  client_error?: RateLimitRuleDto;

  @ApiPropertyOptional({ type: RateLimitRuleDto })
  @Optional()
  @ValidateNested()
  @Type(() => RateLimitRuleDto)
  media_upload?: RateLimitRuleDto;

  @ApiPropertyOptional({ type: RateLimitRuleDto })
  @Optional()
  @ValidateNested()
  @Type(() => RateLimitRuleDto)
  server_api?: RateLimitRuleDto;
}

/** The PUSH_RULES format: a token request matching platform, manufacturer and package name gets `config`. */
export class PushRuleDto {
  @ApiProperty({ enum: ['android', 'ios', 'harmony', '*'] })
  @Required()
  @IsIn(['android', 'ios', 'harmony', '*'], { message: 'platform must be android, ios, harmony or "*"' })
  platform: string;

  @ApiProperty({ example: '*', description: '"*" matches any manufacturer (case-insensitive otherwise).' })
  @Required()
  @IsText(PUSH_MATCH)
  manufacturer: string;

  @ApiProperty({ example: 'com.example.app', description: '"*" matches any package.' })
  @Required()
  @IsText(PUSH_MATCH)
  package_name: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: `Merged into the token reply's push object; at most ${SETTING_LIMITS.pushConfigBytes} bytes as JSON.`,
  })
  @Required()
  @IsJsonObject()
  config: Record<string, unknown>;
}

/** Any subset of the settings; a field not sent keeps its value. */
@RefuseUnknownFields()
export class UpdateSettingsDto {
  @ApiPropertyOptional({ description: 'false answers 1002 to every IM token and ends live sockets.' })
  @Optional()
  @boolean('sdk_enabled')
  sdk_enabled?: boolean;

  @ApiPropertyOptional({ type: CapabilitiesPatchDto })
  @Optional()
  @IsJsonObject(1)
  @ValidateNested()
  @Type(() => CapabilitiesPatchDto)
  capabilities?: CapabilitiesPatchDto;

  @ApiPropertyOptional({
    type: [String],
    maxItems: SETTING_LIMITS.blockedKeywords,
    description: 'Replaces the whole list; matched case-insensitively as substrings of text messages (1203).',
  })
  @Optional()
  @IsArray({ message: 'blocked_keywords must be a JSON array of strings' })
  @ArrayMaxSize(SETTING_LIMITS.blockedKeywords, {
    message: `blocked_keywords must have at most ${SETTING_LIMITS.blockedKeywords} entries`,
  })
  @IsText(KEYWORD, { each: true })
  blocked_keywords?: string[];

  @ApiPropertyOptional({ minimum: 0, maximum: SETTING_LIMITS.recallWindowSeconds })
  @Optional()
  @IsInt({ message: 'recall_window_seconds must be a JSON integer' })
  @Min(0, { message: `recall_window_seconds must be from 0 to ${SETTING_LIMITS.recallWindowSeconds}` })
  @Max(SETTING_LIMITS.recallWindowSeconds, {
    message: `recall_window_seconds must be from 0 to ${SETTING_LIMITS.recallWindowSeconds}`,
  })
  recall_window_seconds?: number;

  @ApiPropertyOptional({ type: RateLimitsPatchDto })
  @Optional()
  @IsJsonObject(1)
  @ValidateNested()
  @Type(() => RateLimitsPatchDto)
  rate_limits?: RateLimitsPatchDto;

  @ApiPropertyOptional({ type: [PushRuleDto], maxItems: SETTING_LIMITS.pushRules, description: 'Replaces every rule.' })
  @Optional()
  @IsArray({ message: 'push_rules must be a JSON array of rules' })
  @ArrayMaxSize(SETTING_LIMITS.pushRules, { message: `push_rules must have at most ${SETTING_LIMITS.pushRules} rules` })
  @ValidateNested({ each: true })
  @Type(() => PushRuleDto)
  push_rules?: PushRuleDto[];

  @ApiPropertyOptional({
    example: '1400000000',
    description: 'The TRTC application ID; RTC_SECRET_KEY must be the key of this application.',
  })
  @Optional()
  @IsText(APP_ID)
  rtc_sdk_app_id?: string;
}

@RefuseUnknownFields()
export class ResetSettingsDto {
  @ApiProperty({ enum: RESETTABLE_SETTINGS, isArray: true, description: 'Back to the environment value.' })
  @Required()
  @IsArray({ message: 'keys must be a JSON array' })
  @ArrayMinSize(1, { message: 'keys must name at least one setting' })
  @ArrayMaxSize(RESETTABLE_SETTINGS.length, { message: `keys must have at most ${RESETTABLE_SETTINGS.length} entries` })
  @IsIn(RESETTABLE_SETTINGS, { each: true, message: `keys must be among ${RESETTABLE_SETTINGS.join(', ')}` })
  keys: ResettableSetting[];
}

@RefuseUnknownFields()
export class StageCallbackKeyDto {
  @ApiProperty({
    description: `The new room-callback key (${SETTING_LIMITS.callbackKeyMinBytes}-${SETTING_LIMITS.callbackKeyMaxBytes} printable ASCII characters). Both keys verify until promote or cancel.`,
  })
  @Required()
  @IsText(CALLBACK_KEY)
  key: string;
}
