/**
 * Content-type sniffing from the bytes themselves. The client's Content-Type and file name
 * are never consulted: what is stored and served is what the bytes are.
 */

/** The image types an `image` upload may be; the only types served inline. */
export const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'] as const;
export type ImageMimeType = (typeof IMAGE_MIME_TYPES)[number];

export const TEXT_MIME_TYPE = 'text/plain';
export const BINARY_MIME_TYPE = 'application/octet-stream';

export function isImageMimeType(mime: string): mime is ImageMimeType {
  return (IMAGE_MIME_TYPES as readonly string[]).includes(mime);
}

function bytesAt(data: Buffer, offset: number, expected: readonly number[]): boolean {
  if (data.length < offset + expected.length) return false;
  return expected.every((byte, i) => data[offset + i] === byte);
}

function asciiAt(data: Buffer, offset: number, expected: string): boolean {
  return bytesAt(
    data,
    offset,
    [...expected].map((c) => c.charCodeAt(0)),
  );
}

/** "BM", reserved bytes zero and a known DIB header size: plain text starting with "BM" is not a bitmap. */
function isBmp(data: Buffer): boolean {
  if (data.length < 26 || !asciiAt(data, 0, 'BM')) return false;
  if (data.readUInt32LE(6) !== 0) return false;
  return [12, 40, 52, 56, 64, 108, 124].includes(data.readUInt32LE(14));
}

/** An MPEG-1/2/2.5 Layer III frame header (no ID3 tag in front). */
function isMp3Frame(data: Buffer): boolean {
  if (data.length < 4 || data[0] !== 0xff || (data[1] & 0xe0) !== 0xe0) return false;
  const version = (data[1] >> 3) & 0x03;
  const layer = (data[1] >> 1) & 0x03;
  const bitrate = (data[2] >> 4) & 0x0f;
  const sampleRate = (data[2] >> 2) & 0x03;
  return version !== 1 && layer === 1 && bitrate !== 0 && bitrate !== 15 && sampleRate !== 3;
}

const AUDIO_MP4_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ']);
/** HEIF/AVIF still images share the ISO container; they are not video and not an accepted image. */
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis']);

function isoMediaType(data: Buffer): string | null {
  if (data.length < 12 || !asciiAt(data, 4, 'ftyp') || data.readUInt32BE(0) < 8) return null;
  const brand = data.toString('latin1', 8, 12);
  if (AUDIO_MP4_BRANDS.has(brand)) return 'audio/mp4';
  if (HEIF_BRANDS.has(brand)) return BINARY_MIME_TYPE;
  if (brand === 'qt  ') return 'video/quicktime';
  return 'video/mp4';
}

// C0 controls other than tab, line feed, form feed, carriage return and escape; and DEL.
const BINARY_BYTES = new Uint8Array(256);
for (let b = 0; b < 0x20; b++) BINARY_BYTES[b] = [0x09, 0x0a, 0x0c, 0x0d, 0x1b].includes(b) ? 0 : 1;
BINARY_BYTES[0x7f] = 1;

/** Valid UTF-8 (an optional BOM allowed) without NUL or other binary control bytes. */
export function isUtf8Text(data: Buffer): boolean {
  for (let i = 0; i < data.length; i++) if (BINARY_BYTES[data[i]]) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
}

/** The MIME type of the bytes; `application/octet-stream` when nothing is recognized. */
export function sniffMimeType(data: Buffer): string {
  if (bytesAt(data, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (bytesAt(data, 0, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (asciiAt(data, 0, 'GIF87a') || asciiAt(data, 0, 'GIF89a')) return 'image/gif';
  if (asciiAt(data, 0, 'RIFF') && asciiAt(data, 8, 'WEBP')) return 'image/webp';
  if (asciiAt(data, 0, 'RIFF') && asciiAt(data, 8, 'WAVE')) return 'audio/wav';
  if (isBmp(data)) return 'image/bmp';
  if (asciiAt(data, 0, '%PDF-')) return 'application/pdf';
  if (
    asciiAt(data, 0, 'PK') &&
    (bytesAt(data, 2, [0x03, 0x04]) || bytesAt(data, 2, [0x05, 0x06]) || bytesAt(data, 2, [0x07, 0x08]))
  )
    return 'application/zip';
  if (bytesAt(data, 0, [0x1f, 0x8b, 0x08])) return 'application/gzip';
  const iso = isoMediaType(data);
  if (iso) return iso;
  if (asciiAt(data, 0, 'OggS')) return 'audio/ogg';
  if (asciiAt(data, 0, 'ID3') || isMp3Frame(data)) return 'audio/mpeg';
  if (isUtf8Text(data)) return TEXT_MIME_TYPE;
  return BINARY_MIME_TYPE;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/bmp': '.bmp',
  'audio/wav': '.wav',
  'application/pdf': '.pdf',
  'application/zip': '.zip',
  'application/gzip': '.gz',
  'audio/mp4': '.m4a',
  'video/mp4': '.mp4',
  'video/quicktime': '.mov',
  'audio/ogg': '.ogg',
  'audio/mpeg': '.mp3',
  'text/plain': '.txt',
};

/** A file-name extension for a sniffed type ('' when there is none). */
export function extensionFor(mime: string): string {
  return EXTENSIONS[mime] ?? '';
}

/** The Content-Type header for a stored type: text is always UTF-8. */
export function contentTypeFor(mime: string): string {
  return mime === TEXT_MIME_TYPE ? 'text/plain; charset=utf-8' : mime;
}
