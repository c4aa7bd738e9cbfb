import * as https from 'node:https';
import * as tls from 'node:tls';
import type { PushDevice, PushNotification, PushProvider, PushProviderName, PushResult } from '../push-provider';
import type { FcmConfig } from '../../../config/push/fcm-config';
import { buildFcmRequest } from './fcm-request';
import { GoogleOAuthError, httpsTokenExchange, retryAfter, ServiceAccountTokenSource } from './google-oauth';

export interface FcmProviderOptions {
  /** Bound on each HTTP exchange (the token exchange and each send). */
  timeoutMs: number;
  /** The Android notification channel for visible notifications, when the app defines one. */
  androidChannelId?: string | null;
  /** Connections at most: the sends in flight (PUSH_CONCURRENCY) and an access-token request (default 32). */
  maxSockets?: number;
  now?: () => number;
}

const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';
const MAX_BODY_BYTES = 64 * 1024;
const MAX_REASON = 300;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The error body Google APIs answer with. */
interface GoogleError {
  status: string;
  message: string;
  errorCode: string | null;
}

/**
 * FCM HTTP v1 (`projects/{id}/messages:send`) with the service account's OAuth2 token, over one
 * keep-alive HTTPS agent shared by the sends and the token exchange.
 */
export class FcmProvider implements PushProvider {
  readonly serves: readonly PushProviderName[] = ['fcm'];
  readonly name = 'fcm';
  private readonly agent: https.Agent;
  private readonly tokens: ServiceAccountTokenSource;
  private readonly sendUrl: string;
  private readonly now: () => number;
  private closed = false;

