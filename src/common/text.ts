import { printableName } from './validation/printable-name';

/**
 * Character rules shared by every validator. "Characters" are Unicode code points, so an
 * emoji counts as one character, as it does for MySQL's utf8mb4 VARCHAR lengths.
 */
export function charLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

// Cc: C0 controls, DEL and C1 controls.
const CONTROL = /\p{Cc}/u;
// A lone UTF-16 surrogate cannot be stored in utf8mb4 and is never valid text.
const LONE_SURROGATE = /\p{Cs}/u;

export function hasControlChars(value: string): boolean {
  return CONTROL.test(value);
}

export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

export function hasEdgeWhitespace(value: string): boolean {
  return value.length > 0 && value.trim() !== value;
}

/** Deepest nesting accepted in a JSON body; deeper input is refused before any recursive work. */
export const MAX_JSON_DEPTH = 32;

/**
 * Walks a parsed JSON value without recursion and describes the first problem: nesting deeper
 * than `maxDepth` levels of objects and arrays, a string (key or value) holding a lone
 * surrogate, or a number JSON cannot represent (`1e400` parses to Infinity, which would be
 * stored and sent back as null). The description starts with the path of the offending field,
 * written by printableName.
 */
export function findJsonProblem(root: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value))
        return `${printableName(path) || 'body'}: contains invalid Unicode (a lone surrogate)`;
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return `${printableName(path) || 'body'}: must be a finite number`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth)
      return `${printableName(path.split('.')[0].split('[')[0]) || 'body'}: nested deeper than ${maxDepth} levels`;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, i) => [`[${i}]`, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      const child = key.startsWith('[') ? `${path}${key}` : path ? `${path}.${key}` : key;
      if (!key.startsWith('[') && hasLoneSurrogate(key))
        return `${printableName(child)}: contains invalid Unicode (a lone surrogate)`;
      stack.push({ value: item, path: child, depth: depth + 1 });
    }
  }
  return null;
}
