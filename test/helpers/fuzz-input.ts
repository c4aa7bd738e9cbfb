// Generators of bad input for the schema-driven fuzz test (test/fuzz-openapi.e2e-spec.ts).
// Values are built as JS structures in which `Raw` holds JSON text that JSON.stringify cannot
// produce (1e999, -0, 2^53+1, nesting thousands of levels deep), serialised by `toJson`.
import fc from 'fast-check';

export interface UploadForm {
  fields: Array<[string, string]>;
  files: Array<{ field: string; content: Buffer; filename: string; contentType: string }>;
}

/** JSON text inserted verbatim. */
export class Raw {
  constructor(readonly text: string) {}
}

/** Serialises without recursion limits of its own for Raw parts; `undefined` members are left out. */
export function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : toJson(item))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${members.map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  }
  if (value === undefined) return 'null';
  return JSON.stringify(value) ?? 'null';
}

/** A short description of a generated value for failure reports. */
export const describeValue = (value: unknown): string => {
  if (value instanceof Raw) return `raw(${value.text.length}) ${value.text.slice(0, 24)}`;
  if (typeof value === 'string') return `string(${value.length}) ${JSON.stringify(value.slice(0, 24))}`;
  if (value === undefined) return 'absent';
  return toJson(value).slice(0, 48);
};

/** Strings a validator must survive: lone surrogates, NUL, bidi controls, ZWJ sequences, non-characters. */
export const UNICODE_EDGES = [
  '\uD800',
  '\uDFFF',
  'a\uDC00b',
  '\uDBFF\uD800',
  '\u0000',
  'x\u0000y',
  '\u200F',
  '\u202Eevil\u202C',
  '\u2066\u2069',
  '\uFEFF',
  '\uFFFF',
  '\uFFFE',
  '\u{10FFFF}',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈',
  'e\u0301\u0301\u0301',
  '\u0085',
  '\u2028\u2029',
  '\u3000',
  '\t',
  ' ',
  '𝕏',
  '',
];

const unicodeString = fc
  .array(
    fc.oneof(
      fc.constantFrom(...UNICODE_EDGES),
      fc.string({ unit: 'binary', maxLength: 6 }),
      fc.constantFrom('a', 'Z', '0', '_', '.', '-', '/', '%'),
    ),
    { maxLength: 10 },
  )
  .map((parts) => parts.join(''));

/** A string far over every field limit (up to ~100 KB), of ASCII, emoji, NUL or surrogate halves. */
const hugeString = fc
  .record({
    length: fc.integer({ min: 257, max: 100_000 }),
    unit: fc.constantFrom('a', '😀', '\u0000', 'ab ', '\uD800', '👩‍👩‍👧‍👦', 'é'),
  })
  .map(({ length, unit }) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

/** Arrays or objects nested far beyond any sane depth. */
export const deepNesting = fc
  .record({ depth: fc.integer({ min: 33, max: 20_000 }), kind: fc.constantFrom('array', 'object', 'mixed') })
  .map(({ depth, kind }) => {
    if (kind === 'array') return new Raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    if (kind === 'object') return new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    return new Raw(`${'[{"a":'.repeat(depth)}null${'}]'.repeat(depth)}`);
  });

const NUMERIC_EXTREMES: unknown[] = [
  new Raw('1e308'),
  new Raw('-1e308'),
  new Raw('1e999'),
  new Raw('-1e999'),
  new Raw('-0'),
  new Raw('9007199254740993'),
  new Raw('-9007199254740993'),
  new Raw('1e-400'),
  new Raw('123456789012345678901234567890'),
  new Raw('1.0'),
  new Raw('1E2'),
  2147483648,
  -2147483649,
  -1,
  0,
  1.5,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_VALUE,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e308',
  '-0',
  '0x10',
  '1_000',
  ' 1',
  '01',
  '+1',
  '9'.repeat(40),
];

const shortJson = fc.jsonValue({ maxDepth: 2 });

/** Any bad value for a field; `undefined` removes the field. */
export const badValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 4 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constantFrom(...NUMERIC_EXTREMES), weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: unicodeString, weight: 4 },
  { arbitrary: hugeString, weight: 2 },
  { arbitrary: deepNesting, weight: 1 },
  { arbitrary: fc.array(shortJson, { maxLength: 5 }), weight: 2 },
  { arbitrary: fc.dictionary(fc.string({ maxLength: 6 }), shortJson, { maxKeys: 4 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'true',
      'false',
      'null',
      '[]',
      '{}',
      'undefined',
      '0',
      'admin',
      '../../etc/passwd',
      "' OR 1=1 --",
      '<script>',
    ),
    weight: 2,
  },
);

