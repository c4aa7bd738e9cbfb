import { ApiProperty } from '@nestjs/swagger';
import { RateLimitName } from '../config/messaging-config';
import type { SettingsSnapshot } from '../settings/runtime-settings.service';
import { RESETTABLE_SETTINGS, ResettableSetting, RuntimeSettings, keyFingerprint } from '../settings/runtime-settings';
import { CapabilitiesReply } from '../sync/sync.reply';
import { PushRuleDto, RateLimitRuleDto } from './admin-settings.dto';

export class RateLimitsReply implements Record<RateLimitName, RateLimitRuleDto> {
  @ApiProperty({ type: RateLimitRuleDto }) send: RateLimitRuleDto;
  @ApiProperty({ type: RateLimitRuleDto }) friend_request: RateLimitRuleDto;
  @ApiProperty({ type: RateLimitRuleDto }) report: RateLimitRuleDto;
  @ApiProperty({ type: RateLimitRuleDto }) client_error: RateLimitRuleDto;
  @ApiProperty({ type: RateLimitRuleDto }) media_upload: RateLimitRuleDto;
  @ApiProperty({ type: RateLimitRuleDto, description: 'Per host, over the server API (/app/server).' })
  server_api: RateLimitRuleDto;
}

export class CallbackKeyReply {
  @ApiProperty({ description: 'First 12 hex digits of the key’s SHA-256: the key itself is never shown.' })
  fingerprint: string;
}

export class CurrentCallbackKeyReply extends CallbackKeyReply {
  @ApiProperty({
    enum: ['environment', 'console'],
    description: 'RTC_CALLBACK_SECRET, or a key promoted in the console.',
  })
  source: 'environment' | 'console';
}

export class RtcSettingsReply {
  @ApiProperty({ example: '1400000000' }) sdk_app_id: string;
  @ApiProperty({ type: CurrentCallbackKeyReply }) callback_key: CurrentCallbackKeyReply;
  @ApiProperty({
    type: CallbackKeyReply,
    nullable: true,
    description: 'The staged key of a rotation: it verifies room callbacks alongside the current one until promoted.',
  })
  next_callback_key: CallbackKeyReply | null;
}

export class RuntimeSettingsReply {
  @ApiProperty() sdk_enabled: boolean;
  @ApiProperty({ type: CapabilitiesReply }) capabilities: CapabilitiesReply;
  @ApiProperty({ type: [String] }) blocked_keywords: string[];
  @ApiProperty() recall_window_seconds: number;
  @ApiProperty({ type: RateLimitsReply }) rate_limits: RateLimitsReply;
  @ApiProperty({ type: [PushRuleDto] }) push_rules: PushRuleDto[];
  @ApiProperty({ type: RtcSettingsReply }) rtc: RtcSettingsReply;
  @ApiProperty({
    enum: RESETTABLE_SETTINGS,
    isArray: true,
    description: 'Settings set in the console; the others follow the environment.',
  })
  overridden: ResettableSetting[];
  @ApiProperty({ description: 'Every instance applies a change within this many milliseconds (SETTINGS_REFRESH_MS).' })
  cache_ttl_ms: number;
  @ApiProperty({ type: Number, nullable: true, description: 'Unix ms of the newest console change; null when none.' })
  updated_at: number | null;
}

function rateLimitsReply(settings: RuntimeSettings): RateLimitsReply {
  const rule = (name: RateLimitName): RateLimitRuleDto => ({
    limit: settings.rateLimits[name].limit,
    window_ms: settings.rateLimits[name].windowMs,
  });
  return {
    send: rule('send'),
    friend_request: rule('friend_request'),
    report: rule('report'),
    client_error: rule('client_error'),
    media_upload: rule('media_upload'),
    server_api: rule('server_api'),
  };
}

export function toRuntimeSettingsReply(snapshot: SettingsSnapshot, refreshMs: number): RuntimeSettingsReply {
  const { settings } = snapshot;
  return {
    sdk_enabled: settings.sdkEnabled,
    capabilities: { ...settings.capabilities },
    blocked_keywords: [...settings.blockedKeywords],
    recall_window_seconds: settings.recallWindowSeconds,
    rate_limits: rateLimitsReply(settings),
    push_rules: settings.pushRules.map((r) => ({
      platform: r.platform,
      manufacturer: r.manufacturer,
      package_name: r.package_name,
      config: r.config,
    })),
    rtc: {
      sdk_app_id: settings.rtc.sdkAppId,
      callback_key: { fingerprint: keyFingerprint(settings.rtc.callbackKey), source: settings.rtc.callbackKeySource },
      next_callback_key:
        settings.rtc.nextCallbackKey === null ? null : { fingerprint: keyFingerprint(settings.rtc.nextCallbackKey) },
    },
    overridden: [...snapshot.overridden],
    cache_ttl_ms: refreshMs,
    updated_at: snapshot.updatedAt,
  };
}
