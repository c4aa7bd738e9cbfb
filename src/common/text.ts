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
 * than `maxDepth` levels of objects and arrays, or a string (key or value) holding a lone
 * surrogate. The description starts with the path of the offending field.
 */
export function findJsonProblem(root: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (hasLoneSurrogate(value)) return `${path || 'body'}: contains invalid Unicode (a lone surrogate)`;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth)
      return `${path.split('.')[0].split('[')[0] || 'body'}: nested deeper than ${maxDepth} levels`;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((item, i) => [`[${i}]`, item])
      : Object.entries(value);
    for (const [key, item] of entries) {
      const child = key.startsWith('[') ? `${path}${key}` : path ? `${path}.${key}` : key;
      if (!key.startsWith('[') && hasLoneSurrogate(key)) return `${child}: contains invalid Unicode (a lone surrogate)`;
      stack.push({ value: item, path: child, depth: depth + 1 });
    }
  }
  return null;
}
