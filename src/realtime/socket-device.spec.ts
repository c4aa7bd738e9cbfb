import { AppError } from '../common/app-error';
import { clientAddress, readDevice, shortUserAgent } from './socket-device';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJlc2lnbmF0dXJl';
const hasCredential = (value: string) => value.includes('eyJ');

function refusal(raw: unknown): string {
  try {
    readDevice(raw, hasCredential);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(1004);
    return (error as AppError).message;
  }
  throw new Error('accepted');
}

describe('readDevice (auth.device)', () => {
  it('is unknown when absent or null', () => {
    for (const raw of [undefined, null])
      expect(readDevice(raw, hasCredential)).toEqual({ platform: null, deviceId: null, appVersion: null });
  });

  it('reads platform, device_id and the optional app_version; other keys are ignored', () => {
    expect(readDevice({ platform: 'web', device_id: 'web-1:a.b_c', future: 1 }, hasCredential)).toEqual({
      platform: 'web',
      deviceId: 'web-1:a.b_c',
      appVersion: null,
    });
    expect(readDevice({ platform: 'harmony', device_id: 'd', app_version: '5.2.0+7' }, hasCredential)).toEqual({
      platform: 'harmony',
      deviceId: 'd',
      appVersion: '5.2.0+7',
    });
  });

  it.each([
    ['"phone"', 'auth.device: must be an object'],
    [[], 'auth.device: must be an object'],
    [{ device_id: 'd' }, 'auth.device.platform: must be one of android, ios, harmony, web'],
    [{ platform: 'symbian', device_id: 'd' }, 'auth.device.platform:'],
    [{ platform: 'ios' }, 'auth.device.device_id: must be 1–128'],
    [{ platform: 'ios', device_id: 'a b' }, 'auth.device.device_id:'],
    [{ platform: 'ios', device_id: 'x'.repeat(129) }, 'auth.device.device_id:'],
    [{ platform: 'ios', device_id: 'd', app_version: 5 }, 'auth.device.app_version: must be 1–32'],
    [{ platform: 'ios', device_id: 'd', app_version: '1'.repeat(33) }, 'auth.device.app_version:'],
    [{ platform: 'ios', device_id: 'd', app_version: '' }, 'auth.device.app_version:'],
  ])('refuses %j naming the field', (raw, msg) => {
    expect(refusal(raw === '"phone"' ? 'phone' : raw)).toContain(msg);
  });

  it('refuses a token in device_id or app_version without echoing it', () => {
    const id = refusal({ platform: 'web', device_id: JWT });
    expect(id).toBe('auth.device.device_id: must not contain a token or a secret');
    const version = refusal({ platform: 'web', device_id: 'd', app_version: 'eyJhbGciOiJI' });
    expect(version).toBe('auth.device.app_version: must not contain a token or a secret');
  });
});

describe('shortUserAgent', () => {
  it.each([
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Chrome 131 on Windows',
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
      'Safari 17 on iOS',
    ],
    ['Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Linux'],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
      'Edge 131 on macOS',
    ],
    ['okhttp/4.12.0', 'okhttp/4'],
    ['node', 'node'],
    ['Mozilla/5.0 (compatible)', null],
    ['', null],
    [undefined, null],
    ['%%%', null],
  ])('%s → %s', (header, short) => {
    expect(shortUserAgent(header, hasCredential)).toBe(short);
  });

  it('never carries a credential', () => {
    expect(shortUserAgent('eyJhbGciOiJIUzI1NiJ9/1', hasCredential)).toBeNull();
  });
});

describe('clientAddress (as Express req.ip)', () => {
  const none = () => false;
  const hops = (n: number) => (_: string, hop: number) => hop < n;
  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('10.0.0.2', '203.0.113.9', none)).toBe('10.0.0.2');
  });
  it('follows X-Forwarded-For from the right while the hop is trusted', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1, 203.0.113.9', hops(1))).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '198.51.100.1, 203.0.113.9', hops(2))).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.2', '198.51.100.1, 203.0.113.9', hops(5))).toBe('198.51.100.1');
  });
  it('is null for a forged entry that is no address, or no peer', () => {
    expect(clientAddress('10.0.0.2', 'evil, 203.0.113.9', hops(2))).toBeNull();
    expect(clientAddress(undefined, undefined, none)).toBeNull();
  });
});
