import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signatures in the manner of Standard Webhooks (standardwebhooks.com), shared by the webhook
 * deliveries and the before-send hook: HMAC-SHA256 over `id.timestamp.body` with the secret's
 * bytes, sent as `v1,<base64>`. During a secret rotation every current secret signs, and the
 * signatures are listed space-separated so a receiver holding either secret accepts.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** 24 random bytes: a receiver's library takes the secret as given, prefix included. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(24).toString('base64');
}

/** `whsec_` + base64 of 24 to 64 bytes; anything else cannot be used by standard receivers. */
export function isWebhookSecret(value: string): boolean {
  if (!value.startsWith(WEBHOOK_SECRET_PREFIX)) return false;
  const encoded = value.slice(WEBHOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
}

export interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three headers of one delivery; `timestampMs` is rounded down to whole seconds as the scheme wants. */
export function signWebhook(
  id: string,
  timestampMs: number,
  body: string,
  secrets: readonly string[],
): WebhookSignatureHeaders {
  if (secrets.length === 0) throw new Error('signWebhook: no secret');
  const timestamp = String(Math.floor(timestampMs / 1000));
  const signed = `${id}.${timestamp}.${body}`;
  const signature = secrets
    .map((secret) => `v1,${createHmac('sha256', secretBytes(secret)).update(signed).digest('base64')}`)
    .join(' ');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature };
}
