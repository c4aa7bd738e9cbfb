import { loadOperationsConfig } from './operations-config';

function load(
  env: Record<string, string>,
  nodeEnv = 'production',
): { config: ReturnType<typeof loadOperationsConfig>; problems: string[] } {
  const problems: string[] = [];
  return { config: loadOperationsConfig(env, nodeEnv, problems), problems };
}

describe('loadOperationsConfig', () => {
  it('has documented defaults', () => {
    const { config, problems } = load({});
    expect(problems).toEqual([]);
    expect(config).toEqual({
      database: {
        connectTimeoutMs: 5000,
        acquireTimeoutMs: 5000,
        queryTimeoutMs: 10000,
        connectRetryMs: 500,
        connectRetryMaxMs: 10000,
        connectRetries: 0,
      },
      redisTimeoutMs: 250,
      readyTimeoutMs: 2000,
      readyRequiresRedis: false,
      shutdownTimeoutMs: 10000,
      log: { level: 'info', format: 'json' },
      metricsToken: null,
      corsOrigins: [],
      trustProxy: false,
    });
    expect(load({}, 'development').config.log).toEqual({ level: 'info', format: 'pretty' });
    expect(load({}, 'test').config.log.level).toBe('error');
  });

  it('reads CORS origins, and * alone', () => {
    expect(load({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).config.corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect(load({ CORS_ORIGINS: '*' }).config.corsOrigins).toEqual(['*']);
  });

  it('reads TRUST_PROXY: off, a hop count, or the proxies by address, range or name', () => {
    expect(load({ TRUST_PROXY: 'false' }).config.trustProxy).toBe(false);
    expect(load({ TRUST_PROXY: '2' }).config.trustProxy).toBe(2);
    expect(load({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8, 192.0.2.7' }).config.trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
  });

  it.each([
    ['TRUST_PROXY', 'true'],
    ['TRUST_PROXY', '0'],
    ['TRUST_PROXY', '11'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', 'proxy.example.com'],
    ['TRUST_PROXY', 'loopback,'],
    ['CORS_ORIGINS', 'https://app.example.com/path'],
    ['CORS_ORIGINS', '*,https://a.example.com'],
    ['CORS_ORIGINS', 'app.example.com'],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_TOKEN', 'has white space in it, long enough'],
    ['LOG_LEVEL', 'verbose'],
    ['LOG_FORMAT', 'xml'],
    ['DB_QUERY_TIMEOUT_MS', '0'],
    ['DB_ACQUIRE_TIMEOUT_MS', '1e4'],
    ['REDIS_TIMEOUT_MS', '-1'],
    ['READY_REQUIRES_REDIS', '1'],
  ])('refuses %s=%s with a message naming it', (name, value) => {
    const { problems } = load({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(name);
  });

  it('refuses a metrics token equal to another secret, without naming it', () => {
    const secret = 'sdk-secret-0123456789abcdef-0123456789';
    const { problems } = load({ SDK_SECRET: secret, METRICS_TOKEN: secret });
    expect(problems).toEqual([
      'METRICS_TOKEN must differ from SDK_SECRET, JWT_SECRET, RTC_CALLBACK_SECRET and RTC_SECRET_KEY',
    ]);
  });

  it('refuses a retry cap below the first delay', () => {
    expect(load({ DB_CONNECT_RETRY_MS: '5000', DB_CONNECT_RETRY_MAX_MS: '1000' }).problems).toEqual([
      'DB_CONNECT_RETRY_MAX_MS must not be below DB_CONNECT_RETRY_MS',
    ]);
  });

  it('never repeats the metrics token in a message', () => {
    const { problems } = load({ METRICS_TOKEN: 'tiny' });
    expect(problems.join()).not.toContain('tiny');
  });
});
