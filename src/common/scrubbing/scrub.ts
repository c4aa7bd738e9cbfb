import type { AppConfig } from '../../config/app-config';
import { configuredSecrets } from '../../config/secrets';
import { charLength } from '../text';
import { CredentialFinder } from './credential-finder';
import { holdsJwtObject, signatureSpans } from './jwt-parts';
import type { Span } from './spans';

/**
 * Removes what spec 4.2 forbids in stored client errors (and reports) and a server can
 * recognise: JWTs, Bearer/Basic credentials, the service's own secrets (also encoded or split,
 * see CredentialFinder), credential-style pairs such as `password=…`, `token=…` or `code=…`, and
 * credential or header keys inside `context`. Chat text cannot be told apart from other text
 * and is left to the SDKs.
 */
export const REDACTED = '[REDACTED]';

// Names whose value is a credential, with optional prefixes such as access_, sms_, x-.
const SENSITIVE_NAMES = [
  'password',
  'passwd',
  'pwd',
  'pass',
  'passcode',
  'secret',
  'client_secret',
  'sdk_secret',
  'token',
  'access_token',
  'refresh_token',
  'id_token',
  'im_token',
  'auth_token',
  'jwt',
  'code',
  'sms_code',
  'verify_code',
  'verification_code',
  'auth_code',
  'otp',
  'captcha',
  'pin',
  'api_key',
  'apikey',
  'session',
  'sessionid',
  'session_id',
  'phpsid',
  'sid',
  'cookie',
  'set_cookie',
  'authorization',
  'proxy_authorization',
  'x_api_key',
  'x_auth_token',
  'credential',
  'credentials',
  'private_key',
  'sign',
  'signature_key',
];
const SENSITIVE_KEYS = new Set(SENSITIVE_NAMES);
const NAME_ALTERNATION = [...SENSITIVE_NAMES]
  .sort((a, b) => b.length - a.length)
  .map((name) => name.replace(/_/g, '[_-]?'))
  .join('|');

// A credential ends at a line end: the next line (a stack frame) is not the credential's. Line
// ends are every Unicode line terminator, and `\n` / `\r` written as escapes in a serialised
// log line (one or more backslashes).
const LINE_ENDS = '\\r\\n\\u2028\\u2029\\u0085';
/** A run of backslashes that does not write a line end (or a tab, in a pair's value). */
const NOT_AN_ESCAPED_END = '\\\\+(?![\\\\nrt])';
// Authorization schemes: words, not credentials, so they are kept before the marker.
const SCHEMES = 'Bearer|Basic|Token|Digest|Negotiate|NTLM|DPoP';
const AUTH_SCHEME = new RegExp(`\\b(${SCHEMES})([ \\t]+)(?!\\[REDACTED\\])([A-Za-z0-9._~+/=-]{4,})`, 'gi');
/**
 * What follows a scheme as a plain word rather than a credential ("Bearer token expired",
 * "Bearer undefined"): letters only, in one case or capitalised, at most 16 of them. A real
 * credential is longer or mixes case, digits or symbols (`Basic dXNlcjpwYXNz`).
 */
const PLAIN_WORD = /^(?:[a-z]{1,16}|[A-Z][a-z]{0,15}|[A-Z]{1,16})\.?$/;
// key=value, key: value, "key":"value", ?key=value&… — the value is replaced, the key kept.
const PAIR = new RegExp(
  `(^|[^A-Za-z0-9_])(${NAME_ALTERNATION})(["']?[ \\t]*[=:][ \\t]*["']?)(?!\\[REDACTED\\]|(?:${SCHEMES})[ \\t]+\\[REDACTED\\])((?:[^\\s${LINE_ENDS}"'&;,}\\])\\\\]|${NOT_AN_ESCAPED_END})+)`,
  'gi',
);
/**
 * Request-header dumps: "Authorization: …" or "Cookie: …". A quoted value ends at its closing
 * quote; an unquoted one at a line end, a comma or a closing brace or bracket (the next entry of
 * the object it stands in), or at the quote that opened the string holding the header.
 */
const HEADER_VALUE = [
  `"[^"${LINE_ENDS}]*"`,
  `'[^'${LINE_ENDS}]*'`,
  `\`[^\`${LINE_ENDS}]*\``,
  // A marker left by an earlier pass (`Bearer [REDACTED]`) is part of the value.
  `(?:\\[REDACTED\\]|[^\\s${LINE_ENDS},}\\]\\\\]|${NOT_AN_ESCAPED_END})(?:\\[REDACTED\\]|[^${LINE_ENDS},}\\]\\\\]|${NOT_AN_ESCAPED_END})*`,
].join('|');
const HEADER_LINE = new RegExp(
  `(["'\`]?)\\b(authorization|proxy-authorization|cookie|set-cookie)([ \\t]*:[ \\t]*)(${HEADER_VALUE})`,
  'gi',
);
const SCHEME = new RegExp(`^((?:${SCHEMES})[ \\t]+)(?=\\S)`, 'i');

