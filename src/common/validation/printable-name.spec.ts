import { printableName } from './printable-name';

describe('printableName', () => {
  it('escapes lone surrogates and control characters, JSON-style', () => {
    expect(printableName('a\ud800b')).toBe('a\\ud800b');
    expect(printableName('\udfffx')).toBe('\\udfffx');
    expect(printableName('line\nbreak\u0000\u007f\u0085')).toBe('line\\u000abreak\\u0000\\u007f\\u0085');
  });

  it('keeps every other character, surrogate pairs included', () => {
    expect(printableName('content.名字😀[3]\\')).toBe('content.名字😀[3]\\');
  });

  it('gives well-formed text', () => {
    expect(/\p{Cs}/u.test(printableName('x\ud83d y\udc00'))).toBe(false);
  });
});
