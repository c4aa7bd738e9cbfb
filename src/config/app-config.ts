import { AdminConfig, loadAdminConfig } from './admin-config';
import { BeforeSendConfig, loadBeforeSendConfig } from './before-send-config';
import { CallsConfig, loadCallsConfig } from './calls-config';
import { readInteger } from './env-values';
import { HostAppConfig, loadHostAppConfig } from './host-app-config';
import { HttpConfig, loadHttpConfig } from './http-config';
import { MessagingConfig, loadMessagingConfig } from './messaging-config';
import { OperationsConfig, loadOperationsConfig } from './operations-config';
import { PushRule, parsePushRules } from './push-rules';
import { RealtimeConfig, loadRealtimeConfig } from './realtime-config';
import { RetentionConfig, loadRetentionConfig } from './retention-config';
import { UserErasureConfig, loadUserErasureConfig } from './user-erasure-config';
import { PushConfig, loadPushConfig } from './push-config';
import { AnalyticsConfig, loadAnalyticsConfig } from './analytics-config';
import { WebhookDeliveryConfig, loadWebhookDeliveryConfig } from './webhook-delivery-config';

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; host: string; port: number; username: string; password: string; database: string };

export type NodeEnv = 'development' | 'production' | 'test';

export interface AppConfig {
  nodeEnv: NodeEnv;
  port: number;
  database: DatabaseConfig;
  migrationsRun: boolean;
  sdkSecret: string;
  jwtSecret: string;
  tokenTtlSeconds: number;
  /**
   * The real-time provider (Tencent TRTC): the application ID, the key that signs its room
   * callbacks, and the application's SDKSecretKey that signs our users' UserSigs.
   */
  rtc: { sdkAppId: string; callbackSecret: string; secretKey: string };
  publicBaseUrl: string;
  defaultAvatarUrl: string;
  pushRules: PushRule[];
  /** Largest accepted JSON body outside the room callback. */
  bodyLimitBytes: number;
  /** Timeouts of the HTTP server (src/common/http/server-timeouts.ts). */
  http: HttpConfig;
  /** How long a user's token version and disabled flag may be served from memory (0: never). */
  authCacheMs: number;
  messaging: MessagingConfig;
  operations: OperationsConfig;
  retention: RetentionConfig;
  realtime: RealtimeConfig;
  calls: CallsConfig;
  admin: AdminConfig;
  hostApp: HostAppConfig;
  /** The server API's user erasure (ERASE_KEEPS_MESSAGES). */
  erasure: UserErasureConfig;
  /** The host's before-send hook (off when its URL is unset). */
  beforeSend: BeforeSendConfig;
  /** Webhook deliveries to host endpoints (src/webhooks). */
  webhookDelivery: WebhookDeliveryConfig;
  push: PushConfig;
  analytics: AnalyticsConfig;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export const SECRET_MINIMUMS = {
  SDK_SECRET: 32,
  JWT_SECRET: 32,
  RTC_CALLBACK_SECRET: 16,
  // TRTC's SDKSecretKey is 64 hex characters; 32 refuses a truncated paste or a placeholder
  // without tying the check to the console's current key format.
  RTC_SECRET_KEY: 32,
} as const;
export type SecretName = keyof typeof SECRET_MINIMUMS | 'RTC_SDK_APP_ID';
export const SECRET_NAMES: readonly SecretName[] = [
  'SDK_SECRET',
  'JWT_SECRET',
  'RTC_SDK_APP_ID',
  'RTC_CALLBACK_SECRET',
  'RTC_SECRET_KEY',
];

export const DEFAULT_TOKEN_TTL_SECONDS = 7 * 24 * 3600;

export function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new Error('DATABASE_URL sqlite:<path> needs a path, e.g. sqlite:./data/im.sqlite');
    return { type: 'sqlite', path };
  }
  if (/^(mysql|mariadb):\/\//.test(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error('DATABASE_URL is not a valid mysql://user:pass@host:port/db URL');
    }
    const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    if (!parsed.hostname || !database)
      throw new Error('DATABASE_URL must name a host and a database: mysql://user:pass@host:port/db');
    return {
      type: 'mysql',
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 3306,
      username: decodeURIComponent(parsed.username || 'root'),
      password: decodeURIComponent(parsed.password),
      database,
    };
  }
  throw new Error('DATABASE_URL must start with sqlite: or mysql://');
}

