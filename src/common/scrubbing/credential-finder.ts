import { findJwts } from './jwt-forms';
import { findJwtParts } from './jwt-parts';
import { Finding, Span, clipToWhole, mergeSpans } from './spans';
import { viewsOf } from './text-views';

/**
 * Finds credentials in free text, also when they are disguised the way logs, URLs, JSON and
 * HTML disguise them: JWTs (whole, or without their header, see jwt-forms) and the service's
 * own secrets, split by white space, newlines or invisible characters, with characters
 * written as percent-escapes (at any depth), backslash escapes (`\u002e`) or HTML references
 * (`&#46;`), and either of those inside Base64 or Base64URL. Every pass is linear in the
 * text: this runs on every client error, whose stack trace alone may hold 32,768 characters.
 */

/** Runs that can hold Base64 or Base64URL. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{24,}={0,2}/g;
/** Base64 blobs longer than this are not decoded (a stack trace holds no such blob). */
const MAX_DECODED_RUN = 65536;
/** Shortest form of a secret worth searching for (a secret is at least 8 characters). */
const MIN_SECRET = 8;

function findAll(text: string, needle: string, spans: Finding[]): void {
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length))
    spans.push({ start: at, end: at + needle.length, wholeStart: true, wholeEnd: true });
}

/**
 * The Base64 characters of `secret` that do not depend on what surrounds it, for each of the
 * three byte offsets it may have inside a larger blob, in both alphabets.
 */
function encodedForms(secret: string, minLength = MIN_SECRET): string[] {
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
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 43 ||
    code === 47 ||
    code === 95 ||
    code === 45
  );
}

/**
 * Widens spans found inside Base64 to the whole blob around them (padding included), so that
 * no characters encoding the secret's first or last bits are left beside the marker. Linear:
 * a blob is widened once, whatever number of spans it holds.
 */
function wholeBlobs(text: string, spans: Span[]): Finding[] {
  spans.sort((a, b) => a.start - b.start);
  const blobs: Finding[] = [];
  let coveredUntil = -1;
  for (const span of spans) {
    if (span.start < coveredUntil) continue;
    let start = span.start;
    let end = span.end;
    while (start > 0 && isBase64Char(text.charCodeAt(start - 1))) start--;
    while (end < text.length && isBase64Char(text.charCodeAt(end))) end++;
    while (end < text.length && text.charCodeAt(end) === 61) end++;
    blobs.push({ start, end, wholeStart: true, wholeEnd: true });
    coveredUntil = end;
  }
  return blobs;
}

/** What "eyJ" (the start of every JWT and of its payload) looks like inside Base64, at each byte offset. */
const ENCODED_JWT_START = encodedForms('eyJ', 3);

export class CredentialFinder {
  /** The secrets, and what each becomes in the views of a text that holds it as it is. */
  private readonly needles: string[];
  private readonly encodedSecrets: string[];

  /** `secrets`: literal values that must never be stored; those under 8 characters are ignored. */
  constructor(secrets: readonly string[]) {
    const kept = [...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET))];
    const viewed = kept.flatMap((secret) => viewsOf(secret).map((view) => view.text));
    this.needles = [...new Set([...kept, ...viewed.filter((needle) => needle.length >= MIN_SECRET)])];
    this.encodedSecrets = [...new Set(kept.flatMap((secret) => encodedForms(secret)))];
  }

  /** Where credentials stand in `text`, merged and in order. */
  find(text: string): Span[] {
    const direct: Finding[] = [];
    this.scan(text, direct, false);
    const parts = this.findParts(text);
    const views = viewsOf(text);
    if (views.length === 0) return mergeSpans([...direct, ...parts]);
    const wholeStarts = mergeSpans(direct.filter((span) => span.wholeStart));
    const wholeEnds = mergeSpans(direct.filter((span) => span.wholeEnd));
    const spans: Span[] = [...direct];
    for (const view of views) {
      const found: Finding[] = [];
      this.scan(view.text, found, true);
      for (const span of found) {
        if (span.end <= span.start) continue;
        const clipped = clipToWhole(
          { start: view.starts[span.start], end: view.ends[span.end - 1] },
          wholeStarts,
          wholeEnds,
        );
        if (clipped.end > clipped.start) spans.push(clipped);
      }
    }
    return mergeSpans([...spans, ...parts]);
  }

  /**
   * The parts of JWTs however they are wrapped (see jwt-parts), in `text` and in its views that
   * keep white space: those views never glue a following word to a part.
   */
  private findParts(text: string): Span[] {
    const parts: Span[] = [];
    findJwtParts(text, parts);
    for (const view of viewsOf(text, true)) {
      const found: Span[] = [];
      findJwtParts(view.text, found);
      for (const span of found) parts.push({ start: view.starts[span.start], end: view.ends[span.end - 1] });
    }
    return parts;
  }

  has(text: string): boolean {
    return this.find(text).length > 0;
  }

  private scan(text: string, spans: Finding[], inView: boolean): void {
    for (const needle of this.needles) findAll(text, needle, spans);
    const encoded: Finding[] = [];
    for (const form of this.encodedSecrets) findAll(text, form, encoded);
    spans.push(...wholeBlobs(text, encoded));
    findJwts(text, spans, inView);
    // Most texts hold no Base64 form of "eyJ".
    if (ENCODED_JWT_START.some((form) => text.includes(form))) this.findEncodedJwts(text, spans);
  }

  /**
   * Base64 or Base64URL blobs that decode to text holding a JWT: the whole blob goes. (A
   * secret inside Base64 is found by its encoded forms, whatever surrounds it.)
   */
  private findEncodedJwts(text: string, spans: Finding[]): void {
    BASE64_RUN.lastIndex = 0;
    for (let match = BASE64_RUN.exec(text); match; match = BASE64_RUN.exec(text)) {
      const run = match[0];
      if (run.length > MAX_DECODED_RUN || !ENCODED_JWT_START.some((form) => run.includes(form))) continue;
      // The blob may start anywhere in the run (a word glued to it): try each alignment.
      for (let shift = 0; shift < 4; shift++) {
        const decoded = Buffer.from(run.slice(shift), 'base64').toString('latin1');
        const inner: Finding[] = [];
        if (decoded.includes('eyJ')) {
          findJwts(decoded, inner, false);
          findJwtParts(decoded, inner);
        }
        if (inner.length) {
          spans.push({ start: match.index, end: match.index + run.length, wholeStart: true, wholeEnd: true });
          break;
        }
      }
    }
  }
}
