import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDK_VERSION, connectionDevice } from './device';

describe('connectionDevice (auth.device)', () => {
  it("names the web platform, the client's device ID and the app's version, else the SDK's", () => {
    expect(connectionDevice('web-abc', '2.4.0')).toEqual({
      platform: 'web',
      device_id: 'web-abc',
      app_version: '2.4.0',
    });
    expect(connectionDevice('web-abc')).toEqual({
      platform: 'web',
      device_id: 'web-abc',
      app_version: `web-sdk/${SDK_VERSION}`,
    });
  });

  it('sends nothing the service would refuse', () => {
    expect(connectionDevice('has space')).toBeUndefined();
    expect(connectionDevice('x'.repeat(129))).toBeUndefined();
    expect(connectionDevice('web-abc', 'version 2 (beta)')).toEqual({ platform: 'web', device_id: 'web-abc' });
  });

  it("is the package's version", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string };
    expect(SDK_VERSION).toBe(pkg.version);
  });
});
