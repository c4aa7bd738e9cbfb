import type {
  HostDone,
  HostMe,
  HostSmsInbox,
  HostSmsPurpose,
  HostSmsSent,
  TokenReply,
} from '../../../src/contract/index.js';
import type { AuthProvider } from './auth-session.js';
import { ErrorCode, ImError, kindOf } from './errors.js';

/** Options of {@link createHostAppAuth}. */
export interface HostAppAuthOptions {
  /** The service's origin; the page must be served from it (`/app/auth` offers no CORS). */
  baseUrl: string;
  fetch?: typeof fetch;
}

/**
 * The bundled host application's sign-in (`/app/auth/*`, docs/host-app.md): phone accounts with
 * a password or an SMS code, a server-side session, and {@link HostAppAuth.authProvider} for
 * `createClient`. A real deployment's host backend replaces this; it exists for the demo, bots
 * and trials on a service with `HOST_APP_ENABLED`.
 */
export interface HostAppAuth {
  /** Sends a 6-digit code for `signup`, `login` or `reset` (HTTP 429 / `rate_limited` when asked too often). */
  sendCode(phone: string, purpose: HostSmsPurpose): Promise<HostSmsSent>;
  /** Creates the account and logs in. */
  signup(request: { phone: string; code: string; password: string; nickname: string }): Promise<HostMe>;
  /** Logs in with the password. */
  login(phone: string, password: string): Promise<HostMe>;
  /** Logs in with a `login` code. */
  loginWithCode(phone: string, code: string): Promise<HostMe>;
  /** Sets a new password with a `reset` code; every session of the account ends. */
  resetPassword(request: { phone: string; code: string; new_password: string }): Promise<HostDone>;
  /** Changes the password; the account's other sessions end. */
  changePassword(oldPassword: string, newPassword: string): Promise<HostDone>;
  /** The logged-in account; rejects with kind `auth` without a session. */
  me(): Promise<HostMe>;
  /** Ends the session. */
  logout(): Promise<HostDone>;
  /** Development only: the codes the `log` SMS driver "sent" to a number. */
  devInbox(phone: string): Promise<HostSmsInbox>;
  /** For `createClient`: the IM credential of the logged-in account. */
  authProvider: AuthProvider;
}

/**
 * The host application's client. In a browser the session is the `PHPSID` cookie the service
 * sets; elsewhere (Node, bots) no cookie jar exists, so the session ID from `Set-Cookie` is kept
 * in memory and sent as the `PHPSID` header, as native clients do.
 */
export function createHostAppAuth(options: HostAppAuthOptions): HostAppAuth {
  const fetchImpl = options.fetch ?? fetch.bind(globalThis);
  let sessionId: string | null = null;

  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query?: Record<string, string>,
  ): Promise<T> {
    const url = new URL(`/app/auth/${path}`, options.baseUrl);
    for (const [name, value] of Object.entries(query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (method === 'POST') headers['Content-Type'] = 'application/json';
    if (sessionId) headers.PHPSID = sessionId;
    let response: Response;
    try {
      response = await fetchImpl(url, {
        method,
        headers,
        credentials: 'same-origin',
        body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      });
    } catch (error) {
      throw new ImError('network', ErrorCode.NETWORK, `the service could not be reached: ${(error as Error).message}`);
    }
    remember(response);
    const envelope = (await response.json().catch(() => null)) as {
      code?: unknown;
      msg?: unknown;
      data?: unknown;
    } | null;
    if (!envelope || typeof envelope.code !== 'number')
      throw new ImError('server', 0, `HTTP ${response.status} without the {code,msg,data} envelope`, response.status);
    if (envelope.code !== 0) {
      // The host app answers 401 without a session: for the app that is "log in again".
      const kind = response.status === 401 ? 'auth' : kindOf(envelope.code, response.status);
      throw new ImError(kind, envelope.code, String(envelope.msg ?? ''), response.status);
    }
    return envelope.data as T;
  }

  /** Outside browsers, keep the session ID the service set (browsers hide `Set-Cookie` and keep the cookie). */
  function remember(response: Response): void {
    const headers = response.headers as Headers & { getSetCookie?: () => string[] };
    for (const cookie of headers.getSetCookie?.() ?? []) {
      const match = /^PHPSID=([^;]*)/.exec(cookie);
      if (match) sessionId = match[1] === '' ? null : decodeURIComponent(match[1]);
    }
  }

  return {
    sendCode: (phone, purpose) => call('POST', 'sms/send', { phone, purpose }),
    signup: (request) => call('POST', 'signup', request),
    login: (phone, password) => call('POST', 'login', { phone, password }),
    loginWithCode: (phone, code) => call('POST', 'login/sms', { phone, code }),
    resetPassword: (request) => call('POST', 'password/reset', request),
    changePassword: (oldPassword, newPassword) =>
      call('POST', 'password', { old_password: oldPassword, new_password: newPassword }),
    me: () => call('GET', 'me'),
    async logout() {
      try {
        return await call<HostDone>('POST', 'logout');
      } finally {
        sessionId = null;
      }
    },
    devInbox: (phone) => call('GET', 'dev/sms-inbox', undefined, { phone }),
    // Web sends no push fields (they are for native push matching).
    authProvider: () => call<TokenReply>('POST', 'token', {}),
  };
}