/** Whole JSON bodies that are not an object, are malformed, or abuse object semantics. */
export const badRootBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    'null',
    '[]',
    '"x"',
    '1',
    'true',
    '',
    ' ',
    '{',
    '{"a":',
    '[1,]',
    '{"a":1,}',
    "{'a':1}",
    '\uFEFF{}',
    'NaN',
    '{"a":1}{"b":2}',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"user_id":"a","user_id":{"x":1}}',
    '{"\\ud800":1}',
    '"\\ud800"',
  ),
  deepNesting.map((raw) => raw.text),
  fc.integer({ min: 1000, max: 60_000 }).map((n) => `[${'0,'.repeat(n)}0]`),
  fc.integer({ min: 100, max: 5_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  fc.constantFrom(
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    Buffer.from([0xed, 0xa0, 0x80]),
  ),
);

/** Content types and encodings a JSON endpoint may receive. */
export const odd = {
  contentType: fc.constantFrom(
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; charset=utf-8',
    'application/merge-patch+json',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/json, text/plain',
    '',
  ),
  contentEncoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'identity', 'x-unknown'),
};

/** Percent-encodes as UTF-8, writing lone surrogates as their (invalid) 3-byte forms. */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const next = text.charCodeAt(i + 1);
    if (isHigh && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(text[i]);
    }
  }
  return out;
}

/** Encoded query values (already percent-encoded): bad strings, broken escapes, long ones. */
export const badQueryValue: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: unicodeString.map(percentEncode), weight: 4 },
  {
    arbitrary: fc.constantFrom(
      '%',
      '%Z',
      '%ZZ',
      '%00',
      '%ED%A0%80',
      '%FF%FE',
      '%C0%AF',
      '+',
      '%2B',
      '%26',
      '%3D',
      '%5B%5D',
      '%E2%80%AE',
      '',
    ),
    weight: 3,
  },
  {
    arbitrary: fc.constantFrom(
      ...NUMERIC_EXTREMES.filter((v) => typeof v === 'string' || typeof v === 'number').map((v) =>
        encodeURIComponent(String(v)),
      ),
    ),
    weight: 2,
  },
  // Long, but one value stays under Node's 16 KiB header limit so that most reach the application
  // (repeated keys may pass it: the reply is then HTTP 431 with the envelope).
  {
    arbitrary: fc
      .record({
        n: fc.integer({ min: 65, max: 3_000 }),
        unit: fc.constantFrom('a', '%00', '%F0%9F%98%80', '%ED%A0%80', '%25'),
      })
      .map(({ n, unit }) => unit.repeat(n).slice(0, 12_000)),
    weight: 2,
  },
  { arbitrary: fc.string({ maxLength: 20 }).map(percentEncode), weight: 2 },
);

