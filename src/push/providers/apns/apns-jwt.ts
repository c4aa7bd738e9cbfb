import { KeyObject, sign } from 'node:crypto';

/**
 * Apple rejects a provider token older than an hour (ExpiredProviderToken) and one replaced more
 * often than every 20 minutes (TooManyProviderTokenUpdates): 50 minutes sits between the two.
 */
export const APNS_TOKEN_REFRESH_MS = 50 * 60_000;

export interface ApnsTokenSourceOptions {
  key: KeyObject;
  keyId: string;
  teamId: string;
  /** Unix ms; injectable for tests. */
  now?: () => number;
}

/** Makes, caches and renews the ES256 provider token sent as `authorization: bearer <token>`. */
export class ApnsTokenSource {
  private current: { token: string; issuedAt: number } | null = null;
  private readonly now: () => number;

  constructor(private readonly options: ApnsTokenSourceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The cached token, or a new one when it is 50 minutes old (or the clock went backwards). */
  token(): string {
    const now = this.now();
    if (this.current === null || now - this.current.issuedAt >= APNS_TOKEN_REFRESH_MS || now < this.current.issuedAt)
      return this.mint(now);
    return this.current.token;
  }

  /**
   * After Apple answered ExpiredProviderToken to `rejected`: a new token, unless another request
   * already replaced it. Many requests in flight get the same answer at once; renewing for each
   * would itself be refused as TooManyProviderTokenUpdates.
   */
  renewAfterRejection(rejected: string): string {
    if (this.current !== null && this.current.token !== rejected) return this.current.token;
    return this.mint(this.now());
  }

  private mint(now: number): string {
    const header = encode({ alg: 'ES256', kid: this.options.keyId });
    const claims = encode({ iss: this.options.teamId, iat: Math.floor(now / 1000) });
    const signature = sign('sha256', Buffer.from(`${header}.${claims}`), {
      key: this.options.key,
      dsaEncoding: 'ieee-p1363',
    });
    const token = `${header}.${claims}.${signature.toString('base64url')}`;
    this.current = { token, issuedAt: now };
    return token;
  }
}

function encode(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