  constructor(
    private readonly config: FcmConfig,
    private readonly options: FcmProviderOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: options.maxSockets ?? 32,
      // In addition to the public roots, not instead of them: a proxy may still forward to Google.
      // A secure context built once: a `ca` list would be joined into the pool's key on every request.
      ...(config.caPem
        ? { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, config.caPem] }) }
        : {}),
    });
    this.tokens = new ServiceAccountTokenSource({
      clientEmail: config.clientEmail,
      privateKey: config.privateKey,
      privateKeyId: config.privateKeyId,
      tokenUri: config.tokenUri,
      exchange: httpsTokenExchange(this.agent, options.timeoutMs, this.now),
      now: this.now,
    });
    this.sendUrl = `${config.baseUrl}/v1/projects/${encodeURIComponent(config.projectId)}/messages:send`;
  }

  async send(device: PushDevice, notification: PushNotification): Promise<PushResult> {
    if (this.closed) return { outcome: 'retry', status: null, reason: 'fcm: adapter closed' };
    try {
      const body = JSON.stringify(buildFcmRequest(device, notification, this.now(), this.options));
      let accessToken = await this.tokens.getToken();
      let answer = await this.post(body, accessToken);
      if (answer.status === 401 && !isThirdPartyAuthError(answer)) {
        // Revoked or expired early: one fresh token, one more try, now rather than after a backoff.
        this.tokens.invalidate(accessToken);
        accessToken = await this.tokens.getToken();
        answer = await this.post(body, accessToken);
      }
      return this.classify(answer, [device.token, accessToken]);
    } catch (error) {
      if (error instanceof GoogleOAuthError) {
        return {
          outcome: 'retry',
          status: error.status,
          reason: error.message.slice(0, MAX_REASON),
          ...retryField(error.retryAfterMs),
        };
      }
      if (error instanceof TransportError) return { outcome: 'retry', status: null, reason: error.message };
      return {
        outcome: 'failed',
        status: null,
        reason: `fcm: ${error instanceof Error ? error.name : 'error'} while sending`,
      };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.agent.destroy();
  }

  private classify(answer: Answer, hide: string[]): PushResult {
    const { status } = answer;
    if (status === 200) {
      const name = parseName(answer.body);
      return { outcome: 'sent', status, ...(name ? { providerId: name } : {}) };
    }
    const error = parseGoogleError(answer.body);
    const reason = describe(status, error, hide);
    const wait = retryField(retryAfter(answer.headers['retry-after'], this.now()));
    if (!error) {
      // Not Google's error body (a proxy's page): never grounds to drop a registration.
      if (status === 429 || status >= 500 || status === 401) return { outcome: 'retry', status, reason, ...wait };
      return { outcome: 'failed', status, reason };
    }
    if (error.errorCode === 'UNREGISTERED' || (status === 404 && error.status === 'NOT_FOUND')) {
      return { outcome: 'dead_token', status, reason };
    }
    if (error.errorCode === 'SENDER_ID_MISMATCH') return { outcome: 'dead_token', status, reason };
    if (status === 400 && error.errorCode === 'INVALID_ARGUMENT' && /registration token/i.test(error.message)) {
      return { outcome: 'dead_token', status, reason };
    }
    if (status === 401 && error.errorCode !== 'THIRD_PARTY_AUTH_ERROR') return { outcome: 'retry', status, reason };
    if (status === 429 || status === 500 || status === 502 || status === 503 || status === 504) {
      return { outcome: 'retry', status, reason, ...wait };
    }
    return { outcome: 'failed', status, reason };
  }

  private post(body: string, accessToken: string): Promise<Answer> {
    const timeoutMs = this.options.timeoutMs;
    return new Promise<Answer>((resolve, reject) => {
      const payload = Buffer.from(body, 'utf8');
      let settled = false;
      const finish = (error: TransportError | null, answer?: Answer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(answer as Answer);
      };
      const request = https.request(this.sendUrl, {
        method: 'POST',
        agent: this.agent,
        headers: {
          authorization: `Bearer ${accessToken}`,
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(payload.length),
          accept: 'application/json',
        },
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.on('error', () => finish(new TransportError('fcm: response interrupted')));
        response.on('end', () =>
          finish(null, {
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      // One deadline over the whole exchange: a server trickling bytes must not hold a send.
      const timer = setTimeout(() => {
        finish(new TransportError(`fcm: no answer within ${timeoutMs} ms`));
        request.destroy();
      }, timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish(new TransportError(`fcm: network: ${error.code ?? error.message}`)),
      );
      request.end(payload);
    });
  }
}

/** No answer (timeout, refused, reset); its message is secret-free. */
class TransportError extends Error {}

function retryField(ms: number | undefined): { retryAfterMs?: number } {
  return ms === undefined ? {} : { retryAfterMs: ms };
}

function parseName(body: string): string | null {
  try {
    const json = JSON.parse(body) as { name?: unknown };
    return typeof json.name === 'string' ? json.name : null;
  } catch {
    return null;
  }
}

function parseGoogleError(body: string): GoogleError | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const error = (json as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return null;
  const fields = error as { status?: unknown; message?: unknown; details?: unknown };
  if (typeof fields.status !== 'string') return null;
  const details = Array.isArray(fields.details) ? (fields.details as unknown[]) : [];
  const fcm = details.find(
    (detail): detail is { errorCode: string } =>
      typeof detail === 'object' &&
      detail !== null &&
      (detail as Record<string, unknown>)['@type'] === FCM_ERROR_TYPE &&
      typeof (detail as Record<string, unknown>).errorCode === 'string',
  );
  return {
    status: fields.status,
    message: typeof fields.message === 'string' ? fields.message : '',
    errorCode: fcm?.errorCode ?? null,
  };
}

function isThirdPartyAuthError(answer: Answer): boolean {
  return parseGoogleError(answer.body)?.errorCode === 'THIRD_PARTY_AUTH_ERROR';
}

/** "fcm: HTTP 404 NOT_FOUND UNREGISTERED: Requested entity was not found." with any credential cut out. */
function describe(status: number, error: GoogleError | null, hide: string[]): string {
  let text = `fcm: HTTP ${status}`;
  if (error) {
    text += ` ${error.status}`;
    if (error.errorCode && error.errorCode !== error.status) text += ` ${error.errorCode}`;
    if (error.message) text += `: ${error.message}`;
  }
  for (const secret of hide) if (secret) text = text.split(secret).join('[redacted]');
  return text.slice(0, MAX_REASON);
}
