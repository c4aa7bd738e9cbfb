import { loadXiaomiConfig } from './xiaomi-config';

describe('loadXiaomiConfig', () => {
  it('is null when no XIAOMI_* variable is set', () => {
    const problems: string[] = [];
    expect(loadXiaomiConfig({}, problems)).toBeNull();
    expect(problems).toEqual([]);
  });

  it('reads the secret and package with production defaults', () => {
    const problems: string[] = [];
    expect(loadXiaomiConfig({ XIAOMI_APP_SECRET: 'sec', XIAOMI_PACKAGE_NAME: 'com.example.chat' }, problems)).toEqual({
      appSecret: 'sec',
      packageName: 'com.example.chat',
      url: 'https://api.xmpush.xiaomi.com',
      channelId: null,
      caPem: null,
      secrets: ['sec'],
    });
    expect(problems).toEqual([]);
  });

  it('names each missing or malformed variable', () => {
    const problems: string[] = [];
    expect(loadXiaomiConfig({ XIAOMI_PACKAGE_NAME: 'not a package', XIAOMI_URL: 'ftp://x' }, problems)).toBeNull();
    expect(problems).toEqual([
      'XIAOMI_APP_SECRET is required when XIAOMI_PACKAGE_NAME, XIAOMI_URL are set',
      'XIAOMI_PACKAGE_NAME must be an Android package name such as com.example.chat',
      'XIAOMI_URL must be an https:// URL',
    ]);
  });

  it('reads the CA file and the channel', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const config = loadXiaomiConfig(
      {
        XIAOMI_APP_SECRET: 's',
        XIAOMI_PACKAGE_NAME: 'com.example.chat',
        XIAOMI_CHANNEL_ID: '125',
        XIAOMI_CA_FILE: '/ca.pem',
      },
      [],
      () => pem,
    );
    expect(config).toMatchObject({ channelId: '125', caPem: pem });
  });
});
