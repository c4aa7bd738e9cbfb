import { ClientHttp2Session, connect, constants, IncomingHttpHeaders } from 'node:http2';
import { rootCertificates } from 'node:tls';
import type { PushDevice, PushNotification, PushProvider, PushProviderName, PushResult } from '../push-provider';
import type { ApnsConfig } from '../../../config/push/apns-config';
import { ApnsTokenSource } from './apns-jwt';
import { buildApnsRequest } from './apns-request';

export interface ApnsProviderOptions {
  /** One request's limit, connecting included; past it the answer is `retry` ("timeout"). */
  timeoutMs?: number;
  /** Unix ms, for the provider token's `iat`; injectable for tests. */
  now?: () => number;
}

interface ApnsAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** Apple's `reason` from the JSON error body, or '' (success, or a body that is not Apple's). */
  reason: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Answers meaning the device token will never work again (for this app and environment). */
const DEAD_TOKEN_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);
const HEX_TOKEN = /^[0-9a-fA-F]+$/;

/**
 * Apple Push Notification service over one long-lived HTTP/2 session, as Apple asks (opening a
 * connection per notification is treated as a denial-of-service attempt). Serves both alert
 * (`apns`) and PushKit VoIP (`apns_voip`) registrations.
 */
export class ApnsProvider implements PushProvider {
  readonly serves: readonly PushProviderName[] = ['apns', 'apns_voip'];
  readonly name = 'apns';
  private session: ClientHttp2Session | null = null;
  /** Every session not yet closed, the current one and any still finishing streams after a GOAWAY. */
  private readonly sessions = new Set<ClientHttp2Session>();
  private closed = false;
  private readonly tokens: ApnsTokenSource;
  private readonly timeoutMs: number;
  private readonly ca: string[] | undefined;

  constructor(
    private readonly config: ApnsConfig,
    options: ApnsProviderOptions = {},
  ) {
    this.tokens = new ApnsTokenSource({
      key: config.key,
      keyId: config.keyId,
      teamId: config.teamId,
      now: options.now,
    });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // `ca` replaces the trusted roots: keep the system's and add the operator's.
    this.ca = config.caPem === null ? undefined : [...rootCertificates, config.caPem];
  }

  async send(device: PushDevice, notification: PushNotification): Promise<PushResult> {
    if (!this.serves.includes(device.provider))
      return { outcome: 'failed', status: null, reason: `not an APNs registration (${device.provider})` };
    // Apple answers BadDeviceToken to anything else; a token with a "/" would also change the path.
    if (!HEX_TOKEN.test(device.token))
      return { outcome: 'dead_token', status: null, reason: 'BadDeviceToken (not hexadecimal; not sent)' };
    try {
      let jwt = this.tokens.token();
      let answer = await this.attempt(device, notification, jwt);
      if (answer.status === 403 && answer.reason === 'ExpiredProviderToken') {
        jwt = this.tokens.renewAfterRejection(jwt);
        answer = await this.attempt(device, notification, jwt);
      }
      return classify(answer);
    } catch (error) {
      return { outcome: 'retry', status: null, reason: failureReason(error) };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.session = null;
    const open = [...this.sessions].filter((session) => !session.destroyed);
    await Promise.all(
      open.map(
        (session) =>
          new Promise<void>((resolve) => {
            // In-flight requests get their own timeout to finish; then the session goes regardless.
            const timer = setTimeout(() => session.destroy(), this.timeoutMs);
            session.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
            session.close();
          }),
      ),
    );
  }

  private attempt(device: PushDevice, notification: PushNotification, jwt: string): Promise<ApnsAnswer> {
    const request = buildApnsRequest(device, notification, { topic: this.config.topic, jwt });
    if (request.tooLarge) return Promise.resolve({ status: 413, headers: {}, reason: 'PayloadTooLarge' });
    const session = this.connected();
    return new Promise<ApnsAnswer>((resolve, reject) => {
      const stream = session.request(request.headers);
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => {
        stream.close(constants.NGHTTP2_CANCEL);
        // A connection that never came up (a black-holed address) would hold every later request too.
        if (session.connecting) session.destroy();
        reject(new ApnsTimeout());
      }, this.timeoutMs);
      stream.on('response', (received) => {
        headers = received;
        status = Number(received[':status']);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        clearTimeout(timer);
        if (status === 0) reject(new Error('stream ended without a response'));
        else resolve({ status, headers, reason: readReason(Buffer.concat(chunks)) });
      });
      stream.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      // Refused or reset before any answer (a GOAWAY, the session closing): 'close' without 'end'.
      stream.on('close', () => {
        clearTimeout(timer);
        if (status === 0) reject(new Error(`stream closed (code ${stream.rstCode ?? 'none'})`));
      });
      stream.end(request.body);
    });
  }

  /** The live session, or a new one when the last closed, was refused or received a GOAWAY. */
  private connected(): ClientHttp2Session {
    if (this.closed) throw new Error('adapter closed');
    const current = this.session;
    if (current !== null && !current.closed && !current.destroyed) return current;
    const session = connect(this.config.baseUrl, this.ca === undefined ? {} : { ca: this.ca });
    const forget = (): void => {
      if (this.session === session) this.session = null;
    };
    // A GOAWAY (Apple sends one on idle or shutdown) lets streams in flight finish; new ones need a new session.
    session.on('goaway', forget);
    session.on('close', () => {
      forget();
      this.sessions.delete(session);
    });
    // Each stream reports the failure to its own request; the session's error only ends the session.
    session.on('error', forget);
    this.session = session;
    this.sessions.add(session);
    return session;
  }
}

class ApnsTimeout extends Error {
  constructor() {
    super('timeout');
  }
}

function classify(answer: ApnsAnswer): PushResult {
  const { status, reason } = answer;
  if (status === 200) {
    const id = answer.headers['apns-id'];
    return typeof id === 'string' ? { outcome: 'sent', status, providerId: id } : { outcome: 'sent', status };
  }
  const label = reason !== '' ? reason : `HTTP ${status}`;
  if (status === 410 || (status === 400 && DEAD_TOKEN_REASONS.has(reason)))
    return { outcome: 'dead_token', status, reason: label };
  // IdleTimeout: the connection, not the notification, was at fault.
  if (
    status === 429 ||
    status >= 500 ||
    (status === 403 && reason === 'ExpiredProviderToken') ||
    reason === 'IdleTimeout'
  ) {
    const retryAfterMs = retryAfter(answer.headers['retry-after']);
    return retryAfterMs === undefined
      ? { outcome: 'retry', status, reason: label }
      : { outcome: 'retry', status, reason: label, retryAfterMs };
  }
  return { outcome: 'failed', status, reason: label };
}

/** Apple's error body is `{"reason": "..."}`; only a plain word is kept, so nothing else can leak into logs. */
function readReason(body: Buffer): string {
  if (body.length === 0) return '';
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { reason?: unknown };
    return typeof parsed.reason === 'string' && /^[A-Za-z]{1,64}$/.test(parsed.reason) ? parsed.reason : '';
  } catch {
    return '';
  }
}

function retryAfter(value: string | string[] | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^[0-9]+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** A network failure's code only: messages can carry addresses and are not needed to decide anything. */
function failureReason(error: unknown): string {
  if (error instanceof ApnsTimeout) return 'timeout';
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') return `network: ${code}`;
  if (error instanceof Error && error.message === 'adapter closed') return 'adapter closed';
  return 'network: connection lost';
}
