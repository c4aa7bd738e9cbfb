/**
 * Inputs built to make a backtracking pattern explode: runs of partial JWT segments, token parts
 * in wrappings (quotes, brackets, escapes) beside signature-shaped runs, nested
 * percent-encoding, escapes and invisible characters, each at the 32 KB stack-trace limit.
 * The unit specs check that the scrubber finishes on them with a sane result; the benchmark
 * (`npm run bench`, section `scrub`) times them against their target.
 */
const b64url = (value: string): string => Buffer.from(value).toString('base64url');
const header = b64url('{"alg":"HS256","typ":"JWT"}');
const claims = b64url('{"user_id":"u"}');
const signatureLike = 'Ab'.repeat(21);
const at32k = (unit: string): string => unit.repeat(Math.ceil(32768 / unit.length)).slice(0, 32768);

const UNITS = [
  'eyJ',
  'eyJa.',
  `eyJ1c2VyX2lkIjoi.${'B1'.repeat(22)} `,
  `eyJ1c2VyX2lkIjoi.${'B1'.repeat(22)}.`,
  `IiwiZXhwIjoxfQ.${'B1'.repeat(22)}.`,
  `${header}.`,
  'eyJ\u200d',
  '%25',
  `%${'25'.repeat(16383)}`,
  '%25252E',
  '%E2%2525',
  '\\u002e',
  '\\\\\\\\u',
  '\\uD800',
  '&#46;',
  '&amp;',
  '&amp;#37;25',
  '&#x',
  '&abcdefghijklmnopqrstuvwxyz',
  '\u200b',
  '\u{e0041}',
  '%5Cu002e',
  'eyJ%25\\u002e&#46;\u200b.',
  `("${claims}").("${signatureLike}") `,
  `\\"${claims}\\" + \\".\\" + \\"${signatureLike}\\",`,
  `\u00ab${claims}\u00bb ${signatureLike}\u2028`,
  `eyJ1c2VyX2lkIjoi\\n ${signatureLike}\u200b`,
  `${signatureLike} `,
];

const WHOLE = [
  'eyJ-'.repeat(8192),
  'eyJ'.repeat(10922),
  'eyJa.'.repeat(6553),
  '%2E'.repeat(10922),
  `${'A'.repeat(32767)}=`,
  'a\n'.repeat(16384),
  'token='.repeat(5461),
  claims.repeat(1638),
  `${claims} ${`${signatureLike} `.repeat(743)}`,
];

export const HOSTILE_SCRUB_INPUTS: readonly string[] = [
  ...UNITS.map((unit) => (unit.length > 1000 ? unit : at32k(unit))),
  ...WHOLE,
];
