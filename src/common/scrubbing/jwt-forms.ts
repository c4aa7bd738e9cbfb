import type { Finding } from './spans';

/**
 * JWTs in a text: whole (`header.payload.signature`) and without their header
 * (`payload.signature`, also behind what is left of a cut header, or with the start of the
 * payload cut too). The service signs with HS256 and a constant header, so a payload and its
 * signature are a whole IM token. Linear: each segment is decoded a bounded number of times,
 * and at most a bounded number of characters of it.
 */

/** Runs that can hold a JWT: Base64URL characters and dots. */
const JWT_RUN = /[A-Za-z0-9_.-]{10,}/g;

/** Signature lengths (Base64URL characters) of the fixed-size JWS algorithms. */
const SIGNATURE_CHARS: Record<string, number> = {
  HS256: 43,
  HS384: 64,
  HS512: 86,
  ES256: 86,
  ES384: 128,
  ES512: 176,
  EdDSA: 86,
  none: 0,
};
/** The shortest signature there is (HS256), and the length of the service's own. */
const HS256_CHARS = SIGNATURE_CHARS.HS256;
/** Characters after `eyJ` that make a headerless payload worth a look. */
const MIN_PAYLOAD = 10;
/** Characters of a payload remnant whose start was cut. */
const MIN_TAIL = 10;
/** Characters decoded to tell a payload's start (12 bytes: `{"user_id":"`) or end from an identifier. */
const PREFIX_CHARS = 16;
const TAIL_CHARS = 64;

/** How much of a signature segment belongs to the token when its header names a fixed-size algorithm. */
function expectedSignature(header: string): number | undefined {
  const json = Buffer.from(header, 'base64url').toString('utf8');
  // Most lookalikes are not JSON: spare them a thrown exception each.
  if (!json.endsWith('}')) return undefined;
  try {
    const alg = (JSON.parse(json) as { alg?: unknown }).alg;
    return typeof alg === 'string' ? SIGNATURE_CHARS[alg] : undefined;
  } catch {
    return undefined;
  }
}

/** Text as JSON holds it: no control characters, no invalid UTF-8. */
function isJsonText(bytes: Buffer): boolean {
  return /^[^\p{Cc}\ufffd]*$/u.test(bytes.toString('utf8'));
}

/**
 * Where a payload starts in `segment`: an `eyJ` whose first bytes read as the start of a JSON
 * object (`{"` and text), which words that merely contain "eyJ" (monkeyJump) do not.
 */
function payloadStart(segment: string): number {
  for (let at = segment.indexOf('eyJ'); at >= 0; at = segment.indexOf('eyJ', at + 3))
    if (isPayloadAt(segment, at)) return at;
  return -1;
}

function isPayloadAt(segment: string, at: number): boolean {
  if (segment.length - at < 3 + MIN_PAYLOAD || !segment.startsWith('eyJ', at)) return false;
  const chars = segment.slice(at, at + PREFIX_CHARS);
  const bytes = Buffer.from(chars.slice(0, chars.length - (chars.length % 4)), 'base64url');
  return /^\{"[\x20-\x7e]+$/.test(bytes.toString('latin1'));
}

/**
 * Whether `segment` ends like a Base64URL JSON object whose start was cut: at one of the four
 * alignments its last characters decode to text ending in `}`.
 */
function isPayloadTail(segment: string): boolean {
  const tail = segment.slice(-TAIL_CHARS);
  for (let shift = 0; shift < 4; shift++) {
    const bytes = Buffer.from(tail.slice(shift), 'base64url');
    // The window may start inside a UTF-8 character.
    let first = 0;
    while (first < 3 && first < bytes.length && (bytes[first] & 0xc0) === 0x80) first++;
    if (bytes.length - first >= 4 && bytes[bytes.length - 1] === 0x7d && isJsonText(bytes.subarray(first))) return true;
  }
  return false;
}

/**
 * Pushes the JWTs of `text` onto `found`. `inView`: the text is a view with white space
 * removed, where a following word may be glued to a signature; a headerless signature is then
 * taken as the service's (43 characters) rather than as the whole segment.
 */
export function findJwts(text: string, found: Finding[], inView: boolean): void {
  JWT_RUN.lastIndex = 0;
  for (let match = JWT_RUN.exec(text); match; match = JWT_RUN.exec(text)) {
    const run = match[0];
    const hasStart = run.includes('eyJ');
    // Without "eyJ" only a payload remnant and a signature can stand there.
    if (!run.includes('.') || (!hasStart && run.length < MIN_TAIL + 1 + HS256_CHARS)) continue;
    const segments = run.split('.');
    const offsets: number[] = [];
    let offset = match.index;
    for (const segment of segments) {
      offsets.push(offset);
      offset += segment.length + 1;
    }
    let wholeUntil = -1;
    for (let i = 0; i + 1 < segments.length; i++) {
      const at = hasStart ? segments[i].indexOf('eyJ') : -1;
      if (
        i > wholeUntil &&
        at >= 0 &&
        i + 2 < segments.length &&
        segments[i].length - at >= 5 &&
        segments[i + 1].length >= 2
      ) {
        const signature = segments[i + 2].length;
        const expected = expectedSignature(segments[i].slice(at));
        const chars = expected === undefined ? signature : Math.min(expected, signature);
        found.push({
          start: offsets[i] + at,
          end: offsets[i + 2] + chars,
          wholeStart: true,
          wholeEnd: signature >= (expected ?? HS256_CHARS),
        });
        wholeUntil = i + 2;
      }
      const signature = segments[i + 1].length;
      // A header followed by its payload is no payload followed by a signature.
      if (signature < HS256_CHARS || (hasStart && isPayloadAt(segments[i + 1], 0))) continue;
      let start = -1;
      // Its header may stand before it, split off by white space.
      let wholeStart = false;
      const payloadAt = hasStart ? payloadStart(segments[i]) : -1;
      if (payloadAt >= 0) {
        start = offsets[i] + payloadAt;
        // The header before it, or what is left of a header cut at its start, goes with it.
        if (payloadAt === 0 && i > 0) {
          start = offsets[i - 1] + Math.max(0, payloadStart(segments[i - 1]));
          wholeStart = true;
        }
      } else if (segments[i].length >= MIN_TAIL && isPayloadTail(segments[i])) {
        start = offsets[i];
      }
      if (start >= 0)
        found.push({
          start,
          end: offsets[i + 1] + (inView ? Math.min(signature, HS256_CHARS) : signature),
          wholeStart,
          wholeEnd: true,
        });
    }
  }
}
