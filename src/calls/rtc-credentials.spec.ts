import { createHmac } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { AppConfig, loadConfig } from '../config/app-config';
import { environmentSettings } from '../settings/runtime-settings';
import type { RuntimeSettingsService } from '../settings/runtime-settings.service';
import { MAX_ROOM_ID, RtcCredentialsService, USER_SIG_TTL_SECONDS } from './rtc-credentials';

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const NOW_MS = 1_700_000_000_123;

function service(env: NodeJS.ProcessEnv = {}): RtcCredentialsService {
  const config: AppConfig = loadConfig({ NODE_ENV: 'test', RTC_SDK_APP_ID: '1400123456', RTC_SECRET_KEY: KEY, ...env });
  const settings = { current: environmentSettings(config) } as RuntimeSettingsService;
  return new RtcCredentialsService(config, settings);
}

function documentOf(userSig: string): Record<string, string | number> {
  const raw = Buffer.from(userSig.replace(/\*/g, '+').replace(/-/g, '/').replace(/_/g, '='), 'base64');
  return JSON.parse(inflateSync(raw).toString()) as Record<string, string | number>;
}

describe('RtcCredentialsService', () => {
  it('issues the provider identity, a day-long UserSig signed with RTC_SECRET_KEY, and its expiry in Unix seconds', () => {
    const credentials = service().issue('42', 123456, NOW_MS);
    expect(credentials).toEqual({
      sdk_app_id: 1400123456,
      user_id: 'u42',
      user_sig: expect.any(String),
      room_id: 123456,
      expire_at: 1_700_000_000 + 86400,
    });
    expect(USER_SIG_TTL_SECONDS).toBe(86400);
    const doc = documentOf(credentials.user_sig);
    expect(doc).toMatchObject({
      'TLS.identifier': 'u42',
      'TLS.sdkappid': 1400123456,
      'TLS.time': 1_700_000_000,
      'TLS.expire': 86400,
    });
    expect(Number(doc['TLS.time']) + Number(doc['TLS.expire'])).toBe(credentials.expire_at);
    const content = 'TLS.identifier:u42\nTLS.sdkappid:1400123456\nTLS.time:1700000000\nTLS.expire:86400\n';
    expect(doc['TLS.sig']).toBe(createHmac('sha256', KEY).update(content).digest('base64'));
  });

  it('never signs with the callback key', () => {
    const callbackSecret = 'callback-secret-0123456789abcdef';
    const doc = documentOf(service({ RTC_CALLBACK_SECRET: callbackSecret }).issue('42', 1, NOW_MS).user_sig);
    const content = 'TLS.identifier:u42\nTLS.sdkappid:1400123456\nTLS.time:1700000000\nTLS.expire:86400\n';
    expect(doc['TLS.sig']).not.toBe(createHmac('sha256', callbackSecret).update(content).digest('base64'));
  });

  it('accepts the whole uint32 room range TRTC allows', () => {
    expect(service().issue('1', 1, NOW_MS).room_id).toBe(1);
    expect(service().issue('1', MAX_ROOM_ID, NOW_MS).room_id).toBe(4294967294);
  });

  it.each([0, -1, 4294967295, 1.5, Number.NaN])('refuses the room ID %p', (roomId) => {
    expect(() => service().issue('1', roomId, NOW_MS)).toThrow('room ID');
  });

  it('refuses a clock in seconds (it takes Clock.now() milliseconds)', () => {
    expect(() => service().issue('1', 1, 1_700_000_000)).toThrow('milliseconds');
  });

  it('refuses a host user ID in place of the internal ID', () => {
    expect(() => service().issue('alice', 1, NOW_MS)).toThrow('internal user ID');
  });

  it('refuses to sign without RTC_SECRET_KEY, and never names the key in an error', () => {
    expect(() => service({ RTC_SECRET_KEY: '' }).issue('1', 1, NOW_MS)).toThrow('RTC_SECRET_KEY is not configured');
    try {
      service().issue('1', 0, NOW_MS);
    } catch (error) {
      expect((error as Error).message).not.toContain(KEY);
    }
  });
});
