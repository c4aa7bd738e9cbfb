import { isIP } from 'node:net';
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
  /**
   * Which peers may name the client address in X-Forwarded-For (Express `trust proxy`): false
   * (none), a hop count, or addresses and CIDR ranges (`loopback`, `linklocal` and `uniquelocal`
   * included). It decides the address that the per-address login and SMS limits count.
   */
  trustProxy: false | number | string[];
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(raw: string | undefined, problems: string[]): false | number | string[] {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false') return false;
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value);
    if (hops >= 1 && hops <= 10) return hops;
    problems.push('TRUST_PROXY as a hop count must be from 1 to 10');
    return false;
  }
  // `true` would trust any peer, so every client could choose its own address for the limits.
  if (value === 'true') {
    problems.push('TRUST_PROXY=true would let every client forge its address; name the proxies or a hop count');
    return false;
  }
  const entries = value.split(',').map((s) => s.trim());
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const prefixOk =
      prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.includes(entry) && (family === 0 || !prefixOk || rest.length > 0))
      problems.push(
        `TRUST_PROXY: "${entry}" is not an address, a CIDR range or one of ${PROXY_NAMES.join(', ')} (or use false or a hop count)`,
      );
  }
  return entries;
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
    trustProxy: trustProxy(env.TRUST_PROXY, problems),
  };
}
