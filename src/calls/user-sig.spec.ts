import { createHmac } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { decodeUserSig, genUserSig, internalUserIdOf, providerUserId, userSigHmac } from './user-sig';

// The example SDKSecretKey of Tencent's own reference repositories (TLSSigAPITest.js): a public test value.
const KEY = '5bd2850fff3ecb11d7c805251c51ee463a25727bddc2385f3fa8bfee1bb93b5e';
const NOW = 1700000000; // 2023-11-14T22:13:20Z

/*
 * Vectors produced by Tencent's reference implementations, not by this code:
 *  - NODE_*: github.com/tencentyun/tls-sig-api-v2-node @4a1a603, TLSSigAPIv2.js unmodified,
 *    run with Node 20.20.2 as
 *      Date.now = () => 1700000000 * 1000;
 *      new (require('./TLSSigAPIv2').Api)(appId, KEY).genUserSig(userId, expire)
 *  - PYTHON_U42: github.com/tencentyun/tls-sig-api-v2-python @5326113, TLSSigAPIv2.py
 *    unmodified, run with Python 3.11 as
 *      time.time = lambda: 1700000000.0
 *      TLSSigAPIv2.TLSSigAPIv2(1400123456, KEY).genUserSig('u42', 86400)
 *    (Python writes the JSON with spaces and `TLS.expire` before `TLS.time`.)
 *  - the TLS.sig values, also by `printf '<four lines>' | openssl dgst -sha256 -hmac KEY -binary | base64`.
 * Deflate output is not portable (Node's bundled zlib picks matches differently from system
 * zlib, and by CPU), so the strings are compared after inflating, never byte for byte.
 */
const NODE_XIAOJUN =
  'eJyrVgrxCdYrSy1SslIy0jNQ0gHzM1NS80oy0zLBwhWZiflZpXlQqeKU7MSCgswUJStDEwMogMiUZOamKlkZmqOKplYUZBaBxE1NTY3gosWZ6UpWSj5ljuYp*p7l5unBxXnF2WVhVU4uAf7Ozi5JpX7O5SbuHuUhzgZJmQXaTia2SrUAohcx8g__';
const NODE_U42 =
  'eJyrVgrxCdYrSy1SslIy0jNQ0gHzM1NS80oy0zLBwqUmRlDh4pTsxIKCzBQlK0MTAwNDI2MTUzOITElmbqqSlaG5ARRARFMrCjKLUpWsLMxMYELFmelKVkphlgauTilB5iYpxsUeOYbuhjku5bmebp6h4WFZac5upjkGlr76JSWRpT6Rtkq1AMYVLpw_';
const PYTHON_U42 =
  'eJyrVgrxCdYrSy1SslJQMtIzUNJRAItkpqTmlWSmZUIkSk2MYBLFKdmJBQWZKUBhQxMDA0MjYxNTM6hcakVBZlEqUMbCDCgFFSzJzAUJGZobQAHMoMx0kNFhlgauTilB5iYpxsUeOYbuhjku5bmebp6h4WFZac5upjkGlr76JSWRpT6Rtkq1AC6gL-w_';
const SIG_XIAOJUN = 'LvA7d/Iw7gSsnskvVzBDPOCCDbuNCw4GHwTC0bip+B4=';
const SIG_U42 = 'V90EBdR74d3sHl1G1lDwmIFIUWVjfCF5l09M/ttYuLY=';

const U42 = { sdkAppId: 1400123456, key: KEY, identifier: 'u42', expireSeconds: 86400, now: NOW };
const XIAOJUN = { sdkAppId: 1400000000, key: KEY, identifier: 'xiaojun', expireSeconds: 15552000, now: NOW };

/** The published algorithm written out by hand, sharing nothing with the code under test. */
function handMade(appId: number, key: string, id: string, expire: number, time: number): { json: string; sig: string } {
  const hmac = createHmac('sha256', key)
    .update(`TLS.identifier:${id}\nTLS.sdkappid:${appId}\nTLS.time:${time}\nTLS.expire:${expire}\n`)
    .digest('base64');
  const json = `{"TLS.ver":"2.0","TLS.identifier":"${id}","TLS.sdkappid":${appId},"TLS.time":${time},"TLS.expire":${expire},"TLS.sig":"${hmac}"}`;
  const sig = deflateSync(Buffer.from(json))
    .toString('base64')
    .split('+')
    .join('*')
    .split('/')
    .join('-')
    .split('=')
    .join('_');
  return { json, sig };
}

function inflated(userSig: string): string {
  return inflateSync(
    Buffer.from(userSig.split('*').join('+').split('-').join('/').split('_').join('='), 'base64'),
  ).toString();
}

