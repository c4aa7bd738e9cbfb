import { loadConfig } from './app-config';
import { configuredSecrets } from './secrets';

describe('configuredSecrets', () => {
  it('lists every configured credential, the TRTC SDKSecretKey included, so the scrubber removes each', () => {
    const env = {
      NODE_ENV: 'production',
      SDK_SECRET: 's'.repeat(32),
      JWT_SECRET: 'j'.repeat(32),
      RTC_SDK_APP_ID: '1400000001',
      RTC_CALLBACK_SECRET: 'c'.repeat(16),
      RTC_SECRET_KEY: 'f'.repeat(64),
      METRICS_TOKEN: 'm'.repeat(32),
    };
    expect(configuredSecrets(loadConfig(env)).sort()).toEqual(
      [env.SDK_SECRET, env.JWT_SECRET, env.RTC_CALLBACK_SECRET, env.RTC_SECRET_KEY, env.METRICS_TOKEN].sort(),
    );
  });

  it('leaves out what is not configured (never an empty pattern)', () => {
    expect(configuredSecrets(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'j'.repeat(32) }))).toEqual(['j'.repeat(32)]);
  });
});
