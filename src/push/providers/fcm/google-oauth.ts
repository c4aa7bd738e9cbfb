import { createPrivateKey, KeyObject, sign } from 'node:crypto';
import * as https from 'node:https';
import { retryAfterMs as retryAfter } from '../provider-answers';

export const FIREBASE_MESSAGING_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/** Why no access token could be had; secret-free (never the assertion, the key or a token). */
export class GoogleOAuthError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** What the token endpoint granted. */
export interface GrantedToken {
  accessToken: string;
  expiresInSeconds: number;
}

/** Exchanges a signed assertion for a token; rejects with a GoogleOAuthError. */
export type TokenExchange = (tokenUri: string, assertion: string) => Promise<GrantedToken>;

export interface ServiceAccountTokenOptions {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | null;
  tokenUri: string;
  exchange: TokenExchange;
  now?: () => number;
}

// Google's tokens live an hour; asking five minutes early keeps a send from racing the expiry.
const REFRESH_MARGIN_MS = 5 * 60 * 1000;
const ASSERTION_LIFETIME_SECONDS = 3600;

/**
 * A service account's OAuth2 access token (the JWT-bearer grant, RFC 7523), cached until five
 * minutes before it expires. Concurrent callers share one exchange in flight.
 */
export class ServiceAccountTokenSource {
  private readonly key: KeyObject;
  private readonly now: () => number;
  private cached: { token: string; refreshAt: number } | null = null;
  private inFlight: Promise<string> | null = null;

  constructor(private readonly options: ServiceAccountTokenOptions) {
    this.key = createPrivateKey(options.privateKey);
    this.now = options.now ?? Date.now;
  }

  /** A valid access token, from the cache or a fresh exchange. Rejects with a GoogleOAuthError. */
  getToken(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    if (!this.inFlight) {
      this.inFlight = this.refresh().finally(() => {
        this.inFlight = null;
      });
    }
    return this.inFlight;
  }

  /**
   * Drops the cached token after FCM refused it (revoked, or the clocks disagree). Only when it is
   * still the cached one: of several sends refused together, the first triggers one refresh.
   */
  invalidate(rejected: string): void {
    if (this.cached?.token === rejected) this.cached = null;
  }

  private async refresh(): Promise<string> {
    const issuedAt = this.now();
    const granted = await this.options.exchange(this.options.tokenUri, this.assertion(issuedAt));
    const lifetimeMs = granted.expiresInSeconds * 1000;
    // A token shorter-lived than twice the margin (not Google's, but a proxy's) is still reused for half its life.
    const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2);
    this.cached = { token: granted.accessToken, refreshAt: issuedAt + lifetimeMs - margin };
    return granted.accessToken;
  }

  /** The signed JWT: RS256 over {iss, scope, aud, iat, exp}. */
  assertion(nowMs: number): string {
    const iat = Math.floor(nowMs / 1000);
    const header = {
      alg: 'RS256',
      typ: 'JWT',
      ...(this.options.privateKeyId ? { kid: this.options.privateKeyId } : {}),
    };
    const claims = {
      iss: this.options.clientEmail,
      scope: FIREBASE_MESSAGING_SCOPE,
      aud: this.options.tokenUri,
      iat,
      exp: iat + ASSERTION_LIFETIME_SECONDS,
    };
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
    const signature = sign('sha256', Buffer.from(signingInput), this.key);
    return `${signingInput}.${signature.toString('base64url')}`;
  }
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

const MAX_BODY_BYTES = 64 * 1024;

/** The token exchange over `node:https` (the adapter's agent, so its extra CA and keep-alive apply). */
export function httpsTokenExchange(agent: https.Agent, timeoutMs: number, now: () => number = Date.now): TokenExchange {
  return (tokenUri, assertion) =>
    new Promise<GrantedToken>((resolve, reject) => {
      const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion });
      const payload = Buffer.from(form.toString(), 'utf8');
      let settled = false;
      const finish = (error: GoogleOAuthError | null, token?: GrantedToken): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(token as GrantedToken);
      };
      let request: ReturnType<typeof https.request>;
      try {
        request = https.request(tokenUri, {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'content-length': String(payload.length),
            accept: 'application/json',
          },
        });
      } catch {
        reject(new GoogleOAuthError('oauth: token_uri is not a usable URL', null));
        return;
      }
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_BODY_BYTES) chunks.push(chunk);
        });
        response.on('error', () => finish(new GoogleOAuthError('oauth: response interrupted', null)));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const body = Buffer.concat(chunks).toString('utf8');
          if (status !== 200) {
            finish(
              new GoogleOAuthError(
                `oauth: HTTP ${status}${describeOAuthError(body)}`,
                status,
                retryAfter(response.headers['retry-after'], now()),
              ),
            );
            return;
          }
          const granted = parseGrant(body);
          if (granted) finish(null, granted);
          else finish(new GoogleOAuthError('oauth: HTTP 200 without a usable access_token/expires_in', status));
        });
      });
      // One deadline over the whole exchange, not only socket idleness.
      const timer = setTimeout(() => {
        finish(new GoogleOAuthError(`oauth: no answer within ${timeoutMs} ms`, null));
        request.destroy();
      }, timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish(new GoogleOAuthError(`oauth: network: ${error.code ?? error.message}`, null)),
      );
      request.end(payload);
    });
}

function parseGrant(body: string): GrantedToken | null {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const expiresIn = typeof json.expires_in === 'string' ? Number(json.expires_in) : json.expires_in;
    if (typeof json.access_token !== 'string' || json.access_token === '') return null;
    if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0) return null;
    if (json.token_type !== undefined && String(json.token_type).toLowerCase() !== 'bearer') return null;
    return { accessToken: json.access_token, expiresInSeconds: expiresIn };
  } catch {
    return null;
  }
}

/** Google's `{error, error_description}`, shortened; these name the problem, never a credential. */
function describeOAuthError(body: string): string {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    const code = typeof json.error === 'string' ? json.error : '';
    const description = typeof json.error_description === 'string' ? json.error_description : '';
    const text = [code, description].filter(Boolean).join(': ').slice(0, 200);
    return text ? ` ${text}` : '';
  } catch {
    return '';
  }
}

export { retryAfter };
