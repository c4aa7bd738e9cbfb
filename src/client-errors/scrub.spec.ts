import { REDACTED, Scrubber } from './scrub';

const SDK_SECRET = 'host-secret-value-0123456789abcdef';
const scrubber = new Scrubber([SDK_SECRET, 'short']);
const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjoiYSJ9.c2lnbmF0dXJlLXBhcnQ';

describe('Scrubber', () => {
  it('removes JWTs wherever they stand', () => {
    expect(scrubber.text(`failed with ${jwt} at login`)).toBe(`failed with ${REDACTED} at login`);
  });

  it('removes Bearer and Basic credentials but keeps the scheme', () => {
    expect(scrubber.text('Authorization header was Bearer abc.def-ghi')).not.toContain('abc.def-ghi');
    expect(scrubber.text('sent Basic dXNlcjpwYXNz')).toBe(`sent Basic ${REDACTED}`);
  });

  it('removes configured secrets, ignoring values too short to be one', () => {
    expect(scrubber.text(`secret ${SDK_SECRET} leaked`)).toBe(`secret ${REDACTED} leaked`);
    expect(scrubber.text('a short word')).toBe('a short word');
  });

  it.each([
    ['password=hunter2', `password=${REDACTED}`],
    ['url?user=1&token=abc123&x=2', `url?user=1&token=${REDACTED}&x=2`],
    ['login code: 482913 sent', `login code: ${REDACTED} sent`],
    ['{"password":"p@ss","name":"bob"}', `{"password":"${REDACTED}","name":"bob"}`],
    ['sms_code=1234', `sms_code=${REDACTED}`],
    ['refresh-token: zzz', `refresh-token: ${REDACTED}`],
    ['Cookie: PHPSID=abc; other=1', `Cookie: ${REDACTED}`],
  ])('removes the value of the pair in %s', (input, expected) => {
    expect(scrubber.text(input)).toBe(expected);
  });

  it('keeps pairs whose name only contains a sensitive word', () => {
    expect(scrubber.text('error_code=net.timeout barcode=5')).toBe('error_code=net.timeout barcode=5');
  });

  it('redacts sensitive keys in nested context and scrubs every string', () => {
    const context = { headers: { Authorization: 'Bearer x', cookie: 'a=b', Accept: 'json' }, note: `token=${jwt}`, list: [{ 'Set-Cookie': 'x' }], n: 3, ok: true, nil: null };
    expect(scrubber.json(context)).toEqual({
      headers: { Authorization: REDACTED, cookie: REDACTED, Accept: 'json' },
      note: `token=${REDACTED}`,
      list: [{ 'Set-Cookie': REDACTED }],
      n: 3,
      ok: true,
      nil: null,
    });
  });

  it('drops prototype keys', () => {
    const context = JSON.parse('{"__proto__":{"polluted":1},"a":1}') as Record<string, unknown>;
    const out = scrubber.json(context) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
