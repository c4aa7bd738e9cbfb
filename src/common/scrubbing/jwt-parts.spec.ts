import { createHmac } from 'node:crypto';
import { REDACTED, Scrubber } from './scrub';
import { undisguise } from '../../../test/helpers/undisguise';

// A token's parts in any wrapping: the payload (a JSON object in Base64URL) goes on its own, and a
// signature-shaped run near it goes with it, whatever quotes, brackets or escapes stand between.
const JWT_SECRET = 'jwt-secret-value-abcdefghijklmnopqrstuvwxyz';
const scrub = new Scrubber([JWT_SECRET]);
const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const header = b64url('{"alg":"HS256","typ":"JWT"}');
const payload = b64url('{"user_id":"u_1234","uid":"42","tv":0,"iat":1800000000,"exp":1800604800,"aud":"im-sdk"}');
const signature = createHmac('sha256', JWT_SECRET).update(`${header}.${payload}`).digest('base64url');
const [H, P, S] = [header, payload, signature];

/** Every 8 characters of the payload and the signature (the header is public), as they are or undisguised. */
function expectClean(out: string): void {
  for (const view of [out, undisguise(out)])
    for (const value of [P, S])
      for (let i = 0; i + 8 <= value.length; i++)
        if (view.includes(value.slice(i, i + 8))) throw new Error(`"${value.slice(i, i + 8)}" survives in ${out}`);
}

describe('Scrubber: the parts of a token in other quoted or wrapped forms', () => {
  const wrap = (open: string, close: string, join = '.'): string =>
    [H, P, S].map((part) => `${open}${part}${close}`).join(join);

  it.each([
    ['backslash-escaped quotes', wrap('\\"', '\\"')],
    ['double-escaped quotes', wrap('\\\\\\"', '\\\\\\"')],
    ['parentheses', wrap('(', ')')],
    ['quoted parts in parentheses', wrap('("', '")')],
    ['angle brackets', wrap('<', '>')],
    ['typographic double quotes', wrap('\u201c', '\u201d')],
    ['guillemets', wrap('\u00ab', '\u00bb')],
    ['typographic single quotes', wrap('\u2018', '\u2019')],
    ['string concatenation', wrap('"', '"', ' + "." + ')],
    ['an array', `[${wrap('"', '"', ',')}]`],
    ['an object', `{"h":"${H}","p":"${P}","s":"${S}"}`],
    [
      'an escaped object in a JSON log line',
      `{"msg":"{\\"header\\":\\"${H}\\",\\"payload\\":\\"${P}\\",\\"signature\\":\\"${S}\\"}"}`,
    ],
    ['an object with the signature first', `{"signature":"${S}","payload":"${P}"}`],
    ['payload and signature only, space-separated', `token ${P} ${S} rejected`],
    ['an array with a zero-width space in every part', `[${wrap('"', '"', ',').replace(/(.{9})/g, '$1\u200b')}]`],
    ['an array, percent-encoded', encodeURIComponent(`[${wrap('"', '"', ',')}]`)],
  ])('redacts the payload and the signature given %s', (_name, form) => {
    for (const input of [form, `Error: ${form}\n    at login (app.js:1:2)`]) {
      const out = scrub.text(input);
      expect(out).toContain(REDACTED);
      expectClean(out);
    }
  });

  it('removes only the parts, keeping what wraps them', () => {
    expect(scrub.text(`(${H}).(${P}).(${S}) at x`)).toBe(`(${REDACTED}).(${REDACTED}).(${REDACTED}) at x`);
    expect(scrub.text(`t=["${P}","${S}"], next`)).toBe(`t=["${REDACTED}","${REDACTED}"], next`);
    expect(scrub.text(`\u201c${P}\u201d.\u201c${S}\u201d done`)).toBe(
      `\u201c${REDACTED}\u201d.\u201c${REDACTED}\u201d done`,
    );
    expect(scrub.text(`payload ${P} at login`)).toBe(`payload ${REDACTED} at login`);
  });

  it('redacts a payload standing alone, not only near a signature', () => {
    expect(scrub.text(`claims=${P}; retry`)).toBe(`claims=${REDACTED}; retry`);
    expect(scrub.text(`claims \\"${P}\\" dropped`)).toBe(`claims \\"${REDACTED}\\" dropped`);
  });

  it.each([
    ['a git SHA beside a build ID', `build 3f9c2e7a1b3d5f6e8a0c4d2b1a9f8e7d6c5b4a39 at main.js:1:2`],
    ['a SHA-256 build ID', `build_id=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08`],
    [
      'a long identifier after a word holding "eyJ"',
      'at monkeyJumpHandler (AbstractAutowireCapableBeanFactoryImplementation.java:1)',
    ],
    ['an eyJ run that is no JSON, then a digest', 'eyJzzzzzzzzzzzzzzzzz "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU"'],
  ])('leaves %s alone', (_name, input) => {
    expect(scrub.text(input)).toBe(input);
  });

  it('keeps a hex digest near a payload (no signature is all hexadecimal)', () => {
    const sha = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
    expect(scrub.text(`claims ${P} build ${sha}`)).toBe(`claims ${REDACTED} build ${sha}`);
  });

  it('redacts the parts of a token given as separate strings of a JSON array or object', () => {
    const context = {
      list: [H, P, S],
      pieces: { h: H, p: P, s: S },
      keyed: { [P]: S },
      other: ['x', 'Ab'.repeat(21)],
    };
    const out = scrub.json(context);
    expect(out).toEqual({
      list: [REDACTED, REDACTED, REDACTED],
      pieces: { h: REDACTED, p: REDACTED, s: REDACTED },
      keyed: { [REDACTED]: REDACTED },
      other: ['x', 'Ab'.repeat(21)],
    });
  });

  it('does not reach a signature-shaped run far from any payload', () => {
    const far = `claims ${P}${' at frame'.repeat(20)} ${S.replace(/./g, 'k')}`;
    expect(scrub.text(far)).toBe(far.replace(P, REDACTED));
  });
});
