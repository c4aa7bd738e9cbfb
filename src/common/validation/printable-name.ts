// A lone surrogate (Cs) is not text: a reply holding one is not valid UTF-8. Controls (Cc) would
// break the line a client logs the message on.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/gu;

/**
 * A field name or path as a refusal echoes it back: verbatim, except that lone surrogates and
 * control characters are written as JSON-style escapes (`\ud800`, `\u000a`), so the message
 * stays valid text and still tells the client which key it sent.
 */
export function printableName(name: string): string {
  return name.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
