import { contentDisposition, sanitizeFileName } from './file-name';

describe('sanitizeFileName', () => {
  it.each([
    ['photo.png', 'photo.png'],
    ['报告.pdf', '报告.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\notes.txt', 'notes.txt'],
    ['dir/', ''],
    ['..', ''],
    ['.', ''],
    ['  spaced.txt  ', 'spaced.txt'],
    ['a\u0000b\u0007c\u007f\u0085.txt', 'abc.txt'],
    ['invoice\u202etxt.exe', 'invoicetxt.exe'],
    ['\u2066\u2069', ''],
    ['😀.png', '😀.png'],
  ])('%j → %j', (raw, expected) => {
    expect(sanitizeFileName(raw)).toBe(expected);
  });

  it('is empty for a missing name', () => {
    expect(sanitizeFileName(undefined)).toBe('');
    expect(sanitizeFileName(null)).toBe('');
    expect(sanitizeFileName('')).toBe('');
  });

  it('keeps at most 255 characters (code points), keeping the extension', () => {
    const name = sanitizeFileName(`${'😀'.repeat(300)}.jpeg`);
    expect([...name].length).toBe(255);
    expect(name.endsWith('😀.jpeg')).toBe(true);
    expect([...sanitizeFileName('x'.repeat(400))].length).toBe(255);
    // An "extension" longer than 16 characters is not kept specially.
    expect(sanitizeFileName(`${'a'.repeat(300)}.${'b'.repeat(20)}`)).toBe('a'.repeat(255));
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('attachment', 'a b.txt')).toBe(
      `attachment; filename="a b.txt"; filename*=UTF-8''a%20b.txt`,
    );
    expect(contentDisposition('inline', '图.png')).toBe(`inline; filename="_.png"; filename*=UTF-8''%E5%9B%BE.png`);
    expect(contentDisposition('attachment', `q"\\%'(*).txt`)).toBe(
      `attachment; filename="q___'(*).txt"; filename*=UTF-8''q%22%5C%25%27%28%2A%29.txt`,
    );
  });
});
