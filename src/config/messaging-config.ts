import { readInteger } from './env-values';
import { MediaStorageConfig, loadMediaStorageConfig } from './media-config';

/** Settings of the messaging core, parsed and checked with the rest of the configuration. */
export const CAPABILITY_NAMES = ['friends', 'groups', 'calls', 'search', 'media'] as const;
export type CapabilityName = (typeof CAPABILITY_NAMES)[number];
export type Capabilities = Record<CapabilityName, boolean>;

export const RATE_LIMIT_NAMES = [
  'send',
  'friend_request',
  'report',
  'client_error',
  'media_upload',
  'server_api',
] as const;
export type RateLimitName = (typeof RATE_LIMIT_NAMES)[number];
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

export interface MessagingConfig {
  capabilities: Capabilities;
  recallWindowSeconds: number;
  /** Lower-cased words; a text message containing one is refused with 1203. */
  blockedKeywords: string[];
  invitationTtlSeconds: number;
  /** `dir` is used by the local storage driver only. */
  media: { dir: string; maxImageBytes: number; maxFileBytes: number; storage: MediaStorageConfig };
  rateLimits: Record<RateLimitName, RateLimitRule>;
  redisUrl: string | null;
  /**
   * Where this deployment's Redis state lives, so that several deployments can share one Redis:
   * every key starts with `keys`, every socket.io adapter channel with `channels`.
   */
  redisPrefix: { keys: string; channels: string };
}

/**
 * The default prefix keeps the names every release before REDIS_KEY_PREFIX used (the adapter's
 * channels `socket.io`, not `im:socket.io`), so instances of both agree during an upgrade, and
 * setting `im:` means the same as leaving it unset.
 */
const DEFAULT_KEY_PREFIX = 'im:';

function redisPrefixOf(keys: string): { keys: string; channels: string } {
  return { keys, channels: keys === DEFAULT_KEY_PREFIX ? 'socket.io' : `${keys}socket.io` };
}

const DEFAULT_RATE_LIMITS: Record<RateLimitName, RateLimitRule> = {
  send: { limit: 20, windowMs: 1000 },
  friend_request: { limit: 20, windowMs: 60_000 },
  report: { limit: 20, windowMs: 60_000 },
  client_error: { limit: 120, windowMs: 60_000 },
  media_upload: { limit: 30, windowMs: 60_000 },
  /** Per host (one SDK secret), over every /app/server endpoint: a backend job may be busy. */
  server_api: { limit: 100, windowMs: 1000 },
};

/** "send=20/1s,report=10/60s": per-user limits behind code 1005. */
export function parseRateLimits(raw: string | undefined): Record<RateLimitName, RateLimitRule> {
  const rules = { ...DEFAULT_RATE_LIMITS };
  if (!raw || raw.trim() === '') return rules;
  for (const part of raw.split(',')) {
    const match = /^\s*([a-z_]+)\s*=\s*([0-9]+)\s*\/\s*([0-9]+)(ms|s|m)\s*$/.exec(part);
    if (
      !match ||
      !(RATE_LIMIT_NAMES as readonly string[]).includes(match[1]) ||
      Number(match[2]) < 1 ||
      Number(match[3]) < 1
    ) {
      throw new Error(
        `RATE_LIMITS entry "${part.trim()}" must look like send=20/1s (names: ${RATE_LIMIT_NAMES.join(', ')}; units ms, s, m)`,
      );
    }
    const unit = match[4] === 'ms' ? 1 : match[4] === 's' ? 1000 : 60_000;
    rules[match[1] as RateLimitName] = { limit: Number(match[2]), windowMs: Number(match[3]) * unit };
  }
  return rules;
}

export function loadMessagingConfig(env: NodeJS.ProcessEnv, problems: string[]): MessagingConfig {
  const closed = (env.CAPABILITIES_CLOSED ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of closed) {
    if (!(CAPABILITY_NAMES as readonly string[]).includes(name))
      problems.push(`CAPABILITIES_CLOSED: unknown capability "${name}" (known: ${CAPABILITY_NAMES.join(', ')})`);
  }
  const capabilities = Object.fromEntries(
    CAPABILITY_NAMES.map((name) => [name, !closed.includes(name)]),
  ) as Capabilities;

  let rateLimits = DEFAULT_RATE_LIMITS;
  try {
    rateLimits = parseRateLimits(env.RATE_LIMITS);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  let redisPrefix = redisPrefixOf(DEFAULT_KEY_PREFIX);
  const keyPrefix = env.REDIS_KEY_PREFIX;
  if (keyPrefix !== undefined && keyPrefix !== '') {
    if (/^[A-Za-z0-9:_.-]{1,64}$/.test(keyPrefix)) redisPrefix = redisPrefixOf(keyPrefix);
    else problems.push('REDIS_KEY_PREFIX must be 1-64 characters: letters, digits and : _ . -');
  }

  return {
    capabilities,
    recallWindowSeconds: readInteger(env, 'RECALL_WINDOW_SECONDS', 120, 0, 7 * 24 * 3600, problems),
    blockedKeywords: (env.BLOCKED_KEYWORDS ?? '')
      .split(',')
      .map((w) => w.trim().toLowerCase())
      .filter(Boolean),
    invitationTtlSeconds: readInteger(env, 'INVITATION_TTL_SECONDS', 7 * 24 * 3600, 60, 365 * 24 * 3600, problems),
    media: {
      dir: env.MEDIA_DIR || './data/media',
      maxImageBytes: readInteger(env, 'MEDIA_MAX_IMAGE_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024, problems),
      maxFileBytes: readInteger(env, 'MEDIA_MAX_FILE_BYTES', 50 * 1024 * 1024, 1024, 4 * 1024 * 1024 * 1024, problems),
      storage: loadMediaStorageConfig(env, problems),
    },
    rateLimits,
    redisUrl,
    redisPrefix,
  };
}
