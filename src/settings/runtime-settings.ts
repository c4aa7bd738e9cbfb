import { createHash } from 'node:crypto';
import type { AppConfig } from '../config/app-config';
import {
  CAPABILITY_NAMES,
  Capabilities,
  CapabilityName,
  RATE_LIMIT_NAMES,
  RateLimitName,
  RateLimitRule,
} from '../config/messaging-config';
import { PushRule } from '../config/push-rules';

/**
 * The settings an operator changes in the admin console without a restart. The environment
 * gives every default; a stored value overrides its default until it is reset.
 */
export interface RuntimeSettings {
  sdkEnabled: boolean;
  capabilities: Capabilities;
  /** Lower-cased; a text message containing one is refused with 1203. */
  blockedKeywords: string[];
  recallWindowSeconds: number;
  rateLimits: Record<RateLimitName, RateLimitRule>;
  pushRules: PushRule[];
  rtc: {
    sdkAppId: string;
    /** The key that signs room callbacks; during a rotation `nextCallbackKey` verifies too. */
    callbackKey: string;
    callbackKeySource: 'environment' | 'console';
    nextCallbackKey: string | null;
  };
}

/**
 * Row names in runtime_settings. A map is stored one entry per row (`capabilities.friends`,
 * `rate_limits.send`), so two operators changing different entries at once never overwrite
 * each other; a list is one row and is replaced whole.
 */
export type SettingName =
  | 'sdk_enabled'
  | `capabilities.${CapabilityName}`
  | 'blocked_keywords'
  | 'recall_window_seconds'
  | `rate_limits.${RateLimitName}`
  | 'push_rules'
  | 'rtc_sdk_app_id'
  | 'rtc_callback_key'
  | 'rtc_next_callback_key';

/** What an operator may reset to the environment's value, and the rows each one removes. */
export const RESETTABLE_SETTINGS = [
  'sdk_enabled',
  'capabilities',
  'blocked_keywords',
  'recall_window_seconds',
  'rate_limits',
  'push_rules',
  'rtc_sdk_app_id',
  'rtc_callback_key',
] as const;
export type ResettableSetting = (typeof RESETTABLE_SETTINGS)[number];

export function rowsOf(setting: ResettableSetting): SettingName[] {
  if (setting === 'capabilities') return CAPABILITY_NAMES.map((n) => `capabilities.${n}` as const);
  if (setting === 'rate_limits') return RATE_LIMIT_NAMES.map((n) => `rate_limits.${n}` as const);
  return [setting];
}

/** The console's view of which settings differ from the environment: rows grouped by setting. */
export function overriddenSettings(rowNames: readonly string[]): ResettableSetting[] {
  return RESETTABLE_SETTINGS.filter((setting) => rowsOf(setting).some((row) => rowNames.includes(row)));
}

export const SETTING_LIMITS = {
  blockedKeywords: 1000,
  keywordLength: 64,
  recallWindowSeconds: 7 * 24 * 3600,
  rateLimit: 1_000_000,
  windowMsMin: 100,
  windowMsMax: 86_400_000,
  pushRules: 100,
  /** Bytes of one push rule's `config` as JSON. */
  pushConfigBytes: 8192,
  /** The environment's own minimum for RTC_CALLBACK_SECRET, also the floor for a console key. */
  callbackKeyMinBytes: 16,
  callbackKeyMaxBytes: 256,
} as const;

export interface StoredSetting {
  name: string;
  valueJson: string;
}

/** The environment's values: the defaults, and what a reset goes back to. */
export function environmentSettings(config: AppConfig): RuntimeSettings {
  return {
    sdkEnabled: config.realtime.sdkEnabled,
    capabilities: { ...config.messaging.capabilities },
    blockedKeywords: [...config.messaging.blockedKeywords],
    recallWindowSeconds: config.messaging.recallWindowSeconds,
    rateLimits: { ...config.messaging.rateLimits },
    pushRules: config.pushRules,
    rtc: {
      sdkAppId: config.rtc.sdkAppId,
      callbackKey: config.rtc.callbackSecret,
      callbackKeySource: 'environment',
      nextCallbackKey: null,
    },
  };
}

/** Normalises a keyword list: trimmed, lower-cased, without empties or repeats, in the given order. */
export function normaliseKeywords(words: readonly string[]): string[] {
  return [...new Set(words.map((w) => w.trim().toLowerCase()).filter(Boolean))];
}

