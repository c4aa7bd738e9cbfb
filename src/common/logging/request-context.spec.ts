import { traceIdOf } from './request-context';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SECRET = 'sdk-secret-0123456789abcdef-0123456789';

describe('traceIdOf', () => {
  it('keeps a well-formed client ID', () => {
    expect(traceIdOf('3f2a9c1e-7d44-4b55-9a0e-1c2d3e4f5a6b', [SECRET])).toBe('3f2a9c1e-7d44-4b55-9a0e-1c2d3e4f5a6b');
    expect(traceIdOf('android:req_42.7', [SECRET])).toBe('android:req_42.7');
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['too long', 'a'.repeat(65)],
    ['with spaces', 'a b'],
    ['with a newline (log injection)', 'abc\ninjected'],
    ['non-ASCII', 'idé'],
    ['repeated header', ['a', 'b']],
    ['JWT-shaped', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'],
    ['the secret itself', SECRET.slice(0, 40)],
    ['a long piece of the secret', SECRET.slice(3, 30)],
  ])('replaces an ID that is %s with a new UUID v4', (_name, header) => {
    const id = traceIdOf(header as string | string[] | undefined, [SECRET]);
    expect(id).toMatch(UUID_V4);
  });

  it('generates a different ID each time', () => {
    expect(traceIdOf(undefined, [])).not.toBe(traceIdOf(undefined, []));
  });
});
