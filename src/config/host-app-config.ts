import { readChoice, readInteger } from './env-values';

export const SMS_DRIVERS = ['log', 'http'] as const;
export const HOST_SESSION_STORES = ['database', 'redis'] as const;
export type SmsDriver = (typeof SMS_DRIVERS)[number];

/** The bundled host application (/app/auth/*): its switch, sessions, login limits and SMS delivery. */
export interface HostAppConfig {
  /** Off: every /app/auth route answers HTTP 404 as if it did not exist. */
  enabled: boolean;
  /** Where sessions live: the `host_sessions` table, or Redis (REDIS_URL). */
  sessionStore: (typeof HOST_SESSION_STORES)[number];
  /** A session unused this long ends (sliding). */
  sessionIdleSeconds: number;
  /** A session ends this long after login however active it is. */
  sessionAbsoluteSeconds: number;
  /** Login attempts per account within `loginWindowSeconds`; more answer as a wrong password. */
  loginAttemptsPerAccount: number;
  /** Login attempts per client address within `loginWindowSeconds`; more answer HTTP 429. */
  loginAttemptsPerAddress: number;
  loginWindowSeconds: number;
  sms: {
    driver: SmsDriver;
    /** The `http` driver: JSON is POSTed here with `Authorization: Bearer <httpKey>`. */
    httpUrl: string;
    httpKey: string;
    httpTimeoutMs: number;
    /** Codes per phone number and per client address within `windowSeconds`; more answer HTTP 429. */
    perPhone: number;
    perAddress: number;
    windowSeconds: number;
    /** At most one code per phone number within this many seconds (0: no such spacing). */
    phoneIntervalSeconds: number;
  };
}

export const SMS_HTTP_KEY_MIN = 16;

export function loadHostAppConfig(env: NodeJS.ProcessEnv, nodeEnv: string, problems: string[]): HostAppConfig {
  const production = nodeEnv === 'production';
  const enabled =
    readChoice(env, 'HOST_APP_ENABLED', ['true', 'false'] as const, production ? 'false' : 'true', problems) === 'true';
  const sessionIdleSeconds = readInteger(env, 'HOST_SESSION_IDLE_SECONDS', 7 * 86_400, 60, 365 * 86_400, problems);
  const sessionAbsoluteSeconds = readInteger(
    env,
    'HOST_SESSION_ABSOLUTE_SECONDS',
    30 * 86_400,
    300,
    365 * 86_400,
    problems,
  );
  if (sessionAbsoluteSeconds < sessionIdleSeconds)
    problems.push('HOST_SESSION_ABSOLUTE_SECONDS must not be shorter than HOST_SESSION_IDLE_SECONDS');
  const sessionStore = readChoice(env, 'HOST_SESSION_STORE', HOST_SESSION_STORES, 'database', problems);
  if (sessionStore === 'redis' && !env.REDIS_URL) problems.push('HOST_SESSION_STORE=redis needs REDIS_URL');
  const driver = readChoice(env, 'SMS_DRIVER', SMS_DRIVERS, 'log', problems);
  const httpUrl = env.SMS_HTTP_URL ?? '';
  const httpKey = env.SMS_HTTP_KEY ?? '';
  if (httpUrl !== '' && !/^https?:\/\/[^\s/]+\S*$/.test(httpUrl)) problems.push('SMS_HTTP_URL must be an http(s) URL');
  if (httpKey !== '' && Buffer.byteLength(httpKey, 'utf8') < SMS_HTTP_KEY_MIN)
    problems.push(`SMS_HTTP_KEY is too short: at least ${SMS_HTTP_KEY_MIN} bytes are required`);
  if (driver === 'http' && (httpUrl === '' || httpKey === ''))
    problems.push('SMS_DRIVER=http needs SMS_HTTP_URL and SMS_HTTP_KEY');
  // The log driver hands every code to whoever reads the log or the dev inbox: never in production.
  if (production && enabled && driver !== 'http')
    problems.push('HOST_APP_ENABLED=true in production needs SMS_DRIVER=http with SMS_HTTP_URL and SMS_HTTP_KEY');
  return {
    enabled,
    sessionStore,
    sessionIdleSeconds,
    sessionAbsoluteSeconds,
    loginAttemptsPerAccount: readInteger(env, 'HOST_LOGIN_ATTEMPTS_PER_ACCOUNT', 10, 1, 1000, problems),
    loginAttemptsPerAddress: readInteger(env, 'HOST_LOGIN_ATTEMPTS_PER_ADDRESS', 100, 1, 100_000, problems),
    loginWindowSeconds: readInteger(env, 'HOST_LOGIN_WINDOW_SECONDS', 900, 10, 86_400, problems),
    sms: {
      driver,
      httpUrl,
      httpKey,
      httpTimeoutMs: readInteger(env, 'SMS_HTTP_TIMEOUT_MS', 5000, 100, 60_000, problems),
      perPhone: readInteger(env, 'SMS_PER_PHONE', 5, 1, 1000, problems),
      perAddress: readInteger(env, 'SMS_PER_ADDRESS', 20, 1, 100_000, problems),
      windowSeconds: readInteger(env, 'SMS_WINDOW_SECONDS', 3600, 60, 86_400, problems),
      phoneIntervalSeconds: readInteger(env, 'SMS_PHONE_INTERVAL_SECONDS', 60, 0, 3600, problems),
    },
  };
}