/**
 * The effective settings: the environment overlaid with the stored rows. A row that does not
 * parse (edited by hand, or written by a newer version) is skipped and reported in `skipped`,
 * so a bad row never takes the service down; its environment value applies.
 */
export function mergeSettings(
  defaults: RuntimeSettings,
  rows: readonly StoredSetting[],
): { settings: RuntimeSettings; skipped: string[] } {
  const settings: RuntimeSettings = {
    ...defaults,
    capabilities: { ...defaults.capabilities },
    rateLimits: { ...defaults.rateLimits },
    rtc: { ...defaults.rtc },
  };
  const skipped: string[] = [];
  for (const row of rows) {
    let value: unknown;
    try {
      value = JSON.parse(row.valueJson);
    } catch {
      skipped.push(row.name);
      continue;
    }
    if (!apply(settings, row.name, value)) skipped.push(row.name);
  }
  return { settings, skipped };
}

function apply(settings: RuntimeSettings, name: string, value: unknown): boolean {
  const [group, entry] = name.split('.', 2);
  if (group === 'capabilities' && entry !== undefined) {
    if (!(CAPABILITY_NAMES as readonly string[]).includes(entry) || typeof value !== 'boolean') return false;
    settings.capabilities[entry as CapabilityName] = value;
    return true;
  }
  if (group === 'rate_limits' && entry !== undefined) {
    if (!(RATE_LIMIT_NAMES as readonly string[]).includes(entry)) return false;
    if (!isRecord(value) || !isRateLimitRule(value.limit, value.window_ms)) return false;
    settings.rateLimits[entry as RateLimitName] = { limit: value.limit as number, windowMs: value.window_ms as number };
    return true;
  }
  switch (name) {
    case 'sdk_enabled':
      if (typeof value !== 'boolean') return false;
      settings.sdkEnabled = value;
      return true;
    case 'blocked_keywords':
      if (!Array.isArray(value) || !value.every((w) => typeof w === 'string')) return false;
      settings.blockedKeywords = normaliseKeywords(value as string[]);
      return true;
    case 'recall_window_seconds':
      if (!isIntegerIn(value, 0, SETTING_LIMITS.recallWindowSeconds)) return false;
      settings.recallWindowSeconds = value;
      return true;
    case 'push_rules':
      if (!Array.isArray(value) || !value.every(isPushRule)) return false;
      settings.pushRules = value;
      return true;
    case 'rtc_sdk_app_id':
      if (typeof value !== 'string' || !/^[1-9][0-9]{0,19}$/.test(value)) return false;
      settings.rtc.sdkAppId = value;
      return true;
    case 'rtc_callback_key':
      if (!isCallbackKey(value)) return false;
      settings.rtc.callbackKey = value;
      settings.rtc.callbackKeySource = 'console';
      return true;
    case 'rtc_next_callback_key':
      if (!isCallbackKey(value)) return false;
      settings.rtc.nextCallbackKey = value;
      return true;
    default:
      return false;
  }
}

export function isRateLimitRule(limit: unknown, windowMs: unknown): boolean {
  return (
    isIntegerIn(limit, 1, SETTING_LIMITS.rateLimit) &&
    isIntegerIn(windowMs, SETTING_LIMITS.windowMsMin, SETTING_LIMITS.windowMsMax)
  );
}

/** A console callback key is held to the environment's floor for RTC_CALLBACK_SECRET. */
export function isCallbackKey(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const bytes = Buffer.byteLength(value, 'utf8');
  // Printable ASCII only: the provider's console takes the key as typed, and a control or
  // non-ASCII character would make the two sides disagree about the bytes being signed.
  return (
    bytes >= SETTING_LIMITS.callbackKeyMinBytes &&
    bytes <= SETTING_LIMITS.callbackKeyMaxBytes &&
    /^[\x21-\x7e]+$/.test(value)
  );
}

function isPushRule(value: unknown): value is PushRule {
  if (!isRecord(value) || !isRecord(value.config)) return false;
  return (
    ['android', 'ios', 'harmony', '*'].includes(value.platform as string) &&
    typeof value.manufacturer === 'string' &&
    value.manufacturer !== '' &&
    typeof value.package_name === 'string' &&
    value.package_name !== ''
  );
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** What the console shows of a key: enough to match it with the provider's console, never the key. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 12);
}
