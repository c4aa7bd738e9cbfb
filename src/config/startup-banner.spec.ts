import { loadConfig } from './app-config';
import { startupBanner } from './startup-banner';

const SECRETS = {
  SDK_SECRET: 's'.repeat(40),
  JWT_SECRET: 'j'.repeat(40),
  RTC_SDK_APP_ID: '1400000001',
  RTC_CALLBACK_SECRET: 'c'.repeat(40),
  RTC_SECRET_KEY: 'k'.repeat(64),
};

describe('startupBanner', () => {
  it('names the port the service listens on, and the docs, admin and demo addresses', () => {
    const lines = startupBanner(loadConfig({ ...SECRETS, PORT: '4123' }), 'sqlite ./x');
    expect(lines[0]).toBe('IM SDK service listening on http://localhost:4123 (development, database: sqlite ./x)');
    expect(lines[1]).toBe(
      'Open: API browser http://localhost:4123/docs, admin console http://localhost:4123/admin, demo chat http://localhost:4123/demo',
    );
  });

  it('adds the public address when it differs, and leaves out the demo where it is not served', () => {
    const config = loadConfig({
      ...SECRETS,
      NODE_ENV: 'development',
      HOST_APP_ENABLED: 'false',
      PUBLIC_BASE_URL: 'https://im.example.com',
    });
    const lines = startupBanner(config, 'sqlite ./x');
    expect(lines[0]).toContain('http://localhost:3000 (public address https://im.example.com)');
    expect(lines[1]).not.toContain('/demo');
  });
});