describe('genUserSig', () => {
  it("writes exactly the document of Tencent's node reference (same JSON text, same field order)", () => {
    expect(inflated(genUserSig(U42))).toBe(inflated(NODE_U42));
    expect(inflated(genUserSig(XIAOJUN))).toBe(inflated(NODE_XIAOJUN));
    expect(inflated(NODE_U42)).toBe(
      `{"TLS.ver":"2.0","TLS.identifier":"u42","TLS.sdkappid":1400123456,"TLS.time":1700000000,"TLS.expire":86400,"TLS.sig":"${SIG_U42}"}`,
    );
  });

  it('signs as the node and python references and openssl do', () => {
    expect(decodeUserSig(genUserSig(U42))['TLS.sig']).toBe(SIG_U42);
    expect(decodeUserSig(genUserSig(XIAOJUN))['TLS.sig']).toBe(SIG_XIAOJUN);
    expect(decodeUserSig(NODE_U42)['TLS.sig']).toBe(SIG_U42);
    expect(decodeUserSig(PYTHON_U42)['TLS.sig']).toBe(SIG_U42);
    expect(userSigHmac(KEY, 'u42', 1400123456, NOW, 86400)).toBe(SIG_U42);
  });

  it('equals the hand-made pipeline byte for byte (same zlib, default level, as the node reference)', () => {
    for (const input of [U42, XIAOJUN, { ...U42, identifier: 'u9223372036854775807', now: NOW + 1 }]) {
      const expected = handMade(input.sdkAppId, input.key, input.identifier, input.expireSeconds, input.now);
      const sig = genUserSig(input);
      expect(sig).toBe(expected.sig);
      expect(inflated(sig)).toBe(expected.json);
    }
  });

  it('uses zlib with the default compression level (header 78 9c), as deflateSync in the node reference', () => {
    const raw = Buffer.from(genUserSig(U42).split('*').join('+').split('-').join('/').split('_').join('='), 'base64');
    expect(raw.subarray(0, 2).toString('hex')).toBe('789c');
  });

  it("carries a HMAC that verifies with the key and the document's own fields", () => {
    const doc = JSON.parse(inflated(genUserSig({ ...U42, now: 1712345678 }))) as Record<string, string | number>;
    const content = `TLS.identifier:${doc['TLS.identifier']}\nTLS.sdkappid:${doc['TLS.sdkappid']}\nTLS.time:${doc['TLS.time']}\nTLS.expire:${doc['TLS.expire']}\n`;
    expect(doc['TLS.sig']).toBe(createHmac('sha256', KEY).update(content).digest('base64'));
    expect(doc['TLS.sig']).not.toBe(createHmac('sha256', `${KEY}0`).update(content).digest('base64'));
    expect(Object.keys(doc)).toEqual([
      'TLS.ver',
      'TLS.identifier',
      'TLS.sdkappid',
      'TLS.time',
      'TLS.expire',
      'TLS.sig',
    ]);
    expect(doc).toMatchObject({
      'TLS.ver': '2.0',
      'TLS.sdkappid': 1400123456,
      'TLS.time': 1712345678,
      'TLS.expire': 86400,
    });
  });

  it('uses the TLS alphabet: * for +, - for /, _ for =', () => {
    let seen = '';
    for (let now = NOW; now < NOW + 40; now += 1) {
      const sig = genUserSig({ ...U42, now });
      expect(sig).toMatch(/^[A-Za-z0-9*_-]+$/);
      const standard = deflateSync(Buffer.from(inflated(sig))).toString('base64');
      expect(sig).toBe(standard.replace(/\+/g, '*').replace(/\//g, '-').replace(/=/g, '_'));
      seen += sig;
    }
    // Forty signatures are enough to meet every substituted character at least once.
    for (const c of ['*', '-', '_']) expect(seen).toContain(c);
  });

  it('changes with the key, the user, the application, the time and the lifetime', () => {
    const base = genUserSig(U42);
    const variants = [
      { ...U42, key: KEY.replace(/^5/, '6') },
      { ...U42, identifier: 'u43' },
      { ...U42, sdkAppId: 1400123457 },
      { ...U42, now: NOW + 1 },
      { ...U42, expireSeconds: 86401 },
    ].map(genUserSig);
    expect(new Set([base, ...variants]).size).toBe(6);
    expect(decodeUserSig(variants[0])['TLS.sig']).not.toBe(SIG_U42);
  });

  it.each([
    ['an empty key', { key: '' }, 'SDKSecretKey'],
    ['an identifier over 32 bytes', { identifier: 'a'.repeat(33) }, 'identifier'],
    ['an identifier outside [A-Za-z0-9_-]', { identifier: 'u 42' }, 'identifier'],
    ['a non-ASCII identifier', { identifier: 'ü42' }, 'identifier'],
    ['an empty identifier', { identifier: '' }, 'identifier'],
    ['a zero application', { sdkAppId: 0 }, 'sdkAppId'],
    ['a fractional lifetime', { expireSeconds: 1.5 }, 'expireSeconds'],
    ['a zero lifetime', { expireSeconds: 0 }, 'expireSeconds'],
    ['a fractional time', { now: NOW + 0.5 }, 'now'],
  ])('refuses %s, without the key in the message', (_label, change, field) => {
    expect(() => genUserSig({ ...U42, ...change })).toThrow(field);
    try {
      genUserSig({ ...U42, ...change });
    } catch (error) {
      expect((error as Error).message).not.toContain(KEY);
    }
  });

  it('accepts a 32-byte identifier of the whole alphabet', () => {
    const id = 'Az09_-'.repeat(5) + 'zZ';
    expect(id).toHaveLength(32);
    expect(decodeUserSig(genUserSig({ ...U42, identifier: id }))['TLS.identifier']).toBe(id);
  });
});

describe('decodeUserSig', () => {
  it("reads every reference's layout", () => {
    const expected = {
      'TLS.ver': '2.0',
      'TLS.identifier': 'u42',
      'TLS.sdkappid': 1400123456,
      'TLS.time': NOW,
      'TLS.expire': 86400,
      'TLS.sig': SIG_U42,
    };
    expect(decodeUserSig(NODE_U42)).toEqual(expected);
    expect(decodeUserSig(PYTHON_U42)).toEqual(expected);
    expect(decodeUserSig(NODE_XIAOJUN)).toMatchObject({
      'TLS.identifier': 'xiaojun',
      'TLS.sdkappid': 1400000000,
      'TLS.expire': 15552000,
    });
  });

  const wrap = (json: string): string =>
    deflateSync(Buffer.from(json)).toString('base64').replace(/\+/g, '*').replace(/\//g, '-').replace(/=/g, '_');
  it.each([
    ['standard base64', Buffer.from('x').toString('base64')],
    ['an empty string', ''],
    ['garbage', 'not-a-sig'],
    ['JSON that is not an object', wrap('[1]')],
    [
      'another version',
      wrap('{"TLS.ver":"1.0","TLS.identifier":"u1","TLS.sdkappid":1,"TLS.time":1,"TLS.expire":1,"TLS.sig":"x"}'),
    ],
    [
      'a PrivateMapKey (userbuf)',
      wrap(
        '{"TLS.ver":"2.0","TLS.identifier":"u1","TLS.sdkappid":1,"TLS.time":1,"TLS.expire":1,"TLS.userbuf":"AA==","TLS.sig":"x"}',
      ),
    ],
    ['a missing time', wrap('{"TLS.ver":"2.0","TLS.identifier":"u1","TLS.sdkappid":1,"TLS.expire":1,"TLS.sig":"x"}')],
    [
      'a text expire',
      wrap('{"TLS.ver":"2.0","TLS.identifier":"u1","TLS.sdkappid":1,"TLS.time":1,"TLS.expire":"1","TLS.sig":"x"}'),
    ],
    ['an inflation bomb', wrap(`{"TLS.ver":"2.0","pad":"${'a'.repeat(100_000)}"}`)],
  ])('refuses %s', (_label, input) => {
    expect(() => decodeUserSig(input)).toThrow(/^UserSig: /);
  });
});

describe('provider user IDs', () => {
  it('are u and the internal ID, and map back', () => {
    for (const id of ['1', '42', '9223372036854775807', '18446744073709551615']) {
      const provider = providerUserId(id);
      expect(provider).toBe(`u${id}`);
      expect(Buffer.byteLength(provider)).toBeLessThanOrEqual(32);
      expect(provider).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
      expect(internalUserIdOf(provider)).toBe(id);
    }
  });

  it.each(['', '0', '042', '-1', '1.5', '1e3', ' 1', '1\n', 'abc', 'u1', '123456789012345678901'])(
    'refuses the internal ID %p',
    (id) => {
      expect(() => providerUserId(id)).toThrow('internal user ID');
    },
  );

  it.each([
    '',
    'u',
    'u0',
    'u042',
    'U1',
    '1',
    'uu1',
    'u1 ',
    'u1\n',
    ' u1',
    'u-1',
    'u1_',
    'user1',
    'u123456789012345678901',
    'host-user-42',
  ])('maps back only its own form: %p is nobody', (providerId) => {
    expect(internalUserIdOf(providerId)).toBeNull();
  });
});
