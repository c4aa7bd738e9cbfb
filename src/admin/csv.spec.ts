import { UTF8_BOM, csvCell, csvLine, csvTime } from './csv';

describe('csv', () => {
  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('')).toBe('');
    expect(csvCell(null)).toBe('');
    expect(csvCell(12)).toBe('12');
    expect(csvCell(false)).toBe('false');
  });

  it('neutralises text a spreadsheet would run as a formula', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r'])
      expect(csvCell(`${start}SUM(A1)`).startsWith(`'`) || csvCell(`${start}SUM(A1)`).startsWith(`"'`)).toBe(true);
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('keeps Unicode as is and ends lines with CRLF', () => {
    expect(csvLine(['张三', '😀', 1])).toBe('张三,😀,1\r\n');
    expect(UTF8_BOM).toBe('\uFEFF');
    expect(csvTime(null)).toBe('');
    expect(csvTime(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