/** Header-safe garbage credentials (Node refuses non-Latin-1 header values client-side). */
export const badAuthorization: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Bearer  x',
    'Basic dXNlcjpwYXNz',
    'bearer x',
    'Token x',
    'Bearer a.b.c',
    'Bearer eyJhbGciOiJub25lIn0.eyJ1c2VyX2lkIjoiYSJ9.',
    '',
  ),
  fc.string({ unit: fc.constantFrom(...'abcXYZ019._-+/= '.split('')), maxLength: 300 }).map((s) => `Bearer ${s}`),
  fc.integer({ min: 1000, max: 8000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
);

/** Multipart uploads: odd files and fields through the form encoder, and hand-written broken bodies. */
export function multipartPlan(
  PNG: Buffer,
): fc.Arbitrary<{ label: string; headers: Record<string, string>; body?: Buffer; form?: UploadForm }> {
  const content = fc.oneof(
    fc.constantFrom(
      PNG,
      Buffer.alloc(0),
      Buffer.from('GIF89a'),
      PNG.subarray(0, 20),
      Buffer.concat([PNG, Buffer.from('<script>')]),
    ),
    fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
    fc.integer({ min: 100_000, max: 300_000 }).map((n) => Buffer.alloc(n, 0x41)),
  );
  const filename = fc.constantFrom(
    'a.png',
    '../../etc/passwd',
    'a\u0000b.png',
    'C:\\x\\y.png',
    '%00.png',
    'con',
    '\u202Egnp.exe',
    '👩‍👩‍👧‍👦.png',
    'x'.repeat(300),
    'a"b.png',
    '.png',
    'a;b=c.png',
  );
  const file = fc.record({
    field: fc.constantFrom('file', 'file', 'file', 'files', 'file[]', 'kind', 'FILE', 'fiéle'),
    content,
    filename,
    contentType: fc.constantFrom('image/png', 'application/octet-stream', 'text/html', 'x/y; a=b'),
  });
  const fieldValue = fc.oneof(
    fc.constantFrom('image', 'file', '', 'IMAGE', 'image ', 'x'.repeat(300)),
    fc.constantFrom(...UNICODE_EDGES),
  );
  const fields = fc.array(
    fc.tuple(fc.constantFrom('kind', 'kind', 'file', 'extra', '__proto__', 'kind[]', 'kind[a]', 'page'), fieldValue),
    { maxLength: 5 },
  );
  const boundary = 'fuzzBoundary';
  const part = (name: string, body: string, filenamePart = '') =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filenamePart}\r\n\r\n${body}\r\n`;
  const raw = fc.constantFrom(
    { label: 'no boundary', type: 'multipart/form-data', body: `${part('kind', 'image')}--${boundary}--\r\n` },
    {
      label: 'boundary mismatch',
      type: 'multipart/form-data; boundary=other',
      body: `${part('kind', 'image')}--${boundary}--\r\n`,
    },
    {
      label: 'truncated file',
      type: `multipart/form-data; boundary=${boundary}`,
      body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\u0089PNG`,
    },
    {
      label: 'part without name',
      type: `multipart/form-data; boundary=${boundary}`,
      body: `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${boundary}--\r\n`,
    },
    {
      label: 'huge part header',
      type: `multipart/form-data; boundary=${boundary}`,
      body: `${part('file', 'x', `; filename="${'a'.repeat(20_000)}"`)}--${boundary}--\r\n`,
    },
    {
      label: 'many fields',
      type: `multipart/form-data; boundary=${boundary}`,
      body: `${Array.from({ length: 50 }, (_, i) => part(`f${i}`, 'v')).join('')}--${boundary}--\r\n`,
    },
    {
      label: 'deep field name',
      type: `multipart/form-data; boundary=${boundary}`,
      body: `${part(`kind${'[a]'.repeat(500)}`, 'image')}--${boundary}--\r\n`,
    },
    {
      label: 'garbage header',
      type: `multipart/form-data; boundary=${boundary}`,
      body: `--${boundary}\r\ngarbage\r\n\r\nx\r\n--${boundary}--\r\n`,
    },
    { label: 'only the end', type: `multipart/form-data; boundary=${boundary}`, body: `--${boundary}--\r\n` },
    { label: 'empty', type: `multipart/form-data; boundary=${boundary}`, body: '' },
    { label: 'json', type: 'application/json', body: '{"kind":"image","file":"x"}' },
  );
  return fc.oneof(
    {
      arbitrary: fc.record({ files: fc.array(file, { maxLength: 2 }), fields }).map((form) => ({
        label: `form ${form.files.map((f) => `${f.field}:${f.filename.slice(0, 12)}(${f.content.length})`).join(' ')} ${form.fields.map(([k, v]) => `${k}=${v.slice(0, 12)}`).join(' ')}`,
        form,
        headers: {},
      })),
      weight: 5,
    },
    {
      arbitrary: raw.map((r) => ({
        label: `multipart ${r.label}`,
        body: Buffer.from(r.body, 'latin1'),
        headers: { 'Content-Type': r.type },
      })),
      weight: 2,
    },
  );
}

