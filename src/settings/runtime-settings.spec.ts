import { loadConfig } from '../config/app-config';
import {
  environmentSettings,
  isCallbackKey,
  mergeSettings,
  normaliseKeywords,
  overriddenSettings,
  rowsOf,
} from './runtime-settings';

const config = loadConfig({
  NODE_ENV: 'test',
  CAPABILITIES_CLOSED: 'calls',
  BLOCKED_KEYWORDS: 'Spam',
  RTC_SDK_APP_ID: '1400000001',
  RTC_CALLBACK_SECRET: 'environment-callback-key',
});
const defaults = environmentSettings(config);
const row = (name: string, value: unknown) => ({ name, valueJson: JSON.stringify(value) });

describe('runtime settings', () => {
  it('starts from the environment', () => {
    expect(defaults).toMatchObject({
      sdkEnabled: true,
      capabilities: { calls: false, friends: true },
      blockedKeywords: ['spam'],
      rtc: { sdkAppId: '1400000001', callbackKey: 'environment-callback-key', callbackKeySource: 'environment' },
    });
  });

  it('overlays each stored row, one map entry per row, without touching the defaults', () => {
    const { settings, skipped } = mergeSettings(defaults, [
      row('capabilities.calls', true),
      row('capabilities.media', false),
      row('rate_limits.send', { limit: 3, window_ms: 1000 }),
      row('sdk_enabled', false),
      row('rtc_callback_key', 'console-callback-key-1'),
      row('rtc_next_callback_key', 'console-callback-key-2'),
    ]);
    expect(skipped).toEqual([]);
    expect(settings.capabilities).toMatchObject({ calls: true, media: false, friends: true });
    expect(settings.rateLimits.send).toEqual({ limit: 3, windowMs: 1000 });
    expect(settings.rateLimits.report).toEqual(defaults.rateLimits.report);
    expect(settings.sdkEnabled).toBe(false);
    expect(settings.rtc).toEqual({
      sdkAppId: '1400000001',
      callbackKey: 'console-callback-key-1',
      callbackKeySource: 'console',
      nextCallbackKey: 'console-callback-key-2',
    });
    expect(defaults.capabilities.calls).toBe(false);
    expect(defaults.rateLimits.send).not.toEqual({ limit: 3, windowMs: 1000 });
  });

  it.each([
    ['capabilities.calls', '"yes"'],
    ['capabilities.unknown', 'true'],
    ['rate_limits.send', '{"limit":0,"window_ms":1000}'],
    ['rate_limits.send', '{"limit":5}'],
    ['recall_window_seconds', '-1'],
    ['recall_window_seconds', '{not json'],
    ['push_rules', '[{"platform":"web","manufacturer":"*","package_name":"*","config":{}}]'],
    ['rtc_sdk_app_id', '"0"'],
    ['rtc_callback_key', '"short"'],
    ['something_new', 'true'],
  ])('skips a row %s = %s it does not understand, keeping the environment value', (name, valueJson) => {
    const { settings, skipped } = mergeSettings(defaults, [{ name, valueJson }]);
    expect(skipped).toEqual([name]);
    expect(settings).toEqual(defaults);
  });

  it('maps rows to the settings an operator sees as overridden and resets', () => {
    expect(rowsOf('capabilities')).toEqual([
      'capabilities.friends',
      'capabilities.groups',
      'capabilities.calls',
      'capabilities.search',
      'capabilities.media',
    ]);
    expect(rowsOf('sdk_enabled')).toEqual(['sdk_enabled']);
    expect(overriddenSettings(['rate_limits.send', 'rtc_next_callback_key', 'sdk_enabled'])).toEqual([
      'sdk_enabled',
      'rate_limits',
    ]);
  });

  it('normalises keywords: trimmed, lower-cased, without empties or repeats', () => {
    expect(normaliseKeywords([' Spam ', 'spam', '', 'EGGS'])).toEqual(['spam', 'eggs']);
  });

  it('holds a console callback key to the environment floor: 16 to 256 printable ASCII characters', () => {
    expect(isCallbackKey('a'.repeat(16))).toBe(true);
    expect(isCallbackKey('a'.repeat(15))).toBe(false);
    expect(isCallbackKey('a'.repeat(257))).toBe(false);
    expect(isCallbackKey('with a space 0123456')).toBe(false);
    expect(isCallbackKey('ключ-ключ-ключ-ключ')).toBe(false);
    expect(isCallbackKey(1234567890123456)).toBe(false);
  });
});
