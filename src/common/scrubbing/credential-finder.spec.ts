import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { CredentialFinder } from './credential-finder';
import { HOSTILE_SCRUB_INPUTS } from './hostile-inputs';
import { REDACTED, Scrubber } from './scrub';
import { undisguise } from '../../../test/helpers/undisguise';

const JWT_SECRET = 'jwt-secret-value-abcdefghijklmnopqrstuvwxyz';
const SDK_SECRET = 'host-secret-value-0123456789abcdef';
const METRICS_TOKEN = 'metrics-token-ZYXWVUTSRQ-987654';
const SECRETS = [SDK_SECRET, JWT_SECRET, METRICS_TOKEN];
const scrub = new Scrubber(SECRETS);

const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const header = b64url('{"alg":"HS256","typ":"JWT"}');
const payload = b64url('{"user_id":"u_1234","uid":"42","tv":0,"iat":1800000000,"exp":1800604800,"aud":"im-sdk"}');
const signature = createHmac('sha256', JWT_SECRET).update(`${header}.${payload}`).digest('base64url');
const token = `${header}.${payload}.${signature}`;
const headerless = `${payload}.${signature}`;

/** Every 8 characters of what would let a reader rebuild a token or know a secret (the header is public). */
const FRAGMENTS = [payload, signature, ...SECRETS].flatMap((value) =>
  Array.from({ length: value.length - 7 }, (_, i) => value.slice(i, i + 8)),
);

/** Fails when a fragment of a credential stands in `out`, as it is, undisguised, or inside Base64. */
function expectClean(out: string): void {
  const views = [out, undisguise(out)];
  for (const view of [...views]) {
    for (const blob of view.match(/[A-Za-z0-9+/_-]{16,}/g) ?? []) {
      for (let shift = 0; shift < 4; shift++) views.push(Buffer.from(blob.slice(shift), 'base64').toString('latin1'));
    }
  }
  for (const view of views)
    for (const fragment of FRAGMENTS)
      if (view.includes(fragment)) throw new Error(`"${fragment}" survives in ${JSON.stringify(out)}`);
}

const ZERO_WIDTH = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u{e0020}'];
/** `value` with one of the invisible characters after every `step` characters. */
const sprinkle = (value: string, step: number): string =>
  [...value].map((char, i) => (i % step === step - 1 ? char + ZERO_WIDTH[i % ZERO_WIDTH.length] : char)).join('');
