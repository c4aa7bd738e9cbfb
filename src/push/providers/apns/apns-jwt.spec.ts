import { generateKeyPairSync, verify } from 'node:crypto';
import { APNS_TOKEN_REFRESH_MS, ApnsTokenSource } from './apns-jwt';

describe('ApnsTokenSource', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const start = Date.UTC(2026, 0, 1, 12, 0, 0);
  let clock = start;
  const source = (): ApnsTokenSource =>
    new ApnsTokenSource({ key: privateKey, keyId: 'ABC123DEFG', teamId: 'TEAM123456', now: () => clock });

  beforeEach(() => {
    clock = start;
  });

  const decode = (part: string): Record<string, unknown> =>
    JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

  it('makes an ES256 token with kid, iss and iat in seconds, signed by the key', () => {
    const token = source().token();
    const [header, claims, signature] = token.split('.');
    expect(decode(header)).toEqual({ alg: 'ES256', kid: 'ABC123DEFG' });
    expect(decode(claims)).toEqual({ iss: 'TEAM123456', iat: start / 1000 });
    // JOSE signatures are r||s (64 bytes), not DER.
    expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
    const valid = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    expect(valid).toBe(true);
  });

  it('keeps the token for 50 minutes, then makes a new one', () => {
    const tokens = source();
    const first = tokens.token();
    clock = start + APNS_TOKEN_REFRESH_MS - 1000;
    expect(tokens.token()).toBe(first);
    clock = start + APNS_TOKEN_REFRESH_MS;
    const second = tokens.token();
    expect(second).not.toBe(first);
    expect(decode(second.split('.')[1]).iat).toBe(clock / 1000);
    expect(APNS_TOKEN_REFRESH_MS).toBeGreaterThanOrEqual(20 * 60_000);
    expect(APNS_TOKEN_REFRESH_MS).toBeLessThan(60 * 60_000);
  });

  it('makes a new token when the clock went backwards', () => {
    const tokens = source();
    const first = tokens.token();
    clock = start - 60_000;
    const second = tokens.token();
    expect(second).not.toBe(first);
    expect(decode(second.split('.')[1]).iat).toBe(clock / 1000);
  });

  it('renews once for many rejections of the same token', () => {
    const tokens = source();
    const rejected = tokens.token();
    clock += 1000;
    const renewed = tokens.renewAfterRejection(rejected);
    expect(renewed).not.toBe(rejected);
    expect(tokens.renewAfterRejection(rejected)).toBe(renewed);
    expect(tokens.token()).toBe(renewed);
    expect(tokens.renewAfterRejection(renewed)).not.toBe(renewed);
  });
});
