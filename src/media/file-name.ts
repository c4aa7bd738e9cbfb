export const MAX_FILE_NAME_CHARS = 255;

// Controls (C0, DEL, C1), bidirectional overrides and isolates (which can disguise an
// extension, "txt.exe" shown as "exe.txt"), the BOM, and lone surrogates.
const UNSAFE = /[\p{Cc}\p{Cs}\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;
const MAX_EXTENSION_CHARS = 16;

function truncate(name: string): string {
  const chars = [...name];
  if (chars.length <= MAX_FILE_NAME_CHARS) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? [...name.slice(dot)] : [];
  if (extension.length > 1 && extension.length <= MAX_EXTENSION_CHARS) {
    return chars.slice(0, MAX_FILE_NAME_CHARS - extension.length).join('') + extension.join('');
  }
  return chars.slice(0, MAX_FILE_NAME_CHARS).join('');
}

/**
 * The client's file name as it may be stored and shown: the last path segment only, control
 * and direction-override characters removed, edge whitespace trimmed, at most 255 characters
 * (the extension is kept when shortening). '' when nothing usable remains.
 */
export function sanitizeFileName(raw: string | undefined | null): string {
  if (!raw) return '';
  const base = raw.slice(Math.max(raw.lastIndexOf('/'), raw.lastIndexOf('\\')) + 1);
  const cleaned = base.replace(UNSAFE, '').trim();
  if (cleaned === '.' || cleaned === '..') return '';
  return truncate(cleaned).trim();
}

/** RFC 8187 value: UTF-8, percent-encoded except attr-char. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A Content-Disposition header (RFC 6266) with an ASCII `filename` fallback for old clients
 * and the exact UTF-8 name in `filename*`.
 */
export function contentDisposition(type: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeExtValue(fileName)}`;
}
