import { isWebhookSecret } from '../common/security/standard-webhook';
import { readChoice, readInteger } from './env-values';

export const BEFORE_SEND_FAILURE_MODES = ['allow', 'reject'] as const;
export type BeforeSendFailureMode = (typeof BEFORE_SEND_FAILURE_MODES)[number];

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]', 'localhost'];

export const BEFORE_SEND_TIMEOUT_MIN_MS = 50;
export const BEFORE_SEND_TIMEOUT_MAX_MS = 10_000;

/**
 * The before-send hook: a host URL asked synchronously before a user's message is stored. Off
 * (`url` null) unless WEBHOOK_BEFORE_SEND_URL is set.
 */
export interface BeforeSendConfig {
  url: string | null;
  /** `whsec_…` (Standard Webhooks); signs every request. */
  secret: string;
  /** The whole request, connect to the last byte of the answer. */
  timeoutMs: number;
  /** What a send does when the hook times out, fails or answers nonsense. */
  onFailure: BeforeSendFailureMode;
}

export function loadBeforeSendConfig(env: NodeJS.ProcessEnv, nodeEnv: string, problems: string[]): BeforeSendConfig {
  const rawUrl = env.WEBHOOK_BEFORE_SEND_URL ?? '';
  const secret = env.WEBHOOK_BEFORE_SEND_SECRET ?? '';
  const timeoutMs = readInteger(
    env,
    'WEBHOOK_BEFORE_SEND_TIMEOUT_MS',
    1000,
    BEFORE_SEND_TIMEOUT_MIN_MS,
    BEFORE_SEND_TIMEOUT_MAX_MS,
    problems,
  );
  const onFailure = readChoice(env, 'WEBHOOK_BEFORE_SEND_ON_FAILURE', BEFORE_SEND_FAILURE_MODES, 'allow', problems);
  // The secret is checked even without a URL: a malformed value left in a deployment would
  // otherwise surface only on the day someone sets the URL.
  if (secret !== '' && !isWebhookSecret(secret))
    problems.push('WEBHOOK_BEFORE_SEND_SECRET must be whsec_ followed by the base64 of 24 to 64 random bytes');
  if (rawUrl === '') return { url: null, secret, timeoutMs, onFailure };

  let url: URL | null = null;
  try {
    url = new URL(rawUrl);
  } catch {
    url = null;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol) || !url.hostname) {
    problems.push('WEBHOOK_BEFORE_SEND_URL must be an http(s) URL');
  } else if (url.username || url.password) {
    // Credentials in the URL would travel in logs and crash reports; the signature authenticates.
    problems.push('WEBHOOK_BEFORE_SEND_URL must not contain a user name or password (requests are signed)');
  } else if (nodeEnv === 'production' && url.protocol !== 'https:' && !LOOPBACK_HOSTS.includes(url.hostname)) {
    // Messages travel to the hook in full, and its answer can rewrite them: in clear text,
    // anyone on the path could read or forge either. A hook on the same machine (a sidecar)
    // has no such path, and TLS would only add a handshake to every cold connection.
    problems.push('WEBHOOK_BEFORE_SEND_URL must be an https URL when NODE_ENV=production (http only on loopback)');
  }
  if (secret === '') problems.push('WEBHOOK_BEFORE_SEND_URL needs WEBHOOK_BEFORE_SEND_SECRET (a whsec_ secret)');
  return { url: rawUrl, secret, timeoutMs, onFailure };
}
