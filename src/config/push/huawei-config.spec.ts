import { generateKeyPairSync } from 'node:crypto';
import { loadHuaweiConfig } from './huawei-config';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('loadHuaweiConfig', () => {
  it('is null when no HUAWEI_* variable is set', () => {
    const problems: string[] = [];
    expect(loadHuaweiConfig({ APNS_KEY_ID: 'x' }, problems)).toBeNull();
    expect(problems).toEqual([]);
  });

  it('defaults the client ID to the app ID and the endpoints to Huawei production', () => {
    const problems: string[] = [];
    const config = loadHuaweiConfig({ HUAWEI_APP_ID: '10086', HUAWEI_CLIENT_SECRET: 'sec' }, problems);
    expect(problems).toEqual([]);
    expect(config).toEqual({
      appId: '10086',
      clientId: '10086',
      clientSecret: 'sec',
      oauthUrl: 'https://oauth-login.cloud.huawei.com/oauth2/v3/token',
      pushUrl: 'https://push-api.cloud.huawei.com',
      caPem: null,
      badgeClass: null,
      harmony: null,
      secrets: ['sec'],
    });
  });

  it('takes every variable, trimming a trailing slash from the push base', () => {
    const config = loadHuaweiConfig(
      {
        HUAWEI_APP_ID: '10086',
        HUAWEI_CLIENT_ID: '20010',
        HUAWEI_CLIENT_SECRET: 'sec',
        HUAWEI_OAUTH_URL: 'https://proxy.internal/oauth2/v3/token',
        HUAWEI_PUSH_URL: 'https://proxy.internal/',
        HUAWEI_CA_FILE: '/etc/proxy-ca.pem',
        HUAWEI_BADGE_CLASS: 'com.example.MainActivity',
      },
      [],
      () => PEM,
    );
    expect(config).toMatchObject({
      clientId: '20010',
      pushUrl: 'https://proxy.internal',
      caPem: PEM,
      badgeClass: 'com.example.MainActivity',
    });
  });

  it('names each missing or malformed variable', () => {
    const problems: string[] = [];
    expect(
      loadHuaweiConfig(
        { HUAWEI_CLIENT_ID: '1', HUAWEI_PUSH_URL: 'http://plain', HUAWEI_CA_FILE: '/nope' },
        problems,
        () => {
          throw Object.assign(new Error('missing'), { code: 'ENOENT' });
        },
      ),
    ).toBeNull();
    expect(problems).toEqual([
      'HUAWEI_APP_ID is required when HUAWEI_CLIENT_ID, HUAWEI_PUSH_URL, HUAWEI_CA_FILE are set',
      'HUAWEI_CLIENT_SECRET is required when HUAWEI_CLIENT_ID, HUAWEI_PUSH_URL, HUAWEI_CA_FILE are set',
      'HUAWEI_PUSH_URL must be an https:// URL',
      'HUAWEI_CA_FILE (/nope) cannot be read: ENOENT',
    ]);
  });

  describe('HarmonyOS (v3) variables', () => {
    const privatePem = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const keyFile = JSON.stringify({ project_id: '3884', key_id: 'k', private_key: privatePem, sub_account: '11' });
    const base = { HUAWEI_APP_ID: '10086', HUAWEI_CLIENT_SECRET: 'sec' };

    it('loads the service account and adds its key to the secrets', () => {
      const problems: string[] = [];
      const config = loadHuaweiConfig(
        { ...base, HUAWEI_PROJECT_ID: '3884', HUAWEI_SERVICE_ACCOUNT_FILE: '/sa.json' },
        problems,
        () => keyFile,
      );
      expect(problems).toEqual([]);
      expect(config?.harmony).toMatchObject({ projectId: '3884', serviceAccount: { keyId: 'k', subAccount: '11' } });
      expect(config?.secrets).toEqual(['sec', privatePem]);
    });

    it('requires both variables and a key file of the same project', () => {
      const problems: string[] = [];
      expect(loadHuaweiConfig({ ...base, HUAWEI_PROJECT_ID: '3884' }, problems)).toBeNull();
      expect(
        loadHuaweiConfig(
          { ...base, HUAWEI_PROJECT_ID: '9999', HUAWEI_SERVICE_ACCOUNT_FILE: '/sa.json' },
          problems,
          () => keyFile,
        ),
      ).toBeNull();
      expect(problems).toEqual([
        'HUAWEI_SERVICE_ACCOUNT_FILE is required when HUAWEI_PROJECT_ID is set',
        'HUAWEI_SERVICE_ACCOUNT_FILE belongs to project 3884, not HUAWEI_PROJECT_ID 9999',
      ]);
    });
  });
});
