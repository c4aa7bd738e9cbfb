// A lone surrogate (Cs) is not text: a reply holding one is not valid UTF-8. Controls (Cc) would
// break the line a client logs the message on, and so would line and paragraph separators (Zl,
// Zp); format characters (Cf: bidi overrides, zero-width characters, the byte order mark) would
// hide or reorder the name on screen.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const escapeUnit = (unit: number): string => `\\u${unit.toString(16).padStart(4, '0')}`;

/**
 * A field name or path as a refusal echoes it back: verbatim, except that lone surrogates,
 * control, format and line or paragraph separator characters are written as JSON-style escapes
 * (`\ud800`, `\u000a`, `\u202e`; a character beyond the BMP as its surrogate pair), so the
 * message stays valid text, shows what the client sent and still tells it which key it was.
 * The one escape for every 1004 message, HTTP and real-time alike.
 */
export function printableName(name: string): string {
  return name.replace(UNPRINTABLE, (char) => {
    let out = '';
    for (let i = 0; i < char.length; i++) out += escapeUnit(char.charCodeAt(i));
    return out;
  });
}
