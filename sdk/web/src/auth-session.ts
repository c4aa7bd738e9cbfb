import { readAuthResult } from './auth-result.js';
import { ImError } from './errors.js';
import { ImAuth, ImUser } from './jwt.js';

/**
 * The host's auth provider (spec 5.8, Web form): it asks the host backend for the logged-in
 * user's credential and resolves with the `/app/sdk/token` reply, either the whole envelope
 * `{code, msg, data}` as the service sent it or its `data` alone. An envelope with a non-zero
 * `code` rejects `login()` (or the renewal) with an `ImError` carrying that `code` and `msg`.
 * A throw or rejection becomes an `ImError` too: kind `network` for a `TypeError` (fetch could
 * not reach the host backend), `auth` otherwise; an `ImError` thrown by the provider passes
 * through unchanged.
 */
export type AuthProvider = () => Promise<unknown>;

export interface AuthSessionOptions {
  provider: AuthProvider;
  /** Renew this long before expiry (ms). */
  renewAheadMs: number;
  now: () => number;
  /** The provider answered another user during renewal: the session has stopped. */
  onIdentityChanged: (previous: ImUser, next: ImUser) => void;
  /** Credentials were replaced (same user): the real-time connection takes the new token. */
  onRenewed: (auth: ImAuth) => void;
}

/**
 * The login's credential. `login` may take any identity; renewal must keep it (spec 5.5).
 * Renewals are single-flight: every caller that needs a fresh token during one renewal waits
 * for the same provider call. Each login has a generation, so replies of an earlier login can
 * be recognised and dropped (4.7 rule 6).
 */
export class AuthSession {
  private auth: ImAuth | null = null;
  private renewing: Promise<ImAuth> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private generationValue = 0;
  /** When the current credential arrived (the clock of `now`): its lifetime bounds how early it is renewed. */
  private obtainedAt = 0;

  constructor(private readonly options: AuthSessionOptions) {}

  get generation(): number {
    return this.generationValue;
  }

  get user(): ImUser | null {
    return this.auth?.user ?? null;
  }

  get active(): boolean {
    return this.auth !== null;
  }

  /** An explicit login: any identity, a new generation. */
  async login(): Promise<ImAuth> {
    this.stop();
    const generation = this.generationValue;
    const result = await this.callProvider();
    if (generation !== this.generationValue)
      throw new ImError('stale', 0, 'a newer login or logout superseded this one');
    const auth = readAuthResult(result);
    this.auth = auth;
    this.obtainedAt = this.options.now();
    this.schedule();
    return auth;
  }

  /** Ends the session: later renewals and replies of this login are dropped. */
  stop(): void {
    this.generationValue += 1;
    this.auth = null;
    this.renewing = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** A token valid now, renewed first when it is about to expire. */
  async token(): Promise<string> {
    const auth = this.current();
    if (auth.expire_at * 1000 - this.options.now() > this.aheadMs(auth)) return auth.token;
    return (await this.renew()).token;
  }

  /** The service refused the token (1101–1103): renew, once for everyone who saw it. */
  async renewAfterRefusal(refusedToken: string): Promise<string> {
    const auth = this.current();
    // Someone else's renewal already replaced the refused token.
    if (auth.token !== refusedToken) return auth.token;
    return (await this.renew()).token;
  }

  renew(): Promise<ImAuth> {
    this.current();
    this.renewing ??= this.runRenewal(this.generationValue).finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async runRenewal(generation: number): Promise<ImAuth> {
    // A failure of kind `network` leaves the session as it is (the next request renews again);
    // `auth` ends it in the client, like a refusal envelope.
    const next = readAuthResult(await this.callProvider());
    if (generation !== this.generationValue) throw new ImError('stale', 0, 'the session ended during renewal');
    const previous = this.current();
    if (next.user.user_id !== previous.user.user_id) {
      this.stop();
      this.options.onIdentityChanged(previous.user, next.user);
      throw new ImError('identity_changed', 0, 'the auth provider answered another user; the session stopped');
    }
    this.auth = { ...next, user: { ...previous.user, ...next.user } };
    this.obtainedAt = this.options.now();
    this.schedule();
    this.options.onRenewed(this.auth);
    return this.auth;
  }

  /** The provider's result; a throw or rejection becomes an ImError (see providerFailure). */
  private async callProvider(): Promise<unknown> {
    try {
      return await this.options.provider();
    } catch (error) {
      throw providerFailure(error, this.auth?.token);
    }
  }

  /** Local display only (spec 5.7): the host backend has already updated the server. */
  refreshUser(user: Partial<ImUser>): ImUser {
    const auth = this.current();
    if (user.user_id !== undefined && user.user_id !== auth.user.user_id)
      throw new ImError('rejected', 0, 'refreshCurrentUser cannot change the user ID');
    this.auth = { ...auth, user: { ...auth.user, ...user, user_id: auth.user.user_id } };
    return this.auth.user;
  }

  private current(): ImAuth {
    // Never logged in: the app called too early. Afterwards: the call belongs to a login that ended.
    if (!this.auth)
      throw this.generationValue === 0
        ? new ImError('invalid', 0, 'not logged in: call login() first')
        : new ImError('stale', 0, 'not logged in');
    return this.auth;
  }

  /**
   * How long before expiry to renew: `renewAheadMs`, but at most half the credential's lifetime,
   * so a short-lived token (TOKEN_TTL_SECONDS near renewAheadMs) is not renewed again at once.
   */
  private aheadMs(auth: ImAuth): number {
    const lifetime = auth.expire_at * 1000 - this.obtainedAt;
    return Math.min(this.options.renewAheadMs, Math.max(0, lifetime / 2));
  }

  /** Renews ahead of expiry even when nothing is sent, so the real-time connection never lapses. */
  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const auth = this.current();
    // At least a second apart: a provider that keeps answering a nearly expired token must not
    // be called in a loop (requests still renew on demand).
    const delay = Math.max(1000, auth.expire_at * 1000 - this.options.now() - this.aheadMs(auth));
    // Timers above 2^31 ms fire at once; a day-long token is renewed by the next request anyway.
    if (delay > 2 ** 31 - 1) return;
    const generation = this.generationValue;
    this.timer = setTimeout(() => {
      if (generation === this.generationValue) this.renew().catch(() => undefined);
    }, delay);
    (this.timer as { unref?: () => void }).unref?.();
  }
}

/**
 * A provider that threw or rejected. An ImError passes through unchanged: the host chose its
 * kind. `fetch` rejects with a TypeError when the host backend cannot be reached, which is no
 * verdict on the user's login (kind `network`); anything else means the provider could not
 * produce a credential (kind `auth`). The message never carries a token: the current one and
 * anything shaped like a JWT are masked.
 */
export function providerFailure(error: unknown, currentToken?: string): ImError {
  if (error instanceof ImError) return error;
  let detail = error instanceof Error ? error.message : String(error);
  if (currentToken) detail = detail.split(currentToken).join('[token]');
  detail = detail.replace(/eyJ[\w-]*\.[\w-]+\.[\w-]*/g, '[token]');
  const kind = error instanceof TypeError ? 'network' : 'auth';
  return new ImError(kind, 0, `the auth provider failed: ${detail}`, 0, { cause: error });
}