/**
 * Room callbacks: a valid event with one field broken, deep EventInfo, bad roots; signing is
 * decided by the sender (x-fuzz-sign, x-fuzz-appid), after __NOW_MS__ / __NOW_S__ are filled in.
 */
export function callbackPlan(): fc.Arbitrary<{ label: string; headers: Record<string, string>; body: string }> {
  const base = () => ({
    EventGroupId: 1,
    EventType: 103,
    CallbackTs: new Raw('__NOW_MS__'),
    EventInfo: {
      RoomId: 1234,
      EventTs: new Raw('__NOW_S__'),
      EventMsTs: new Raw('__NOW_MS__'),
      UserId: 'u_1',
      Role: 20,
      TerminalType: 3,
      UserType: 3,
      Reason: 1,
    },
  });
  const top = fc.constantFrom('EventGroupId', 'EventType', 'CallbackTs', 'EventInfo', 'extra');
  const info = fc.constantFrom('RoomId', 'EventTs', 'EventMsTs', 'UserId', 'Role', 'Reason', 'extra');
  const body = fc.oneof(
    {
      arbitrary: fc
        .tuple(top, badValue)
        .map(([k, v]) => ({ label: `callback ${k} := ${describeValue(v)}`, text: toJson({ ...base(), [k]: v }) })),
      weight: 4,
    },
    {
      arbitrary: fc.tuple(info, badValue).map(([k, v]) => ({
        label: `callback EventInfo.${k} := ${describeValue(v)}`,
        text: toJson({ ...base(), EventInfo: { ...base().EventInfo, [k]: v } }),
      })),
      weight: 4,
    },
    {
      arbitrary: deepNesting.map((v) => ({
        label: `callback EventInfo.extra deep ${v.text.length}`,
        text: toJson({ ...base(), EventInfo: { ...base().EventInfo, Extra: v } }),
      })),
      weight: 1,
    },
    {
      arbitrary: fc
        .constantFrom(102, 103, 104, 105)
        .map((type) => ({ label: `callback type ${type}`, text: toJson({ ...base(), EventType: type }) })),
      weight: 1,
    },
    {
      arbitrary: badRootBody.map((b) => ({
        label: 'callback root',
        text: Buffer.isBuffer(b) ? b.toString('latin1') : b,
      })),
      weight: 2,
    },
  );
  const sign = fc.constantFrom('valid', 'valid', 'valid', 'missing', 'wrong', 'huge', 'empty');
  const appId = fc.constantFrom('valid', 'valid', 'valid', 'valid', 'missing', 'wrong', ' 1400123456');
  return fc
    .tuple(
      body,
      sign,
      appId,
      fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/octet-stream'),
    )
    .map(([b, s, a, type]) => ({
      label: `${b.label} sign=${s} appId=${a}`,
      body: b.text,
      headers: { 'Content-Type': type, 'x-fuzz-sign': s, 'x-fuzz-appid': a },
    }));
}

/** Path parameters: signs, exponents, overflow, encoded separators and NULs, long ones. */
export function pathValue(known: Record<string, unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(
      '0',
      '-1',
      '1.5',
      '1e308',
      '9'.repeat(25),
      'abc',
      '%00',
      '..%2F..%2Fetc%2Fpasswd',
      '%2F',
      '%',
      '%ZZ',
      '%ED%A0%80',
      ' ',
      '%20',
      'null',
      `${String(known.media_id)}x`,
      `${String(known.media_id)}%00`,
    ),
    fc.string({ maxLength: 12 }).map(percentEncode),
    fc.integer({ min: 100, max: 8_000 }).map((n) => '1'.repeat(n)),
  );
}
