import { readChoice, readInteger } from './env-values';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'pretty';

/** How the service behaves towards its dependencies, its operators and browsers. */
export interface OperationsConfig {
  database: {
    /** Opening one connection, handshake included. */
    connectTimeoutMs: number;
    /** Waiting for a free pooled connection. */
    acquireTimeoutMs: number;
    /** One statement. */
    queryTimeoutMs: number;
    /** First delay between connection attempts at start-up; doubles up to the cap. */
    connectRetryMs: number;
    connectRetryMaxMs: number;
    /** Attempts at start-up before giving up; 0 retries for ever. */
    connectRetries: number;
  };
  /** A Redis command slower than this counts as an outage: the in-memory limiter answers. */
  redisTimeoutMs: number;
  /** Each dependency check of /health/ready. */
  readyTimeoutMs: number;
  /** Whether a Redis outage fails readiness (otherwise it is reported as "down" in a ready reply). */
  readyRequiresRedis: boolean;
  /** Requests in flight get this long to finish after SIGTERM. */
  shutdownTimeoutMs: number;
  log: { level: LogLevelName; format: LogFormat };
  /** Bearer token required by /metrics; null leaves it open (keep it off the public network). */
  metricsToken: string | null;
  /** Browser origins allowed to call the IM-token endpoints; ['*'] allows any. */
  corsOrigins: string[];
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:[0-9]{1,5})?$/;

function corsOrigins(raw: string | undefined, problems: string[]): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (origins.includes('*')) {
    if (origins.length > 1) problems.push('CORS_ORIGINS is either * alone or a list of origins');
    return ['*'];
  }
  for (const origin of origins) {
    if (!ORIGIN.test(origin))
      problems.push(
        `CORS_ORIGINS: "${origin}" is not an origin like https://app.example.com (scheme, lower-case host, optional port, no path)`,
      );
  }
  return origins;
}

export function loadOperationsConfig(env: NodeJS.ProcessEnv, nodeEnv: string, problems: string[]): OperationsConfig {
  const metricsToken = env.METRICS_TOKEN || null;
  if (metricsToken !== null && (Buffer.byteLength(metricsToken, 'utf8') < 16 || /\s/.test(metricsToken))) {
    problems.push('METRICS_TOKEN must be at least 16 bytes without white space');
  }
  if (
    metricsToken !== null &&
    [env.SDK_SECRET, env.JWT_SECRET, env.RTC_CALLBACK_SECRET, env.RTC_SECRET_KEY].includes(metricsToken)
  ) {
    problems.push('METRICS_TOKEN must differ from SDK_SECRET, JWT_SECRET, RTC_CALLBACK_SECRET and RTC_SECRET_KEY');
  }
  const connectRetryMs = readInteger(env, 'DB_CONNECT_RETRY_MS', 500, 50, 60_000, problems);
  const connectRetryMaxMs = readInteger(env, 'DB_CONNECT_RETRY_MAX_MS', 10_000, 50, 600_000, problems);
  if (connectRetryMaxMs < connectRetryMs)
    problems.push('DB_CONNECT_RETRY_MAX_MS must not be below DB_CONNECT_RETRY_MS');
  return {
    database: {
      connectTimeoutMs: readInteger(env, 'DB_CONNECT_TIMEOUT_MS', 5000, 100, 120_000, problems),
      acquireTimeoutMs: readInteger(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 120_000, problems),
      queryTimeoutMs: readInteger(env, 'DB_QUERY_TIMEOUT_MS', 10_000, 100, 600_000, problems),
      connectRetryMs,
      connectRetryMaxMs,
      connectRetries: readInteger(env, 'DB_CONNECT_RETRIES', 0, 0, 1_000_000, problems),
    },
    redisTimeoutMs: readInteger(env, 'REDIS_TIMEOUT_MS', 250, 10, 10_000, problems),
    readyTimeoutMs: readInteger(env, 'READY_TIMEOUT_MS', 2000, 50, 60_000, problems),
    readyRequiresRedis: readChoice(env, 'READY_REQUIRES_REDIS', ['true', 'false'], 'false', problems) === 'true',
    shutdownTimeoutMs: readInteger(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000, problems),
    log: {
      level: readChoice(env, 'LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'error' : 'info', problems),
      format: readChoice<LogFormat>(
        env,
        'LOG_FORMAT',
        ['json', 'pretty'],
        nodeEnv === 'production' ? 'json' : 'pretty',
        problems,
      ),
    },
    metricsToken,
    corsOrigins: corsOrigins(env.CORS_ORIGINS, problems),
  };
}
