import { isWebhookSecret } from '../common/security/standard-webhook';
import { readInteger } from './env-values';

/** An endpoint given by WEBHOOK_ENDPOINTS (seeded at boot, idempotent by URL). */
export interface SeededWebhookEndpoint {
  url: string;
  secret: string;
  eventTypes: string[] | null;
  description: string;
}

/** How webhook deliveries run (src/webhooks). Times are milliseconds unless named otherwise. */
export interface WebhookDeliveryConfig {
  /** An event that has failed until its creation time plus this is dead-lettered for the endpoint. */
  retryMs: number;
  /** Each request's whole time, connection to the end of the response. */
  timeoutMs: number;
  /** How long an instance's claim on an endpoint lasts without renewal. */
  leaseMs: number;
  /** How long the previous secret keeps signing after a rotation. */
  rotationMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Consecutive failures that open an endpoint's breaker. */
  breakerThreshold: number;
  /** How long an open breaker waits before a half-open probe. */
  breakerCooldownMs: number;
  /** How often an idle instance looks for endpoints to claim and new events (a local send wakes it sooner). */
  pollMs: number;
  /** Delivery records kept this many days (0: for ever). */
  deliveriesRetentionDays: number;
  endpoints: SeededWebhookEndpoint[];
}

const HOUR_MS = 3_600_000;
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 200;

/** A decimal number of hours (fractions allowed, so that tests can use seconds). */
function readHours(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback * HOUR_MS;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    problems.push(`${name} must be a number of hours from ${min} to ${max} (got "${raw}")`);
    return fallback * HOUR_MS;
  }
  return Math.round(Number(raw) * HOUR_MS);
}

/** A receiver on the same machine (a sidecar) has no network path to protect, as for the before-send hook. */
const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

/**
 * Why a URL cannot be an endpoint, or null. Production wants https: a delivery carries user
 * content, and a plain-http hop exposes it and lets anyone replay it inside the timestamp window.
 */
export function webhookUrlProblem(url: string, production: boolean): string | null {
  if (url.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must be an http(s) URL';
  if (production && parsed.protocol !== 'https:' && !LOOPBACK_HOSTS.includes(parsed.hostname))
    return 'must be https when NODE_ENV=production (http only on loopback)';
  if (parsed.username || parsed.password) return 'must not contain credentials (the signature authenticates)';
  if (parsed.hash) return 'must not contain a fragment';
  if (/\s/.test(url)) return 'must not contain whitespace';
  return null;
}

function parseEndpoints(raw: string | undefined, production: boolean, problems: string[]): SeededWebhookEndpoint[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    problems.push('WEBHOOK_ENDPOINTS must be a JSON array of {url, secret, event_types?, description?}');
    return [];
  }
  if (!Array.isArray(parsed)) {
    problems.push('WEBHOOK_ENDPOINTS must be a JSON array of {url, secret, event_types?, description?}');
    return [];
  }
  const endpoints: SeededWebhookEndpoint[] = [];
  const urls = new Set<string>();
  parsed.forEach((item: unknown, i) => {
    const at = `WEBHOOK_ENDPOINTS[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push(`${at} must be an object`);
      return;
    }
    const entry = item as Record<string, unknown>;
    const unknown = Object.keys(entry).filter((key) => !['url', 'secret', 'event_types', 'description'].includes(key));
    if (unknown.length) problems.push(`${at} has unknown fields: ${unknown.join(', ')}`);
    const url = entry.url;
    const urlProblem = typeof url === 'string' ? webhookUrlProblem(url, production) : 'is required (a string)';
    // The URL itself is not echoed: it may hold a token in its query.
    if (urlProblem) problems.push(`${at}.url ${urlProblem}`);
    else if (urls.has(url as string)) problems.push(`${at}.url appears twice`);
    if (typeof entry.secret !== 'string' || !isWebhookSecret(entry.secret))
      problems.push(`${at}.secret must be whsec_ followed by base64 of 24 to 64 bytes`);
    const types = entry.event_types;
    if (types !== undefined && types !== null && (!Array.isArray(types) || types.some((t) => typeof t !== 'string')))
      problems.push(`${at}.event_types must be an array of event type names or null`);
    if (
      entry.description !== undefined &&
      (typeof entry.description !== 'string' || entry.description.length > WEBHOOK_DESCRIPTION_MAX)
    )
      problems.push(`${at}.description must be a string of at most ${WEBHOOK_DESCRIPTION_MAX} characters`);
    if (typeof url === 'string') urls.add(url);
    endpoints.push({
      url: url as string,
      secret: entry.secret as string,
      eventTypes: Array.isArray(types) ? (types as string[]) : null,
      description: typeof entry.description === 'string' ? entry.description : '',
    });
  });
  return endpoints;
}

export function loadWebhookDeliveryConfig(
  env: NodeJS.ProcessEnv,
  production: boolean,
  problems: string[],
): WebhookDeliveryConfig {
  const timeoutMs = readInteger(env, 'WEBHOOK_TIMEOUT_MS', 5000, 100, 60_000, problems);
  const leaseMs = readInteger(env, 'WEBHOOK_LEASE_MS', 30_000, 1000, 600_000, problems);
  // A request must end well inside the lease that covers it, or another instance could start the same delivery.
  if (leaseMs < 2 * timeoutMs + 500)
    problems.push(`WEBHOOK_LEASE_MS (${leaseMs}) must be at least twice WEBHOOK_TIMEOUT_MS (${timeoutMs}) plus 500`);
  const backoffBaseMs = readInteger(env, 'WEBHOOK_BACKOFF_BASE_MS', 1000, 10, 600_000, problems);
  const backoffMaxMs = readInteger(env, 'WEBHOOK_BACKOFF_MAX_MS', 600_000, 10, 24 * HOUR_MS, problems);
  if (backoffMaxMs < backoffBaseMs) problems.push('WEBHOOK_BACKOFF_MAX_MS must not be below WEBHOOK_BACKOFF_BASE_MS');
  return {
    retryMs: readHours(env, 'WEBHOOK_RETRY_HOURS', 24, 0.0001, 720, problems),
    timeoutMs,
    leaseMs,
    rotationMs: readHours(env, 'WEBHOOK_SECRET_ROTATION_HOURS', 24, 0.0001, 720, problems),
    backoffBaseMs,
    backoffMaxMs,
    breakerThreshold: readInteger(env, 'WEBHOOK_BREAKER_THRESHOLD', 10, 1, 1000, problems),
    breakerCooldownMs: readInteger(env, 'WEBHOOK_BREAKER_COOLDOWN_MS', 60_000, 10, 24 * HOUR_MS, problems),
    pollMs: readInteger(env, 'WEBHOOK_POLL_MS', 1000, 10, 60_000, problems),
    deliveriesRetentionDays: readInteger(env, 'WEBHOOK_DELIVERIES_RETENTION_DAYS', 14, 0, 3650, problems),
    endpoints: parseEndpoints(env.WEBHOOK_ENDPOINTS, production, problems),
  };
}
