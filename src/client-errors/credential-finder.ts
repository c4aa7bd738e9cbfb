/**
 * Finds credentials in free text, also when they are disguised the way logs and URLs disguise
 * them: JWTs (also split by white space or newlines, or with percent-encoded dots), the
 * service's own secrets, either of those percent-encoded (once or twice), and either of those
 * inside Base64 or Base64URL. Every pass is linear in the text: this runs on every client
 * error, whose stack trace alone may hold 32,768 characters.
 */

/** [start, end) in the scanned text. */
export interface Span {
  start: number;
  end: number;
}

/**
 * A transformed copy of the text in which character i came from the original characters
 * [starts[i], ends[i]).
 */
interface View {
  text: string;
  starts: Int32Array;
  ends: Int32Array;
}

/** Runs that can hold a JWT: Base64URL characters and dots. */
const JWT_RUN = /[A-Za-z0-9_.-]{10,}/g;
/** Runs that can hold Base64 or Base64URL. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
/** Base64 blobs longer than this are not decoded (a stack trace holds no such blob). */
const MAX_DECODED_RUN = 65536;
/** Shortest Base64 form of a secret worth searching for (a secret is at least 8 characters). */
const MIN_ENCODED_SECRET = 8;

/** Signature lengths (Base64URL characters) of the fixed-size JWS algorithms. */
const SIGNATURE_CHARS: Record<string, number> = { HS256: 43, HS384: 64, HS512: 86, ES256: 86, ES384: 128, ES512: 176, EdDSA: 86, none: 0 };

function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * The view without white space (also the escapes \n, \r, \t written out in JSON or logs) and
 * with ASCII percent-escapes decoded; null when it would equal its input. `source` maps
 * `text` to the original when `text` is itself a view.
 */
function normalise(text: string, source?: View): View | null {
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let out = '';
  let kept = 0;
  // Characters are copied in slices between the ones removed or decoded.
  let sliceStart = 0;
  const keep = (from: number, to: number): void => {
    out += text.slice(from, to);
    for (let i = from; i < to; i++, kept++) {
      starts[kept] = source ? source.starts[i] : i;
      ends[kept] = source ? source.ends[i] : i + 1;
    }
  };
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    let skip = 0;
    let byte = -1;
    if (isSpace(code)) skip = 1;
    else if (code === 92 && /[nrt]/.test(text[i + 1] ?? '')) skip = 2;
    else if (code === 37 && i + 2 < text.length && hexValue(text.charCodeAt(i + 1)) >= 0 && hexValue(text.charCodeAt(i + 2)) >= 0) {
      const value = hexValue(text.charCodeAt(i + 1)) * 16 + hexValue(text.charCodeAt(i + 2));
      if (value < 0x80) {
        skip = 3;
        if (!isSpace(value)) byte = value;
      }
    }
    if (skip === 0) {
      i++;
      continue;
    }
    keep(sliceStart, i);
    if (byte >= 0) {
      out += String.fromCharCode(byte);
      starts[kept] = source ? source.starts[i] : i;
      ends[kept] = source ? source.ends[i + 2] : i + 3;
      kept++;
    }
    i += skip;
    sliceStart = i;
  }
  if (sliceStart === 0) return null;
  keep(sliceStart, text.length);
  return { text: out, starts: starts.subarray(0, kept), ends: ends.subarray(0, kept) };
}

/** How much of a signature segment belongs to the token, when its header names a fixed-size algorithm. */
function signatureChars(header: string, segment: number): number {
  const json = Buffer.from(header, 'base64url').toString('utf8');
  // Most lookalikes are not JSON: spare them a thrown exception each.
  if (!json.endsWith('}')) return segment;
  try {
    const alg = (JSON.parse(json) as { alg?: unknown }).alg;
    const expected = typeof alg === 'string' ? SIGNATURE_CHARS[alg] : undefined;
    return expected === undefined ? segment : Math.min(expected, segment);
  } catch {
    return segment;
  }
}

/** JWT-shaped tokens: `eyJ…` header, payload and signature segments joined by dots. */
function findJwts(text: string, spans: Span[]): void {
  JWT_RUN.lastIndex = 0;
  for (let match = JWT_RUN.exec(text); match; match = JWT_RUN.exec(text)) {
    const run = match[0];
    if (!run.includes('eyJ')) continue;
    const segments = run.split('.');
    const offsets: number[] = [];
    let offset = match.index;
    for (const segment of segments) {
      offsets.push(offset);
      offset += segment.length + 1;
    }
    for (let i = 0; i + 2 < segments.length; i++) {
      const at = segments[i].indexOf('eyJ');
      if (at < 0 || segments[i].length - at < 5 || segments[i + 1].length < 2) continue;
      const header = segments[i].slice(at);
      spans.push({ start: offsets[i] + at, end: offsets[i + 2] + signatureChars(header, segments[i + 2].length) });
      i += 2;
    }
  }
}

