import { ApnsConfig, loadApnsConfig } from './push/apns-config';
import { FcmConfig, loadFcmConfig } from './push/fcm-config';
import { HuaweiConfig, loadHuaweiConfig } from './push/huawei-config';
import { XiaomiConfig, loadXiaomiConfig } from './push/xiaomi-config';
import { readChoice, readInteger } from './env-values';

/** What a notification shows of a message (the contract's PushPreviewLevel). */
export type PushPreviewLevel = 'full' | 'sender' | 'none';

/** Offline push (src/push). Times are milliseconds unless named otherwise. */
export interface PushConfig {
  /**
   * Whether this instance reads the outbox and sends notifications. Off: it still takes
   * registrations and settings, and another instance (a dedicated push worker) sends.
   */
  dispatch: boolean;
  /** The preview level of users who chose none. */
  previewDefault: PushPreviewLevel;
  /** A notification still failing this long after its event is given up. */
  retryMs: number;
  /** One provider request, connection to answer. */
  timeoutMs: number;
  /** Requests in flight per provider: a slow provider fills its own slots, never another's. */
  concurrency: number;
  /** How long the dispatcher's lease on the outbox, and a claim on a notification, last unrenewed. */
  leaseMs: number;
  /** How often an idle instance looks for work (a local event wakes it sooner). */
  pollMs: number;
  /**
   * How long the dispatcher lets events gather after a wake before reading them: one read of the
   * outbox, one queue write and one claim serve a burst instead of each event alone.
   */
  batchWaitMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How long the provider keeps an undelivered message notification; calls use callTtlSeconds. */
  messageTtlSeconds: number;
  callTtlSeconds: number;
  /** Final notification records kept this many days (0: for ever). */
  deliveriesRetentionDays: number;
  apns: ApnsConfig | null;
  fcm: FcmConfig | null;
  huawei: HuaweiConfig | null;
  xiaomi: XiaomiConfig | null;
}

export const PREVIEW_LEVELS: readonly PushPreviewLevel[] = ['full', 'sender', 'none'];

export function loadPushConfig(env: NodeJS.ProcessEnv, problems: string[]): PushConfig {
  const timeoutMs = readInteger(env, 'PUSH_TIMEOUT_MS', 10_000, 100, 120_000, problems);
  const leaseMs = readInteger(env, 'PUSH_LEASE_MS', 30_000, 1_000, 600_000, problems);
  // Claims are extended every third of a lease while a send runs; a lease shorter than two
  // requests would leave too little room between extensions.
  if (leaseMs < 2 * timeoutMs + 500)
    problems.push(`PUSH_LEASE_MS (${leaseMs}) must be at least 2 x PUSH_TIMEOUT_MS + 500 (${2 * timeoutMs + 500})`);
  const backoffBaseMs = readInteger(env, 'PUSH_BACKOFF_BASE_MS', 1_000, 10, 600_000, problems);
  const backoffMaxMs = readInteger(env, 'PUSH_BACKOFF_MAX_MS', 60_000, 10, 3_600_000, problems);
  if (backoffMaxMs < backoffBaseMs) problems.push('PUSH_BACKOFF_MAX_MS must not be below PUSH_BACKOFF_BASE_MS');
  return {
    dispatch: readChoice(env, 'PUSH_DISPATCH', ['true', 'false'] as const, 'true', problems) === 'true',
    previewDefault: readChoice(env, 'PUSH_PREVIEW_DEFAULT', PREVIEW_LEVELS, 'full', problems),
    retryMs: readInteger(env, 'PUSH_RETRY_SECONDS', 600, 1, 86_400, problems) * 1000,
    timeoutMs,
    concurrency: readInteger(env, 'PUSH_CONCURRENCY', 16, 1, 1_000, problems),
    leaseMs,
    pollMs: readInteger(env, 'PUSH_POLL_MS', 1_000, 10, 60_000, problems),
    batchWaitMs: readInteger(env, 'PUSH_BATCH_WAIT_MS', 100, 0, 5_000, problems),
    backoffBaseMs,
    backoffMaxMs,
    messageTtlSeconds: readInteger(env, 'PUSH_MESSAGE_TTL_SECONDS', 86_400, 1, 2_419_200, problems),
    callTtlSeconds: readInteger(env, 'PUSH_CALL_TTL_SECONDS', 60, 1, 3_600, problems),
    deliveriesRetentionDays: readInteger(env, 'PUSH_DELIVERIES_RETENTION_DAYS', 7, 0, 3_650, problems),
    apns: loadApnsConfig(env, problems),
    fcm: loadFcmConfig(env, problems),
    huawei: loadHuaweiConfig(env, problems),
    xiaomi: loadXiaomiConfig(env, problems),
  };
}

/** Every credential of the push providers, for the log scrubber. */
export function pushSecrets(config: PushConfig): string[] {
  return [config.apns, config.fcm, config.huawei, config.xiaomi].flatMap((provider) => provider?.secrets ?? []);
}