function redactHeader(lead: string, name: string, sep: string, value: string): string {
  let rest = '';
  const opened = /^["'`]/.test(value) && value.length >= 2 && value.endsWith(value[0]) ? value[0] : '';
  if (!opened && lead && value.includes(lead)) {
    rest = value.slice(value.indexOf(lead));
    value = value.slice(0, value.indexOf(lead));
  }
  const inner = opened ? value.slice(1, -1) : value;
  if (inner.trim() === '') return `${lead}${name}${sep}${value}${rest}`;
  const scheme = /authorization$/i.test(name) ? (SCHEME.exec(inner)?.[1] ?? '') : '';
  return `${lead}${name}${sep}${opened}${scheme}${REDACTED}${opened}${rest}`;
}

/** Replaces the credential after each authorization scheme, keeping plain words (see PLAIN_WORD). */
function redactSchemes(text: string): string {
  let out = '';
  let at = 0;
  AUTH_SCHEME.lastIndex = 0;
  for (let match = AUTH_SCHEME.exec(text); match; match = AUTH_SCHEME.exec(text)) {
    const [whole, scheme, space, value] = match;
    if (PLAIN_WORD.test(value)) {
      // The word may itself be a scheme followed by the credential ("Bearer Token abc123").
      AUTH_SCHEME.lastIndex = match.index + scheme.length + space.length;
      continue;
    }
    out += `${text.slice(at, match.index)}${scheme}${space}${REDACTED}`;
    at = match.index + whole.length;
  }
  return out + text.slice(at);
}

/**
 * How many strings (keys and values, in order) before or after one holding a JWT's header or
 * payload a signature is looked for: `[H, P, S]` and `{"h": H, "p": P, "s": S}` split a token
 * over strings that are scrubbed one by one.
 */
const NEAR_STRINGS = 4;

function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/-/g, '_');
}

function redact(value: string, spans: readonly Span[]): string {
  if (spans.length === 0) return value;
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += value.slice(at, span.start) + REDACTED;
    at = span.end;
  }
  return out + value.slice(at);
}

/**
 * Cuts a scrubbed value back to its field's limit (in code points): a marker can be longer
 * than what it replaced (`pin=1` → `pin=[REDACTED]`). Only the end is cut, so nothing that was
 * removed can come back.
 */
export function fitLength(value: string, max: number): string {
  if (value.length <= max || charLength(value) <= max) return value;
  let out = '';
  let count = 0;
  for (const char of value) {
    if (count++ === max) break;
    out += char;
  }
  return out;
}

/**
 * Redacts the signature-shaped runs of the scrubbed strings that stand within NEAR_STRINGS of a
 * sent string holding a JWT's header or payload (the payload itself is already redacted).
 */
function dropSignaturesNearPayloads(sent: readonly unknown[], scrubbed: unknown[]): void {
  let done = -1;
  for (let i = 0; i < sent.length; i++) {
    const item = sent[i];
    if (typeof item !== 'string' || !holdsJwtObject(item)) continue;
    for (let j = Math.max(done + 1, i - NEAR_STRINGS); j <= Math.min(scrubbed.length - 1, i + NEAR_STRINGS); j++) {
      const near = scrubbed[j];
      if (typeof near === 'string') scrubbed[j] = redact(near, signatureSpans(near));
      done = j;
    }
  }
}

export class Scrubber {
  private readonly finder: CredentialFinder;

  /** `secrets` are literal values that must never be stored (the service's own keys). */
  constructor(secrets: readonly string[]) {
    this.finder = new CredentialFinder(secrets);
  }

  /** The scrubber of every secret the service is configured with (see configuredSecrets). */
  static forConfig(config: AppConfig): Scrubber {
    return new Scrubber(configuredSecrets(config));
  }

  /** Whether a JWT or a configured secret, in any form the finder knows, stands in `value`. */
  hasCredential(value: string): boolean {
    return this.finder.has(value);
  }

  text(value: string): string {
    const headersDone = redact(value, this.finder.find(value)).replace(
      HEADER_LINE,
      (_m, lead: string, name: string, sep: string, header: string) => redactHeader(lead, name, sep, header),
    );
    return redactSchemes(headersDone).replace(
      PAIR,
      (_m, lead: string, name: string, sep: string) => `${lead}${name}${sep}${REDACTED}`,
    );
  }

  /** {@link text}, then cut to `max` code points. */
  field(value: string, max: number): string {
    return fitLength(this.text(value), max);
  }

  nullableField(value: string | null, max: number): string | null {
    return value === null ? null : this.field(value, max);
  }

  nullableText(value: string | null): string | null {
    return value === null ? null : this.text(value);
  }

  /** Deep copy of a JSON value with sensitive keys' values replaced and every string scrubbed. */
  json(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) {
      const out = value.map((item) => this.json(item));
      dropSignaturesNearPayloads(value, out);
      return out;
    }
    if (value !== null && typeof value === 'object') {
      // Keys and values in order, as sent and as scrubbed.
      const sent: unknown[] = [];
      const scrubbed: unknown[] = [];
      for (const [key, item] of Object.entries(value)) {
        // A "__proto__" key could rebuild prototypes wherever the record is read back.
        if (key === '__proto__') continue;
        sent.push(key, item);
        scrubbed.push(this.text(key), SENSITIVE_KEYS.has(normaliseKey(key)) ? REDACTED : this.json(item));
      }
      dropSignaturesNearPayloads(sent, scrubbed);
      const out: Record<string, unknown> = {};
      for (let i = 0; i < scrubbed.length; i += 2) out[scrubbed[i] as string] = scrubbed[i + 1];
      return out;
    }
    return value;
  }
}