function findAll(text: string, needle: string, spans: Span[]): void {
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) spans.push({ start: at, end: at + needle.length });
}

/**
 * The Base64 characters of `secret` that do not depend on what surrounds it, for each of the
 * three byte offsets it may have inside a larger blob, in both alphabets.
 */
function encodedForms(secret: string, minLength = MIN_ENCODED_SECRET): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    const stable = encoded.slice(first, last);
    if (stable.length < minLength) continue;
    forms.add(stable);
    forms.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

function isBase64Char(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 43 || code === 47 || code === 95 || code === 45;
}

/**
 * Widens spans found inside Base64 to the whole blob around them (padding included), so that
 * no characters encoding the secret's first or last bits are left beside the marker. Linear:
 * a blob is widened once, whatever number of spans it holds.
 */
function wholeBlobs(text: string, spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start);
  const blobs: Span[] = [];
  let coveredUntil = -1;
  for (const span of spans) {
    if (span.start < coveredUntil) continue;
    let start = span.start;
    let end = span.end;
    while (start > 0 && isBase64Char(text.charCodeAt(start - 1))) start--;
    while (end < text.length && isBase64Char(text.charCodeAt(end))) end++;
    while (end < text.length && text.charCodeAt(end) === 61) end++;
    blobs.push({ start, end });
    coveredUntil = end;
  }
  return blobs;
}

/** What "eyJ" (the start of every JWT) looks like inside Base64, at each byte offset. */
const ENCODED_JWT_START = encodedForms('eyJ', 3);

function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** Whether `span` overlaps one of `sorted` (merged, in order). */
function overlapsAny(sorted: readonly Span[], span: Span): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (sorted[middle].end <= span.start) low = middle + 1;
    else if (sorted[middle].start >= span.end) high = middle - 1;
    else return true;
  }
  return false;
}

export class CredentialFinder {
  private readonly secrets: string[];
  private readonly encodedSecrets: string[];

  /** `secrets`: literal values that must never be stored; those under 8 characters are ignored. */
  constructor(secrets: readonly string[]) {
    this.secrets = [...new Set(secrets.filter((secret) => secret.length >= 8))];
    this.encodedSecrets = [...new Set(this.secrets.flatMap(encodedForms))];
  }

  /** Where credentials stand in `text`, merged and in order. */
  find(text: string): Span[] {
    const direct: Span[] = [];
    this.scan(text, direct);
    // Only text with white space, escapes or percent signs has other views: decoded once,
    // then once more for a doubly encoded text (%252E).
    if (!/[\s%\\]/.test(text)) return mergeSpans(direct);
    const exact = mergeSpans(direct);
    const spans = [...exact];
    const once = normalise(text);
    const twice = once && once.text.includes('%') ? normalise(once.text, once) : null;
    for (const view of [once, twice]) {
      if (!view) continue;
      const found: Span[] = [];
      this.scan(view.text, found);
      for (const span of found) {
        const mapped = { start: view.starts[span.start], end: view.ends[span.end - 1] };
        // Glued words can lengthen a token's last segment in a view: what the text shows
        // as it stands is the better measure wherever both found something.
        if (!overlapsAny(exact, mapped)) spans.push(mapped);
      }
    }
    return mergeSpans(spans);
  }

  has(text: string): boolean {
    return this.find(text).length > 0;
  }

  private scan(text: string, spans: Span[]): void {
    for (const secret of this.secrets) findAll(text, secret, spans);
    const encoded: Span[] = [];
    for (const form of this.encodedSecrets) findAll(text, form, encoded);
    spans.push(...wholeBlobs(text, encoded));
    // Every JWT starts with "eyJ"; most texts hold neither it nor its Base64 forms.
    if (text.includes('eyJ')) findJwts(text, spans);
    if (ENCODED_JWT_START.some((form) => text.includes(form))) this.findEncodedJwts(text, spans);
  }

  /**
   * Base64 or Base64URL blobs that decode to text holding a JWT: the whole blob goes. (A
   * secret inside Base64 is found by its encoded forms, whatever surrounds it.)
   */
  private findEncodedJwts(text: string, spans: Span[]): void {
    BASE64_RUN.lastIndex = 0;
    for (let match = BASE64_RUN.exec(text); match; match = BASE64_RUN.exec(text)) {
      const run = match[0];
      if (run.length > MAX_DECODED_RUN || !ENCODED_JWT_START.some((form) => run.includes(form))) continue;
      // The blob may start anywhere in the run (a word glued to it): try each alignment.
      for (let shift = 0; shift < 4; shift++) {
        const decoded = Buffer.from(run.slice(shift), 'base64').toString('latin1');
        const inner: Span[] = [];
        if (decoded.includes('eyJ')) findJwts(decoded, inner);
        if (inner.length) {
          spans.push({ start: match.index, end: match.index + run.length });
          break;
        }
      }
    }
  }
}
