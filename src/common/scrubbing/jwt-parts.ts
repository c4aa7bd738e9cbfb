import type { Span } from './spans';

/**
 * The parts of a JWT wherever they stand, whatever wraps or separates them (`("H").("P")`,
 * `["H","P","S"]`, `\"P\".\"S\"`, `"P" + "." + "S"`, `{"p":"P","s":"S"}`): a token is rebuilt
 * from its payload and its signature alone (the header is public, see jwt-forms), so both must
 * go, and no list of wrappings can be complete. Two rules instead:
 * - a Base64URL run that decodes to the start of a JSON object (`eyJ…` reading `{"key":`) is a
 *   header or a payload, and goes on its own;
 * - a signature-shaped run (at least 40 Base64URL characters, not all of them hexadecimal)
 *   within {@link NEAR} characters before or after such a run goes with it.
 * A git SHA or a SHA-256 written in hex is never taken for a signature: an HMAC in Base64URL is
 * all hexadecimal once in about 10^20. Linear: each `eyJ` decodes a bounded prefix, and each
 * run is measured once.
 */

/** Characters between a JSON-object run and a signature-shaped run that still tie them together. */
const NEAR = 48;
/** Shortest run of signature shape: below HS256's 43 characters, for a signature cut short. */
const MIN_SIGNATURE = 40;
/** Shortest JSON-object run: `eyJ` and enough to read `{"k":` and a little of its value. */
const MIN_OBJECT = 12;
/** Characters decoded to tell a JSON object's start: 48 bytes, a key of up to 40 characters. */
const PREFIX_CHARS = 64;
/** The start of a JSON object: a brace, then a quoted key of printable characters and its colon. */
const OBJECT_START = /^\{[ \t\r\n]*"[^"\\\p{Cc}]{1,40}"[ \t\r\n]*:/u;

function isBase64Url(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 45 ||
    code === 95
  );
}

function isHex(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 70) || (code >= 97 && code <= 102);
}

/** Whether the Base64URL run at `at` (starting `eyJ`) decodes to the start of a JSON object. */
function isObjectAt(text: string, at: number): boolean {
  let end = at + 3;
  const limit = Math.min(text.length, at + PREFIX_CHARS);
  while (end < limit && isBase64Url(text.charCodeAt(end))) end++;
  if (end - at < MIN_OBJECT) return false;
  const chars = text.slice(at, end - ((end - at) % 4));
  return OBJECT_START.test(Buffer.from(chars, 'base64url').toString('latin1'));
}

/** The runs of `text` that decode to JSON objects, in order. */
function objectRuns(text: string): Span[] {
  const runs: Span[] = [];
  let from = 0;
  for (let at = text.indexOf('eyJ'); at >= 0; at = text.indexOf('eyJ', from)) {
    if (!isObjectAt(text, at)) {
      from = at + 3;
      continue;
    }
    let end = at + 3;
    while (end < text.length && isBase64Url(text.charCodeAt(end))) end++;
    runs.push({ start: at, end });
    from = end;
  }
  return runs;
}

/** The signature-shaped runs of `text`, in order. */
function signatureRuns(text: string): Span[] {
  const runs: Span[] = [];
  for (let at = 0; at < text.length;) {
    if (!isBase64Url(text.charCodeAt(at))) {
      at++;
      continue;
    }
    let end = at;
    let hexOnly = true;
    for (; end < text.length; end++) {
      const code = text.charCodeAt(end);
      if (!isBase64Url(code)) break;
      if (hexOnly && !isHex(code)) hexOnly = false;
    }
    if (end - at >= MIN_SIGNATURE && !hexOnly) runs.push({ start: at, end });
    at = end;
  }
  return runs;
}

/** Whether `text` holds a run that decodes to a JSON object (a JWT's header or payload). */
export function holdsJwtObject(text: string): boolean {
  return objectRuns(text).length > 0;
}

/** Where the signature-shaped runs of `text` stand, for a text standing near a payload. */
export function signatureSpans(text: string): Span[] {
  return signatureRuns(text);
}

/** Pushes the token parts of `text` onto `found`: JSON-object runs, and signature-shaped runs near them. */
export function findJwtParts(text: string, found: Span[]): void {
  const objects = objectRuns(text);
  if (objects.length === 0) return;
  found.push(...objects);
  const signatures = signatureRuns(text);
  let first = 0;
  for (const object of objects) {
    while (first < signatures.length && signatures[first].end < object.start - NEAR) first++;
    for (let i = first; i < signatures.length && signatures[i].start <= object.end + NEAR; i++) {
      const signature = signatures[i];
      // The object's own run, or one that holds it (a word glued before its `eyJ`), is no signature.
      if (signature.end > object.start && signature.start < object.end) continue;
      found.push(signature);
    }
  }
}
