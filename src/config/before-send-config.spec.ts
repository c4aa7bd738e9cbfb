import { generateWebhookSecret } from '../common/security/standard-webhook';
import { ConfigError, loadConfig } from './app-config';
import { loadBeforeSendConfig } from './before-send-config';

const SECRET = generateWebhookSecret();

function load(env: NodeJS.ProcessEnv, nodeEnv = 'development'): { config: unknown; problems: string[] } {
  const problems: string[] = [];
  const config = loadBeforeSendConfig(env, nodeEnv, problems);
  return { config, problems };
}

describe('loadBeforeSendConfig', () => {
  it('is off by default, allowing on failure with a 1000 ms timeout', () => {
    expect(load({})).toEqual({
      config: { url: null, secret: '', timeoutMs: 1000, onFailure: 'allow' },
      problems: [],
    });
  });

  it('reads every variable', () => {
    const env = {
      WEBHOOK_BEFORE_SEND_URL: 'https://host.example/im/before-send?x=1',
      WEBHOOK_BEFORE_SEND_SECRET: SECRET,
      WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '250',
      WEBHOOK_BEFORE_SEND_ON_FAILURE: 'reject',
    };
    expect(load(env, 'production')).toEqual({
      config: { url: env.WEBHOOK_BEFORE_SEND_URL, secret: SECRET, timeoutMs: 250, onFailure: 'reject' },
      problems: [],
    });
  });

  it.each([
    [{ WEBHOOK_BEFORE_SEND_URL: 'http://h.example/x' }, 'needs WEBHOOK_BEFORE_SEND_SECRET'],
    [{ WEBHOOK_BEFORE_SEND_URL: 'ftp://h.example/x', WEBHOOK_BEFORE_SEND_SECRET: SECRET }, 'http(s) URL'],
    [{ WEBHOOK_BEFORE_SEND_URL: 'not a url', WEBHOOK_BEFORE_SEND_SECRET: SECRET }, 'http(s) URL'],
    [
      { WEBHOOK_BEFORE_SEND_URL: 'https://u:p@h.example/', WEBHOOK_BEFORE_SEND_SECRET: SECRET },
      'user name or password',
    ],
    [{ WEBHOOK_BEFORE_SEND_SECRET: 'whsec_short' }, 'whsec_ followed by'],
    [{ WEBHOOK_BEFORE_SEND_SECRET: 'a-plain-password-of-some-length-000' }, 'whsec_ followed by'],
    [{ WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '0' }, 'WEBHOOK_BEFORE_SEND_TIMEOUT_MS must be an integer from 50 to 10000'],
    [{ WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '10001' }, 'from 50 to 10000'],
    [{ WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '1e3' }, 'from 50 to 10000'],
    [{ WEBHOOK_BEFORE_SEND_ON_FAILURE: 'deny' }, 'WEBHOOK_BEFORE_SEND_ON_FAILURE must be one of allow, reject'],
  ])('refuses %j (%s)', (env, message) => {
    const { problems } = load(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });

  it('refuses plain http in production, except on loopback', () => {
    const env = { WEBHOOK_BEFORE_SEND_URL: 'http://h.example/x', WEBHOOK_BEFORE_SEND_SECRET: SECRET };
    expect(load(env, 'development').problems).toEqual([]);
    expect(load(env, 'production').problems).toEqual([
      'WEBHOOK_BEFORE_SEND_URL must be an https URL when NODE_ENV=production (http only on loopback)',
    ]);
    for (const url of ['http://127.0.0.1:8080/hook', 'http://[::1]:8080/hook', 'http://localhost/hook'])
      expect(load({ ...env, WEBHOOK_BEFORE_SEND_URL: url }, 'production').problems).toEqual([]);
    expect(load({ ...env, WEBHOOK_BEFORE_SEND_URL: 'http://127.0.0.2.example/x' }, 'production').problems).toHaveLength(
      1,
    );
  });

  it('never shows the secret in a problem', () => {
    const secret = 'whsec_' + 'A'.repeat(10);
    expect(load({ WEBHOOK_BEFORE_SEND_SECRET: secret }).problems.join(' ')).not.toContain(secret);
  });

  it('is part of the application configuration', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).beforeSend.url).toBeNull();
    expect(() => loadConfig({ NODE_ENV: 'test', WEBHOOK_BEFORE_SEND_URL: 'http://h.example' })).toThrow(ConfigError);
  });
});
