import { CallbackRejectedError } from '../common/app-error';
import { findJsonProblem } from '../common/text';

/**
 * Bounds of the EventInfo object that is stored. EventInfo itself is level 1; TRTC's room
 * events are flat (level 1 holds scalars only), so 16 leaves room for any extension without
 * letting a signed body make the stored JSON unbounded in depth.
 */
export const MAX_EVENT_INFO_DEPTH = 16;
/** The body is at most 65,536 bytes, but re-serialising can grow numbers ("1e9" → "1000000000"). */
export const MAX_EVENT_INFO_BYTES = 65536;

const CANONICAL_INTEGER = /^-?(?:0|[1-9][0-9]*)$/;

function isNumberChar(code: number): boolean {
  // 0-9 . e E + -
  return (code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45;
}

/**
 * The paths (`Key` at the top level, `Parent.Key` one level down) of the number literals
 * written with a fraction or an exponent (`103.0`, `1.7e12`). JSON.parse turns those into
 * integers, so an integer field's exact form is only visible in the text. `text` must be JSON
 * that JSON.parse accepted. One linear pass, no recursion.
 */
export function inexactIntegerPaths(text: string, maxDepth = 2): Set<string> {
  const found = new Set<string>();
  const frames: Array<{ object: boolean; path: string; key: string }> = [];
  let expectingKey = false;
  const valuePath = (): string | null => {
    const top = frames[frames.length - 1];
    if (!top) return '';
    if (frames.length > maxDepth) return null;
    if (!top.object) return `${top.path}[]`;
    return top.path ? `${top.path}.${top.key}` : top.key;
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 34) {
      // a string: skip to its closing quote, decoding it only when it is a key we track
      let end = i + 1;
      while (text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 ? 2 : 1;
      if (expectingKey) {
        if (frames.length <= maxDepth) frames[frames.length - 1].key = JSON.parse(text.slice(i, end + 1)) as string;
        expectingKey = false;
      }
      i = end;
    } else if (code === 123 || code === 91) {
      frames.push({ object: code === 123, path: valuePath() ?? '', key: '' });
      expectingKey = code === 123;
    } else if (code === 125 || code === 93) {
      frames.pop();
      expectingKey = false;
    } else if (code === 44) {
      expectingKey = frames[frames.length - 1]?.object ?? false;
    } else if (code === 45 || (code >= 48 && code <= 57)) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      if (!CANONICAL_INTEGER.test(text.slice(i, end))) {
        const path = valuePath();
        if (path !== null) found.add(path);
      }
      i = end - 1;
    }
  }
  return found;
}

/**
 * EventInfo as the JSON text that is stored, or a refusal (HTTP 403 `{"code":1}`) when it
 * cannot be stored faithfully: nested deeper than {@link MAX_EVENT_INFO_DEPTH}, holding a lone
 * surrogate in a key or a string, or longer than {@link MAX_EVENT_INFO_BYTES} once serialised.
 * The walk is iterative, so depth is checked before JSON.stringify recurses.
 */
export function storableEventInfo(info: Record<string, unknown>): string {
  const problem = findJsonProblem(info, MAX_EVENT_INFO_DEPTH);
  if (problem) throw new CallbackRejectedError(`EventInfo: ${problem}`);
  const json = JSON.stringify(info);
  if (Buffer.byteLength(json, 'utf8') > MAX_EVENT_INFO_BYTES)
    throw new CallbackRejectedError('EventInfo is too large to store');
  return json;
}
