import { createHmac } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import { HOSTILE_SCRUB_INPUTS } from './hostile-inputs';
import { REDACTED, Scrubber, fitLength } from './scrub';

const SDK_SECRET = 'host-secret-value-0123456789abcdef';
const scrubber = new Scrubber([SDK_SECRET, 'short']);
const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjoiYSJ9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

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

  it('redacts the credential of an Authorization line, keeping its scheme and the lines after it', () => {
    const frames = '\n    at fetchJson (app.js:10:5)\n    at async load (app.js:20:3)';
    expect(scrubber.text(`Authorization: Bearer xyzabc123${frames}`)).toBe(
      `Authorization: Bearer ${REDACTED}${frames}`,
    );
    expect(scrubber.text(`authorization: Bearer ${jwt}\r${frames}`)).toBe(
      `authorization: Bearer ${REDACTED}\r${frames}`,
    );
    expect(scrubber.text(`{"Authorization":"Basic dXNlcjpwYXNz"}`)).toBe(`{"Authorization":"Basic ${REDACTED}"}`);
    expect(scrubber.text('Authorization: opaque-value-1234')).toBe(`Authorization: ${REDACTED}`);
  });

  it('never takes the next line for the value of a header or pair left empty', () => {
    const frames = '\n    at fetchJson (app.js:10:5)\n    at async load (app.js:20:3)';
    for (const line of ['Authorization:', 'authorization:   ', 'token:', 'password =', 'Cookie:', 'Bearer'])
      expect(scrubber.text(`${line}${frames}`)).toBe(`${line}${frames}`);
  });

  it.each([
    ['U+2028', '\u2028'],
    ['U+2029', '\u2029'],
    ['U+0085', '\u0085'],
    ['CR LF', '\r\n'],
    ['a written \\n', '\\n'],
    ['a written \\r\\n', '\\r\\n'],
    ['a written \\n in a double-escaped log line', '\\\\n'],
  ])('ends a credential at a line end written as %s, keeping every following line', (_name, end) => {
    const frames = `${end}    at fetchJson (app.js:10:5)${end}    at async load (app.js:20:3)`;
    expect(scrubber.text(`Authorization: Bearer x${frames}`)).toBe(`Authorization: Bearer ${REDACTED}${frames}`);
    expect(scrubber.text(`Cookie: sid=abc; lang=en${frames}`)).toBe(`Cookie: ${REDACTED}${frames}`);
    expect(scrubber.text(`token=abc123${frames}`)).toBe(`token=${REDACTED}${frames}`);
    expect(scrubber.text(`Error: Bearer abcd1234${frames}`)).toBe(`Error: Bearer ${REDACTED}${frames}`);
  });

  it('ends a header value at its closing quote, comma or brace', () => {
    expect(scrubber.text(`headers: {Authorization: 'Bearer abc123def456', Accept: 'json'}`)).toBe(
      `headers: {Authorization: 'Bearer ${REDACTED}', Accept: 'json'}`,
    );
    expect(scrubber.text(`headers: {Authorization: "Basic dXNlcjpwYXNz", Accept: "json"}`)).toBe(
      `headers: {Authorization: "Basic ${REDACTED}", Accept: "json"}`,
    );
    expect(scrubber.text('headers: {Authorization: Bearer abc123def456, Accept: json}')).toBe(
      `headers: {Authorization: Bearer ${REDACTED}, Accept: json}`,
    );
    expect(scrubber.text('[Cookie: sid=abc123]')).toBe(`[Cookie: ${REDACTED}]`);
    expect(scrubber.text('{"raw":"Authorization: Bearer abc123def456","n":1}')).toBe(
      `{"raw":"Authorization: Bearer ${REDACTED}","n":1}`,
    );
  });

  it('keeps a plain word after an authorization scheme: it is no credential', () => {
    expect(scrubber.text('Error: Bearer token expired')).toBe('Error: Bearer token expired');
    for (const word of ['token', 'auth', 'undefined', 'null', 'Token', 'NULL', 'expired.'])
      expect(scrubber.text(`missing Bearer ${word} in request`)).toBe(`missing Bearer ${word} in request`);
    // A word, then the credential: the scheme word is not taken for the credential.
    expect(scrubber.text('Bearer Token abc123def456')).toBe(`Bearer Token ${REDACTED}`);
    // Mixed case, digits or symbols, or a long run: a credential.
    for (const value of ['dXNlcjpwYXNz', 'abcd1234', 'opaque-value', 'averyveryverylongsecretword'])
      expect(scrubber.text(`sent Bearer ${value} now`)).toBe(`sent Bearer ${REDACTED} now`);
  });

  it('keeps pairs whose name only contains a sensitive word', () => {
    expect(scrubber.text('error_code=net.timeout barcode=5')).toBe('error_code=net.timeout barcode=5');
  });

  it('redacts sensitive keys in nested context and scrubs every string', () => {
    const context = {
      headers: { Authorization: 'Bearer x', cookie: 'a=b', Accept: 'json' },
      note: `token=${jwt}`,
      list: [{ 'Set-Cookie': 'x' }],
      n: 3,
      ok: true,
      nil: null,
    };
    expect(scrubber.json(context)).toEqual({
      headers: { Authorization: REDACTED, cookie: REDACTED, Accept: 'json' },
      note: `token=${REDACTED}`,
      list: [{ 'Set-Cookie': REDACTED }],
      n: 3,
      ok: true,
      nil: null,
    });
  });

  it('scrubs every secret the service is configured with, RTC_SECRET_KEY, METRICS_TOKEN, ADMIN_BOOTSTRAP_PASSWORD, SMS_HTTP_KEY and the push providers’ included', () => {
    const secrets = {
      sdkSecret: 'sdk-secret-value-0123456789',
      jwtSecret: 'jwt-secret-value-0123456789',
      callbackSecret: 'callback-secret-0123456789',
      rtcKey: 'rtc-secret-key-value-0123456789abcdef',
      metricsToken: 'metrics-token-value-0123456789',
      adminBootstrap: 'admin-bootstrap-password-0123',
      smsHttpKey: 'sms-http-key-value-0123456789',
      apnsKey: '-----BEGIN PRIVATE KEY-----MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg-----END PRIVATE KEY-----',
      xiaomiSecret: 'xiaomi-app-secret-0123456789',
    };
    const config = {
      sdkSecret: secrets.sdkSecret,
      jwtSecret: secrets.jwtSecret,
      rtc: { callbackSecret: secrets.callbackSecret, secretKey: secrets.rtcKey },
      operations: { metricsToken: secrets.metricsToken },
      admin: { bootstrap: { username: 'admin', password: secrets.adminBootstrap } },
      hostApp: { sms: { httpKey: secrets.smsHttpKey } },
      push: {
        apns: { secrets: [secrets.apnsKey] },
        fcm: null,
        huawei: null,
        xiaomi: { secrets: [secrets.xiaomiSecret] },
      },
    } as unknown as AppConfig;
    const fromConfig = Scrubber.forConfig(config);
    for (const secret of Object.values(secrets)) expect(fromConfig.text(`x ${secret} y`)).toBe(`x ${REDACTED} y`);
    const withoutMetrics = Scrubber.forConfig({
      ...config,
      operations: { metricsToken: null },
      admin: { bootstrap: null },
      hostApp: { sms: { httpKey: '' } },
      push: { apns: null, fcm: null, huawei: null, xiaomi: null },
    } as unknown as AppConfig);
    expect(withoutMetrics.text(`x ${secrets.sdkSecret} y`)).toBe(`x ${REDACTED} y`);
  });

  it('drops prototype keys', () => {
    const context = JSON.parse('{"__proto__":{"polluted":1},"a":1}') as Record<string, unknown>;
    const out = scrubber.json(context) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('Scrubber: disguised credentials (issue 10, defect 7)', () => {
  const JWT_SECRET = 'jwt-secret-value-abcdefghijklmnopqrstuvwxyz';
  const CALLBACK_SECRET = 'callback-secret-0123456789';
  const scrub = new Scrubber([SDK_SECRET, JWT_SECRET, CALLBACK_SECRET]);
  const b64url = (value: string) => Buffer.from(value).toString('base64url');
  const header = b64url('{"alg":"HS256","typ":"JWT"}');
  const payload = b64url('{"user_id":"u_1234","uid":"42","tv":0,"iat":1800000000,"exp":1800604800,"aud":"im-sdk"}');
  const token = `${header}.${payload}.${createHmac('sha256', JWT_SECRET).update(`${header}.${payload}`).digest('base64url')}`;
  const pieces = token.split('.');
  const percentAll = (value: string) =>
    [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');

  /** No form of any credential survives: literal, split, percent-decoded, base64-decoded. */
  function expectClean(out: string): void {
    const squeezed = out.replace(/\s+|\\[nrt]/g, '');
    const decoded = decodeURIComponent(decodeURIComponent(squeezed.replace(/%(?![0-9a-fA-F]{2})/g, '%25')));
    for (const view of [out, squeezed, decoded]) {
      for (const secret of [token, pieces[2], SDK_SECRET, JWT_SECRET, CALLBACK_SECRET])
        expect(view).not.toContain(secret);
    }
    for (const blob of decoded.match(/[A-Za-z0-9+/_-]{16,}/g) ?? []) {
      for (let shift = 0; shift < 4; shift++) {
        const text = Buffer.from(blob.slice(shift), 'base64').toString('latin1');
        for (const secret of [token, SDK_SECRET, JWT_SECRET, CALLBACK_SECRET]) expect(text).not.toContain(secret);
      }
    }
  }

  it.each([
    ['plain', `auth failed ${token} at login`],
    ['dots as %2E', `GET /x?t=${token.replace(/\./g, '%2E')}&y=1`],
    ['dots as %2e', `token ${token.replace(/\./g, '%2e')} expired`],
    ['fully percent-encoded', `q=${percentAll(token)} end`],
    ['doubly percent-encoded dots', `t=${token.replace(/\./g, '%252E')} end`],
    [
      'split by a newline inside the payload',
      `token ${token.slice(0, 60)}\n${token.slice(60)}\n    at login (app.js:1:2)`,
    ],
    ['split by a newline at each dot', `${pieces[0]}.\n${pieces[1]}.\n${pieces[2]}`],
    ['split by spaces and tabs', `${token.slice(0, 20)} ${token.slice(20, 90)}\t${token.slice(90)} done`],
    ['split by an escaped newline', `{"t":"${token.slice(0, 50)}\\n${token.slice(50)}"}`],
    ['base64', `blob ${Buffer.from(`Bearer ${token}`).toString('base64')} end`],
    ['base64url', `blob=${b64url(`{"token":"${token}"}`)}`],
    [
      'base64 wrapped at 76 characters',
      Buffer.from(`x-token: ${token}`)
        .toString('base64')
        .replace(/(.{76})/g, '$1\n'),
    ],
    ['base64 glued to a word', `header:abc${Buffer.from(token).toString('base64')}`],
    ['the SDK secret', `user ${SDK_SECRET}`],
    ['the SDK secret percent-encoded', `user ${percentAll(SDK_SECRET)}`],
    [
      'the JWT secret in base64 at each offset',
      ['', 'a', 'ab'].map((p) => Buffer.from(`${p}${JWT_SECRET}`).toString('base64')).join(' '),
    ],
    ['the callback secret in base64url inside a larger blob', b64url(`prefix-bytes:${CALLBACK_SECRET}:suffix`)],
    ['the callback secret split by a newline', `${CALLBACK_SECRET.slice(0, 9)}\n${CALLBACK_SECRET.slice(9)}`],
  ])('removes a credential given %s', (_name, input) => {
    const out = scrub.text(input);
    expect(out).toContain(REDACTED);
    expectClean(out);
  });

  it('keeps the words around a split token', () => {
    expect(scrub.text(`before ${token.slice(0, 60)}\n${token.slice(60)}\nafter`)).toBe(`before ${REDACTED}\nafter`);
    expect(scrub.text(`a ${token.replace(/\./g, '%2E')} b`)).toBe(`a ${REDACTED} b`);
  });

  it('leaves ordinary stack traces, URLs and base64 alone', () => {
    const stack =
      'TypeError: x is undefined\n    at Object.fn (/app/node_modules/pkg/lib/file.js:10:17)\n    at https://cdn.example.com/app.min.js?v=%20abc:1:2';
    expect(scrub.text(stack)).toBe(stack);
    const image = Buffer.from('just some ordinary bytes of an image, nothing secret in here at all').toString('base64');
    expect(scrub.text(image)).toBe(image);
  });

  it('finds credentials for fields that refuse them instead', () => {
    expect(scrub.hasCredential(`dev-${token}`)).toBe(true);
    expect(scrub.hasCredential(b64url(SDK_SECRET))).toBe(true);
    expect(scrub.hasCredential('device-1234:abcd')).toBe(false);
  });

  it('fits a scrubbed value back into its field', () => {
    expect(scrub.field('pin=1 '.repeat(10).trim(), 20)).toHaveLength(20);
    expect(fitLength('😀'.repeat(5), 3)).toBe('😀'.repeat(3));
    expect(scrub.field(SDK_SECRET, 64)).toBe(REDACTED);
  });

  it('finishes on hostile 32 KB input (timed against its target by the benchmark)', () => {
    for (const input of HOSTILE_SCRUB_INPUTS) expect(scrubber.text(input).length).toBeLessThanOrEqual(input.length * 2);
  });
});
