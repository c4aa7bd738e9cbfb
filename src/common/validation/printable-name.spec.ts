import { printableName } from './printable-name';

describe('printableName', () => {
  it('escapes lone surrogates and control characters, JSON-style', () => {
    expect(printableName('a\ud800b')).toBe('a\\ud800b');
    expect(printableName('\udfffx')).toBe('\\udfffx');
    expect(printableName('line\nbreak\u0000\u007f\u0085')).toBe('line\\u000abreak\\u0000\\u007f\\u0085');
  });

  it.each([
    ['a right-to-left override', 'a\u202eb', 'a\\u202eb'],
    ['every bidi embedding and override', '\u202a\u202b\u202c\u202d\u202e', '\\u202a\\u202b\\u202c\\u202d\\u202e'],
    ['the bidi isolates', '\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    [
      'zero-width characters and marks',
      '\u200b\u200c\u200d\u200e\u200f\u2060',
      '\\u200b\\u200c\\u200d\\u200e\\u200f\\u2060',
    ],
    ['a byte order mark and a soft hyphen', '\ufeffkey\u00ad', '\\ufeffkey\\u00ad'],
    ['line and paragraph separators', 'x\u2028\u2029y', 'x\\u2028\\u2029y'],
    ['a next-line control', 'x\u0085y', 'x\\u0085y'],
    ['a format character beyond the BMP, as its surrogate pair', 'tag\u{e0041}', 'tag\\udb40\\udc41'],
  ])('escapes %s', (_name, input, expected) => {
    expect(printableName(input)).toBe(expected);
  });

  it('keeps every other character, surrogate pairs and spaces included', () => {
    expect(printableName('content.名字😀[3]\\')).toBe('content.名字😀[3]\\');
    expect(printableName('a b\u00a0c')).toBe('a b\u00a0c');
  });

  it('gives well-formed text with nothing that hides or moves characters', () => {
    const out = printableName('x\ud83d y\udc00\u202e\u2028\u{e0001}');
    expect(/[\p{Cs}\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/u.test(out)).toBe(false);
  });
});