const percentAll = (value: string): string =>
  [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** Every character percent-encoded, then the result URL-encoded again `times - 1` times (`%` becomes `%25`). */
const percentTimes = (value: string, times: number): string =>
  times === 1 ? percentAll(value) : encodeURIComponent(percentTimes(value, times - 1));
const dots = (value: string, dot: string): string => value.replace(/\./g, dot);

describe('CredentialFinder: a JWT without its header', () => {
  it.each([
    ['payload.signature', `auth failed for ${headerless} at login`],
    ['payload.signature in a query string', `GET /sdk/sync?t=${headerless}&x=1`],
    ['payload.signature in JSON', `{"token":"${headerless}"}`],
    ['what is left of a cut header, then payload.signature', `...XVCJ9.${headerless}`],
    ['a longer remnant of the header', `t=${header.slice(9)}.${headerless}`],
    ['a payload whose start was cut too', `…${payload.slice(30)}.${signature} expired`],
    ['payload.signature with its header split off by a newline', `${header}.\n${headerless}`],
    ['payload.signature split inside the signature', `${payload}.${signature.slice(0, 3)}\n${signature.slice(3)} done`],
    ['payload.signature inside Base64', Buffer.from(`token=${headerless}`).toString('base64')],
  ])('redacts %s', (_name, input) => {
    const out = scrub.text(input);
    expect(out).toContain(REDACTED);
    expectClean(out);
  });

  it('keeps the words around it', () => {
    expect(scrub.text(`before ${headerless} after`)).toBe(`before ${REDACTED} after`);
    expect(scrub.text(`before XVCJ9.${headerless} after`)).toBe(`before ${REDACTED} after`);
    expect(scrub.text(`before ${header}.\n${headerless}\nafter`)).toBe(`before ${REDACTED}\nafter`);
  });

  it('redacts a whole token split by a newline anywhere in its signature', () => {
    for (const cut of [1, 3, 21, 42]) {
      const at = token.length - signature.length + cut;
      const out = scrub.text(`x ${token.slice(0, at)}\n${token.slice(at)}\nat login`);
      expect(out).toBe(`x ${REDACTED}\nat login`);
    }
  });

  it.each([
    ['a package name', 'at com.example.app.MainActivity.onCreate(MainActivity.java:42)'],
    ['versions', 'sdk v1.2.3 on 10.0.19045.3803, build 2024.06.01-rc.1'],
    [
      'a long Java frame',
      'at org.springframework.beans.factory.support.AbstractAutowireCapableBeanFactoryImplementation.createBeanInstanceWithConstructorArguments(X.java:1)',
    ],
    [
      'a word holding "eyJ" before a 43-character segment',
      'at monkeyJumpHandlerFactoryBean.someExtremelyLongMethodNameThatGoesOnAndOnForever(App.kt:9)',
    ],
    ['a name and a Base64URL digest', 'bundle.min.js.47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU loaded'],
    ['an eyJ-looking segment that is no JSON', 'eyJzzzzzzzzzzzzzzzzz.47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU'],
    ['a file name ending in a digest', 'chunk-vendors.2f1a9c0b7e3d4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3.js'],
  ])('leaves %s alone', (_name, input) => {
    expect(scrub.text(input)).toBe(input);
  });
});

describe('CredentialFinder: disguised dots, invisible characters and deep percent-encoding', () => {
  const disguises: [string, (value: string) => string][] = [
    ['dots as \\u002e', (value) => dots(value, '\\u002e')],
    ['dots as \\u002E under a doubled backslash', (value) => dots(value, '\\\\u002E')],
    ['dots as \\x2e', (value) => dots(value, '\\x2e')],
    ['dots as &#46;', (value) => dots(value, '&#46;')],
    ['dots as &#x2e;', (value) => dots(value, '&#x2e;')],
    ['dots as &#46 without a semicolon', (value) => dots(value, '&#46')],
    ['dots as &#X2E;', (value) => dots(value, '&#X2E;')],
    ['dots as &amp;#46;', (value) => dots(value, '&amp;#46;')],
    ['dots as &period;', (value) => dots(value, '&period;')],
    ['dots as %25252E (three times)', (value) => dots(value, '%25252E')],
    ['dots as %252525252E (five times)', (value) => dots(value, '%252525252E')],
    ['dots as %26%2346%3B (a percent-encoded entity)', (value) => dots(value, '%26%2346%3B')],
    ['zero-width and other format characters every 5 characters', (value) => sprinkle(value, 5)],
    ['a zero-width space at each dot', (value) => dots(value, '.\u200b')],
    ['a percent-encoded zero-width space at each dot', (value) => dots(value, '.%E2%80%8B')],
    [
      'a soft hyphen written &shy; every 7 characters',
      (value) => sprinkle(value, 7).replace(/[\u200b-\u200d\u2060\ufeff\u00ad]|\u{e0020}/gu, '&shy;'),
    ],
    ['every character percent-encoded three times', (value) => percentTimes(value, 3)],
    ['every character percent-encoded six times', (value) => percentTimes(value, 6)],
  ];

  it.each(disguises)('finds a whole token with %s', (_name, disguise) => {
    const out = scrub.text(`sent ${disguise(token)} to the server`);
    expect(out).toMatch(/^sent \[REDACTED\]/);
    expectClean(out);
  });

  it.each([
    ['"', '"."'],
    ["'", "'.'"],
    ['`', '`.`'],
    ['"', '" . "'],
  ])('finds a token whose parts are each quoted with %s (joined by %s), keeping the outer quotes', (quote, join) => {
    for (const value of [token, headerless]) {
      const out = scrub.text(`sent ${quote}${value.split('.').join(join)}${quote} to the server`);
      expect(out).toBe(`sent ${quote}${REDACTED}${quote} to the server`);
      expectClean(out);
    }
  });

  it('leaves quoted words joined by dots alone', () => {
    expect(scrub.text(`config "a"."b" and 'host'.'port' as before`)).toBe(`config "a"."b" and 'host'.'port' as before`);
  });

  it.each(disguises)('finds a token without its header with %s', (_name, disguise) => {
    const out = scrub.text(`q=${disguise(headerless)}&y=2`);
    expect(out).toContain(REDACTED);
    expectClean(out);
  });

  it.each([
    ['split by zero-width characters', sprinkle(SDK_SECRET, 4)],
    ['with a soft hyphen in the middle', `${JWT_SECRET.slice(0, 10)}\u00ad${JWT_SECRET.slice(10)}`],
    ['with its dashes as \\u002d', SDK_SECRET.replace(/-/g, '\\u002d')],
    ['with its dashes as &#45;', METRICS_TOKEN.replace(/-/g, '&#45;')],
    ['percent-encoded three times', percentTimes(METRICS_TOKEN, 3)],
    ['with a byte order mark inside', `${METRICS_TOKEN.slice(0, 5)}\ufeff${METRICS_TOKEN.slice(5)}`],
  ])('finds a configured secret %s', (_name, disguised) => {
    const out = scrub.text(`key ${disguised} end`);
    expect(out).toBe(`key ${REDACTED} end`);
    expectClean(out);
  });

  it('finds a secret that itself holds an escape, written as it is or encoded', () => {
    const finder = new CredentialFinder(['odd%41secret\\u0042value']);
    for (const text of ['odd%41secret\\u0042value', 'oddAsecretBvalue', 'odd%2541secret%5Cu0042value'])
      expect(finder.has(`x ${text} y`)).toBe(true);
  });

  it.each([
    ['escapes in JSON', '{"path":"C:\\\\app\\\\main.js","note":"a\\u002eb &#46; c","x":"\\u00e9t\\u00e9"}'],
    ['HTML with entities', '<p>Tom &amp; Jerry&#46; 100&#37; &period;</p>'],
    ['a URL with percent-escapes', 'https://cdn.example.com/a%20b/c%2Ed%25252E.js?q=%E2%80%8B'],
    ['text with zero-width joiners in emoji', 'family 👨\u200d👩\u200d👧 and a soft\u00adhyphen'],
    [
      'references named like object properties',
      '&constructor; &toString; &__proto__; &hasOwnProperty; &#x110000; &#0; \\u{110000} %F4%90%80%80 %C0%AE',
    ],
  ])('leaves %s as it is', (_name, input) => {
    expect(scrub.text(input)).toBe(input);
  });

  it('never throws on a mix of escape fragments, and finds a token whose dots are disguised among them', () => {
    const fragment = fc.constantFrom(
      '%',
      '25',
      '2E',
      'E2',
      '%80',
      '\\',
      'u',
      '002e',
      '{2e}',
      'D83D',
      '\\uDE00',
      'x',
      '&',
      '#',
      'x2e',
      '46',
      ';',
      'amp;',
      'period;',
      'eyJ',
      '.',
      '\u200b',
      '\u00ad',
      '\u{e0020}',
      'A',
      ' ',
      '\n',
    );
    const noise = fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join(''));
    const dot = fc.constantFrom(
      '.',
      '%2E',
      '%25252E',
      '\\u002e',
      '&#46;',
      '&#x2e;',
      '&amp;#46;',
      '.\u200b',
      '%E2%80%8B.',
    );
    fc.assert(
      fc.property(noise, noise, dot, (before, after, disguise) => {
        const out = scrub.text(`${before} ${headerless.replace('.', disguise)} ${after}`);
        expect(out).toContain(REDACTED);
        expectClean(out);
      }),
      { seed: 20240610, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(typeof scrub.text(text)).toBe('string');
      }),
      { seed: 20240611, numRuns: 500 },
    );
  });

  it('finishes on hostile 32 KB input (timed against its target by the benchmark)', () => {
    for (const input of HOSTILE_SCRUB_INPUTS) expect(scrub.text(input).length).toBeLessThanOrEqual(input.length * 2);
  });
});
