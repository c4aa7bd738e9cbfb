/**
 * Removes what spec 4.2 forbids in stored client errors and a server can recognise: JWTs,
 * Bearer/Basic credentials, the service's own secrets, credential-style pairs such as
 * `password=…`, `token=…` or `code=…`, and credential or header keys inside `context`.
 * Chat text cannot be told apart from other text and is left to the SDKs.
 */
export const REDACTED = '[REDACTED]';

// Names whose value is a credential, with optional prefixes such as access_, sms_, x-.
const SENSITIVE_NAMES = [
  'password', 'passwd', 'pwd', 'pass', 'passcode', 'secret', 'client_secret', 'sdk_secret', 'token', 'access_token', 'refresh_token',
  'id_token', 'im_token', 'auth_token', 'jwt', 'code', 'sms_code', 'verify_code', 'verification_code', 'auth_code', 'otp', 'captcha',
  'pin', 'api_key', 'apikey', 'session', 'sessionid', 'session_id', 'phpsid', 'sid', 'cookie', 'set_cookie', 'authorization',
  'proxy_authorization', 'x_api_key', 'x_auth_token', 'credential', 'credentials', 'private_key', 'sign', 'signature_key',
];
const SENSITIVE_KEYS = new Set(SENSITIVE_NAMES);
const NAME_ALTERNATION = [...SENSITIVE_NAMES].sort((a, b) => b.length - a.length).map((name) => name.replace(/_/g, '[_-]?')).join('|');

const JWT = /\beyJ[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*/g;
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)[A-Za-z0-9._~+/=-]{4,}/gi;
// key=value, key: value, "key":"value", ?key=value&… — the value is replaced, the key kept.
const PAIR = new RegExp(`(^|[^A-Za-z0-9_])(${NAME_ALTERNATION})(["']?\\s*[=:]\\s*["']?)(?!\\[REDACTED\\])([^\\s"'&;,}\\])]+)`, 'gi');
// Request-header dumps: "Authorization: …" or "Cookie: …" up to the end of the line.
const HEADER_LINE = /\b(authorization|proxy-authorization|cookie|set-cookie)(\s*:\s*)[^\r\n]+/gi;

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/-/g, '_');
}

export class Scrubber {
  private readonly secrets: string[];

  /** `secrets` are literal values that must never be stored (the service's own keys). */
  constructor(secrets: readonly string[]) {
    this.secrets = secrets.filter((secret) => secret.length >= 8).sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let result = value;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return result
      .replace(JWT, REDACTED)
      .replace(HEADER_LINE, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`)
      .replace(AUTH_SCHEME, (_m, scheme: string, space: string) => `${scheme}${space}${REDACTED}`)
      .replace(PAIR, (_m, lead: string, name: string, sep: string) => `${lead}${name}${sep}${REDACTED}`);
  }

  nullableText(value: string | null): string | null {
    return value === null ? null : this.text(value);
  }

  /** Deep copy of a JSON value with sensitive keys' values replaced and every string scrubbed. */
  json(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.json(item));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        // A "__proto__" key could rebuild prototypes wherever the record is read back.
        if (key === '__proto__') continue;
        const safeKey = this.text(key);
        out[safeKey] = SENSITIVE_KEYS.has(normaliseKey(key)) ? REDACTED : this.json(item);
      }
      return out;
    }
    return value;
  }
}
