import { contentTypeFor, extensionFor, isImageMimeType, isUtf8Text, sniffMimeType } from './sniff';

const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));
const pad = (head: Buffer, size = 64): Buffer => Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length))]);

function bmpHeader(dibSize: number, reserved = 0): Buffer {
  const header = Buffer.alloc(54);
  header.write('BM', 0, 'latin1');
  header.writeUInt32LE(54, 2);
  header.writeUInt32LE(reserved, 6);
  header.writeUInt32LE(54, 10);
  header.writeUInt32LE(dibSize, 14);
  return header;
}

describe('sniffMimeType', () => {
  it.each([
    ['png', pad(bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'image/png'],
    ['jpeg', pad(bytes([0xff, 0xd8, 0xff, 0xdb])), 'image/jpeg'],
    ['gif87a', pad(bytes('GIF87a')), 'image/gif'],
    ['gif89a', pad(bytes('GIF89a')), 'image/gif'],
    ['webp', pad(bytes('RIFF', [0x20, 0, 0, 0], 'WEBPVP8L')), 'image/webp'],
    ['bmp (BITMAPINFOHEADER)', bmpHeader(40), 'image/bmp'],
    ['bmp (V5 header)', pad(bmpHeader(124), 140), 'image/bmp'],
    ['wav', pad(bytes('RIFF', [0x20, 0, 0, 0], 'WAVEfmt ')), 'audio/wav'],
    ['pdf', bytes('%PDF-1.4\n'), 'application/pdf'],
    ['zip', pad(bytes('PK', [3, 4])), 'application/zip'],
    ['empty zip', pad(bytes('PK', [5, 6])), 'application/zip'],
    ['gzip', pad(bytes([0x1f, 0x8b, 0x08])), 'application/gzip'],
    ['mp4', pad(bytes([0, 0, 0, 0x20], 'ftypmp42')), 'video/mp4'],
    ['m4a', pad(bytes([0, 0, 0, 0x20], 'ftypM4A ')), 'audio/mp4'],
    ['mov', pad(bytes([0, 0, 0, 0x14], 'ftypqt  ')), 'video/quicktime'],
    ['heic (not an accepted image)', pad(bytes([0, 0, 0, 0x18], 'ftypheic')), 'application/octet-stream'],
    ['ogg', pad(bytes('OggS', [0])), 'audio/ogg'],
    ['mp3 with ID3', pad(bytes('ID3', [3, 0])), 'audio/mpeg'],
    ['mp3 frame', pad(bytes([0xff, 0xfb, 0x90, 0x64])), 'audio/mpeg'],
    ['ascii text', bytes('hello world\n'), 'text/plain'],
    ['utf-8 text with BOM', bytes([0xef, 0xbb, 0xbf], 'x'), 'text/plain'],
    ['html (served as text)', bytes('<html><script>alert(1)</script></html>'), 'text/plain'],
    ['svg (served as text)', bytes('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'), 'text/plain'],
    ['text starting with BM', bytes('BM is not a bitmap, it is text that is long enough'), 'text/plain'],
    ['NUL bytes', bytes('abc', [0], 'def'), 'application/octet-stream'],
    ['invalid UTF-8', bytes('abc', [0xc3, 0x28]), 'application/octet-stream'],
    ['AAC ADTS (layer bits 00)', pad(bytes([0xff, 0xf1, 0x50, 0x80])), 'application/octet-stream'],
    ['truncated png signature', bytes([0x89, 0x50, 0x4e]), 'application/octet-stream'],
  ])('%s', (_name, data, mime) => {
    expect(sniffMimeType(data)).toBe(mime);
  });

  it('does not take a BMP with non-zero reserved bytes or an unknown DIB size', () => {
    expect(sniffMimeType(bmpHeader(40, 0x41414141))).not.toBe('image/bmp');
    expect(sniffMimeType(bmpHeader(41))).not.toBe('image/bmp');
  });
});

describe('helpers', () => {
  it('knows the accepted image types', () => {
    expect(isImageMimeType('image/png')).toBe(true);
    expect(isImageMimeType('image/svg+xml')).toBe(false);
    expect(isImageMimeType('text/plain')).toBe(false);
  });

  it('detects text', () => {
    expect(isUtf8Text(Buffer.from('tab\tline\r\nform\f'))).toBe(true);
    expect(isUtf8Text(Buffer.from([0x7f]))).toBe(false);
  });

  it('gives UTF-8 for text and an extension per type', () => {
    expect(contentTypeFor('text/plain')).toBe('text/plain; charset=utf-8');
    expect(contentTypeFor('image/png')).toBe('image/png');
    expect(extensionFor('image/jpeg')).toBe('.jpg');
    expect(extensionFor('application/octet-stream')).toBe('');
  });
});
