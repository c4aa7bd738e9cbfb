/**
 * Views of a text with the disguises of logs, URLs, JSON and HTML undone: white space and
 * invisible characters removed, quotes around dotted parts removed, percent-escapes, backslash escapes and HTML character
 * references decoded. Each character of a view maps back to the original characters it came
 * from, so that a credential found in a view is redacted in the text. Every pass is linear.
 */

/**
 * A transformed copy of a text in which character i came from the original characters
 * [starts[i], ends[i]).
 */
export interface View {
  text: string;
  starts: Int32Array;
  ends: Int32Array;
}

/**
 * Passes over a text. One pass undoes a percent-escape at any depth (`%25252E`), a chain of
 * `&amp;` and a run of backslashes; a further pass is only needed where encodings are mixed
 * (an HTML reference to a percent-escape, a percent-escaped backslash escape).
 */
const MAX_VIEWS = 3;

/** Anything a pass could change; a quote only beside a dot (`"header"."payload"."signature"`). */
const DISGUISE = /[\s%\\&\p{Cf}\p{Default_Ignorable_Code_Point}]|["'`]\.|\.["'`]/u;
/** The same, for views that keep white space. */
const DISGUISE_KEEPING_SPACES = /[%\\&\p{Cf}\p{Default_Ignorable_Code_Point}]|["'`]\.|\.["'`]/u;
/** Characters that do not show: format characters (Cf) and the other default-ignorable ones. */
const INVISIBLE = /^[\s\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
/** Per BMP code point: 0 not known yet, 1 shows, 2 does not. */
const invisibleBmp = new Uint8Array(0x10000);

/** Named references that stand for a character a credential can hold, or for nothing visible. */
const NAMED = new Map<string, number>(
  Object.entries({
    amp: 0x26,
    period: 0x2e,
    sol: 0x2f,
    bsol: 0x5c,
    plus: 0x2b,
    equals: 0x3d,
    lowbar: 0x5f,
    UnderBar: 0x5f,
    percnt: 0x25,
    num: 0x23,
    colon: 0x3a,
    semi: 0x3b,
    quot: 0x22,
    apos: 0x27,
    nbsp: 0xa0,
    NonBreakingSpace: 0xa0,
    shy: 0xad,
    zwj: 0x200d,
    zwnj: 0x200c,
    lrm: 0x200e,
    rlm: 0x200f,
    ZeroWidthSpace: 0x200b,
    NegativeVeryThinSpace: 0x200b,
    NegativeThinSpace: 0x200b,
    NegativeMediumSpace: 0x200b,
    NegativeThickSpace: 0x200b,
    NoBreak: 0x2060,
    af: 0x2061,
    ApplyFunction: 0x2061,
    it: 0x2062,
    InvisibleTimes: 0x2062,
    ic: 0x2063,
    InvisibleComma: 0x2063,
  }),
);
const MAX_NAME = 24;

/** A decoded character (-1: nothing, as for a quote beside a dot) and where its source ends. */
interface Decoded {
  codePoint: number;
  end: number;
}

/** White space that separates words (the byte order mark, also in `\s`, is only invisible). */
function isSpace(codePoint: number): boolean {
  if (codePoint < 0x80) return codePoint === 32 || (codePoint >= 9 && codePoint <= 13);
  return codePoint !== 0xfeff && /^\s$/u.test(String.fromCodePoint(codePoint));
}

export function isInvisible(codePoint: number): boolean {
  if (codePoint < 0x80) return codePoint === 32 || (codePoint >= 9 && codePoint <= 13);
  if (codePoint > 0xffff) return INVISIBLE.test(String.fromCodePoint(codePoint));
  if (invisibleBmp[codePoint] === 0) invisibleBmp[codePoint] = INVISIBLE.test(String.fromCharCode(codePoint)) ? 2 : 1;
  return invisibleBmp[codePoint] === 2;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

function hexPair(text: string, at: number): number {
  const high = hexValue(text.charCodeAt(at));
  const low = high < 0 ? -1 : hexValue(text.charCodeAt(at + 1));
  return low < 0 ? -1 : high * 16 + low;
}

/** Up to `max` digits of `radix` from `at`: their value and where they end. */
function digits(text: string, at: number, radix: 10 | 16, max: number): Decoded {
  let value = 0;
  let end = at;
  for (; end < text.length && end - at < max; end++) {
    const digit = radix === 16 ? hexValue(text.charCodeAt(end)) : text.charCodeAt(end) - 48;
    if (digit < 0 || digit >= radix) break;
    value = value * radix + digit;
  }
  return { codePoint: end === at ? -1 : value, end };
}

/** The byte a percent-escape stands for once every `%25` layer is undone (`%25252E` is "."). */
function percentByte(text: string, at: number): { byte: number; end: number } | null {
  if (text.charCodeAt(at) !== 37) return null;
  let byte = hexPair(text, at + 1);
  if (byte < 0) return null;
  let end = at + 3;
  for (let next = hexPair(text, end); byte === 0x25 && next >= 0; next = hexPair(text, end)) {
    byte = next;
    end += 2;
  }
  return { byte, end };
}

/** A percent-encoded character, UTF-8 sequences included (`%E2%80%8B`, a zero-width space). */
function percentChar(text: string, at: number): Decoded | null {
  const first = percentByte(text, at);
  if (!first) return null;
  const lead = first.byte;
  if (lead < 0x80) return { codePoint: lead, end: first.end };
  const extra =
    lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
  if (extra === 0) return null;
  let codePoint = lead & (0x3f >> extra);
  let end = first.end;
  for (let k = 0; k < extra; k++) {
    const next = percentByte(text, end);
    if (!next || (next.byte & 0xc0) !== 0x80) return null;
    codePoint = (codePoint << 6) | (next.byte & 0x3f);
    end = next.end;
  }
  return codePoint > 0x10ffff ? null : { codePoint, end };
}

/**
 * A backslash escape whose backslashes start at `at` and end at `letter` (a run of them:
 * JSON inside JSON doubles them): `\n`, `\r`, `\t` for white space, `\u002e`, `\u{2e}`,
 * `\x2e` and `\/` for their character; a `\uD83D\uDE00` pair for one.
 */
function escapeChar(text: string, letter: number): Decoded | null {
  const code = text.charCodeAt(letter);
  if (code === 110 || code === 114 || code === 116) return { codePoint: code === 116 ? 9 : 10, end: letter + 1 };
  if (code === 120) {
    const value = hexPair(text, letter + 1);
    return value < 0 ? null : { codePoint: value, end: letter + 3 };
  }
  if (code !== 117) return code === 47 ? { codePoint: 47, end: letter + 1 } : null;
  if (text.charCodeAt(letter + 1) === 123) {
    const braced = digits(text, letter + 2, 16, 6);
    if (braced.codePoint < 0 || braced.codePoint > 0x10ffff || text.charCodeAt(braced.end) !== 125) return null;
    return { codePoint: braced.codePoint, end: braced.end + 1 };
  }
  const unit = digits(text, letter + 1, 16, 4);
  if (unit.end !== letter + 5) return null;
  if (unit.codePoint < 0xd800 || unit.codePoint > 0xdbff) return unit;
  // A high surrogate: the low one follows as a second escape.
  let low = unit.end;
  while (text.charCodeAt(low) === 92) low++;
  if (low === unit.end || text.charCodeAt(low) !== 117) return unit;
  const second = digits(text, low + 1, 16, 4);
  if (second.end !== low + 5 || second.codePoint < 0xdc00 || second.codePoint > 0xdfff) return unit;
  return { codePoint: 0x10000 + ((unit.codePoint - 0xd800) << 10) + (second.codePoint - 0xdc00), end: second.end };
}

/** An HTML character reference (`&#46;`, `&#x2E;`, `&period;`), also under `&amp;` layers. */
function entityChar(text: string, at: number): Decoded | null {
  let pos = at + 1;
  while (text.startsWith('amp;', pos)) pos += 4;
  const layered = pos > at + 1 ? { codePoint: 0x26, end: pos } : null;
  if (text.charCodeAt(pos) === 35) {
    const hex = (text.charCodeAt(pos + 1) | 0x20) === 120;
    const number = digits(text, pos + (hex ? 2 : 1), hex ? 16 : 10, hex ? 8 : 10);
    if (number.codePoint <= 0 || number.codePoint > 0x10ffff) return layered;
    // The semicolon is optional for numeric references.
    return { codePoint: number.codePoint, end: text.charCodeAt(number.end) === 59 ? number.end + 1 : number.end };
  }
  let end = pos;
  while (end - pos < MAX_NAME && /[A-Za-z]/.test(text[end] ?? '')) end++;
  const codePoint = text.charCodeAt(end) === 59 ? NAMED.get(text.slice(pos, end)) : undefined;
  return codePoint === undefined ? layered : { codePoint, end: end + 1 };
}

/** Builds a view from slices of its source and decoded characters. */
class ViewBuilder {
  private out = '';
  private kept = 0;
  private sliceStart = 0;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;

  constructor(
    private readonly text: string,
    private readonly keepSpaces: boolean,
    private readonly source?: View,
  ) {
    this.starts = new Int32Array(text.length);
    this.ends = new Int32Array(text.length);
  }

  /** Replaces text[from, to) by `codePoint`, or by nothing when it does not show. */
  replace(from: number, to: number, codePoint: number): void {
    this.keep(this.sliceStart, from);
    if (codePoint >= 0 && (!isInvisible(codePoint) || (this.keepSpaces && isSpace(codePoint)))) {
      const chars = isInvisible(codePoint) ? ' ' : String.fromCodePoint(codePoint);
      this.out += chars;
      for (let k = 0; k < chars.length; k++, this.kept++) {
        this.starts[this.kept] = this.source ? this.source.starts[from] : from;
        this.ends[this.kept] = this.source ? this.source.ends[to - 1] : to;
      }
    }
    this.sliceStart = to;
  }

  /** The view, or null when it would equal its source. */
  finish(): View | null {
    if (this.sliceStart === 0) return null;
    this.keep(this.sliceStart, this.text.length);
    return { text: this.out, starts: this.starts.subarray(0, this.kept), ends: this.ends.subarray(0, this.kept) };
  }

  private keep(from: number, to: number): void {
    this.out += this.text.slice(from, to);
    for (let i = from; i < to; i++, this.kept++) {
      this.starts[this.kept] = this.source ? this.source.starts[i] : i;
      this.ends[this.kept] = this.source ? this.source.ends[i] : i + 1;
    }
  }
}

function isQuote(code: number): boolean {
  return code === 34 || code === 39 || code === 96;
}

/**
 * One pass over `text`; `source` maps `text` to the original when `text` is itself a view.
 * `keepSpaces`: white space (also decoded or escaped) stays a space rather than gluing the words
 * around it together.
 */
function normalise(text: string, keepSpaces: boolean, source?: View): View | null {
  const view = new ViewBuilder(text, keepSpaces, source);
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    let decoded: Decoded | null = null;
    if (code === 37) decoded = percentChar(text, i);
    else if (code === 38) decoded = entityChar(text, i);
    else if (code === 92) {
      let letter = i + 1;
      while (text.charCodeAt(letter) === 92) letter++;
      decoded = escapeChar(text, letter);
      // Kept whole when it escapes nothing: each backslash of a run is looked at once.
      if (!decoded) {
        i = letter;
        continue;
      }
    } else if (isQuote(code) && (text.charCodeAt(i + 1) === 46 || text.charCodeAt(i - 1) === 46)) {
      // Quoted parts joined by dots: the quotes go, so the parts read as one dotted run.
      decoded = { codePoint: -1, end: i + 1 };
    } else if (code <= 32 || code >= 0x80) {
      const codePoint = text.codePointAt(i) ?? code;
      if (isInvisible(codePoint) && !(keepSpaces && isSpace(codePoint)))
        decoded = { codePoint: -1, end: i + (codePoint > 0xffff ? 2 : 1) };
    }
    if (!decoded) {
      i++;
      continue;
    }
    view.replace(i, decoded.end, decoded.codePoint);
    i = decoded.end;
  }
  return view.finish();
}

/**
 * The views of `text` other than itself, each decoding what the one before left. `keepSpaces`:
 * views in which white space still separates words (only escapes and invisible characters are
 * undone), for rules that look at runs on their own (see jwt-parts).
 */
export function viewsOf(text: string, keepSpaces = false): View[] {
  const views: View[] = [];
  const disguise = keepSpaces ? DISGUISE_KEEPING_SPACES : DISGUISE;
  if (!disguise.test(text)) return views;
  for (let view = normalise(text, keepSpaces); view; view = normalise(view.text, keepSpaces, view)) {
    views.push(view);
    if (views.length === MAX_VIEWS || !disguise.test(view.text)) break;
  }
  return views;
}