/**
 * Reads and checks the whole configuration at boot. Problems are collected and reported
 * together; secret values never appear in a message.
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const problems: string[] = [];
  const nodeEnv = (env.NODE_ENV || 'development') as NodeEnv;
  if (!['development', 'production', 'test'].includes(nodeEnv))
    problems.push(`NODE_ENV must be development, production or test (got "${env.NODE_ENV}")`);

  const port = readInteger(env, 'PORT', 3000, 0, 65535, problems);
  let database: DatabaseConfig = { type: 'sqlite', path: './data/im.sqlite' };
  try {
    database = parseDatabaseUrl(env.DATABASE_URL || 'sqlite:./data/im.sqlite');
  } catch (error) {
    problems.push((error as Error).message);
  }

  for (const name of SECRET_NAMES) {
    const value = env[name];
    if (value === undefined || value === '') {
      if (nodeEnv === 'production') problems.push(`${name} is required when NODE_ENV=production`);
      continue;
    }
    if (name === 'RTC_SDK_APP_ID') {
      if (!/^[1-9][0-9]{0,19}$/.test(value))
        problems.push('RTC_SDK_APP_ID must be the provider application ID (a positive decimal number)');
      continue;
    }
    const minimum = SECRET_MINIMUMS[name];
    if (Buffer.byteLength(value, 'utf8') < minimum)
      problems.push(`${name} is too short: at least ${minimum} bytes are required`);
  }
  if (env.SDK_SECRET && env.JWT_SECRET && env.SDK_SECRET === env.JWT_SECRET) {
    problems.push('SDK_SECRET and JWT_SECRET must differ (the host secret must never verify an IM token)');
  }
  // Whoever holds RTC_SECRET_KEY can sign a UserSig for any user: no other secret, handed to
  // the host or to the provider's callback configuration, may double as it.
  if (env.RTC_SECRET_KEY && [env.RTC_CALLBACK_SECRET, env.SDK_SECRET, env.JWT_SECRET].includes(env.RTC_SECRET_KEY)) {
    problems.push('RTC_SECRET_KEY must differ from RTC_CALLBACK_SECRET, SDK_SECRET and JWT_SECRET');
  }

  const tokenTtlSeconds = readInteger(
    env,
    'TOKEN_TTL_SECONDS',
    DEFAULT_TOKEN_TTL_SECONDS,
    60,
    365 * 24 * 3600,
    problems,
  );
  const bodyLimitBytes = readInteger(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 65536, 16 * 1024 * 1024, problems);
  const authCacheMs = readInteger(env, 'AUTH_CACHE_MS', 1000, 0, 10_000, problems);
  const http = loadHttpConfig(env, problems);

  const migrationsRaw = env.MIGRATIONS_RUN ?? 'true';
  if (!['true', 'false'].includes(migrationsRaw)) problems.push('MIGRATIONS_RUN must be true or false');

  const publicBaseUrl = (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(publicBaseUrl)) problems.push('PUBLIC_BASE_URL must be an http(s) URL');
  const defaultAvatarUrl = env.DEFAULT_AVATAR_URL || `${publicBaseUrl}/static/default-avatar.svg`;
  if (!/^https?:\/\/\S+$/.test(defaultAvatarUrl)) problems.push('DEFAULT_AVATAR_URL must be an http(s) URL');

  let pushRules: PushRule[] = [];
  try {
    pushRules = parsePushRules(env.PUSH_RULES);
  } catch (error) {
    problems.push((error as Error).message);
  }

  const messaging = loadMessagingConfig(env, problems);
  const operations = loadOperationsConfig(env, nodeEnv, problems);
  const retention = loadRetentionConfig(env, problems);
  const realtime = loadRealtimeConfig(env, problems);
  const calls = loadCallsConfig(env, problems);
  const admin = loadAdminConfig(env, problems);
  const hostApp = loadHostAppConfig(env, nodeEnv, problems);
  const erasure = loadUserErasureConfig(env, problems);
  const webhookDelivery = loadWebhookDeliveryConfig(env, nodeEnv === 'production', problems);
  const beforeSend = loadBeforeSendConfig(env, nodeEnv, problems);
  const push = loadPushConfig(env, problems);
  const analytics = loadAnalyticsConfig(env, problems);

  if (problems.length) throw new ConfigError(problems);
  return {
    nodeEnv,
    port,
    database,
    migrationsRun: migrationsRaw === 'true',
    sdkSecret: env.SDK_SECRET ?? '',
    jwtSecret: env.JWT_SECRET ?? '',
    tokenTtlSeconds,
    rtc: {
      sdkAppId: env.RTC_SDK_APP_ID ?? '',
      callbackSecret: env.RTC_CALLBACK_SECRET ?? '',
      secretKey: env.RTC_SECRET_KEY ?? '',
    },
    publicBaseUrl,
    defaultAvatarUrl,
    pushRules,
    bodyLimitBytes,
    http,
    authCacheMs,
    messaging,
    operations,
    retention,
    realtime,
    calls,
    admin,
    hostApp,
    erasure,
    beforeSend,
    webhookDelivery,
    push,
    analytics,
  };
}
