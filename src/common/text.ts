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

/** Returns the path of the first string (key or value) holding a lone surrogate, or null. */
export function findLoneSurrogate(value: unknown, path = ''): string | null {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findLoneSurrogate(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const child = path ? `${path}.${key}` : key;
      if (hasLoneSurrogate(key)) return child;
      const found = findLoneSurrogate(item, child);
      if (found) return found;
    }
  }
  return null;
}
