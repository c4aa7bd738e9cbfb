import { generateKeyPairSync, verify } from 'node:crypto';
import { FIREBASE_MESSAGING_SCOPE, GoogleOAuthError, ServiceAccountTokenSource } from './google-oauth';

const TOKEN_URI = 'https://oauth2.example.test/token';
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

function decode(part: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A token source on a hand-moved clock whose exchange hands out token-1, token-2, … */
function setup(expiresInSeconds = 3599) {
  let now = Date.parse('2026-03-01T10:00:00Z');
  const assertions: string[] = [];
  const pending: Array<() => void> = [];
  let manual = false;
  const source = new ServiceAccountTokenSource({
    clientEmail: 'push@project.iam.gserviceaccount.com',
    privateKey,
    privateKeyId: 'key-1',
    tokenUri: TOKEN_URI,
    now: () => now,
    exchange: (_uri, assertion) => {
      assertions.push(assertion);
      const granted = { accessToken: `token-${assertions.length}`, expiresInSeconds };
      if (!manual) return Promise.resolve(granted);
      return new Promise((resolve) => pending.push(() => resolve(granted)));
    },
  });
  return {
    source,
    assertions,
    advance: (ms: number) => (now += ms),
    now: () => now,
    holdExchanges: () => (manual = true),
    releaseExchanges: () => pending.splice(0).forEach((release) => release()),
  };
}

describe('ServiceAccountTokenSource', () => {
  it('signs an RS256 JWT-bearer assertion the public key verifies, with the FCM scope and an hour of life', async () => {
    const { source, assertions, now } = setup();
    await source.getToken();
    const [header, claims, signature] = assertions[0].split('.');
    expect(decode(header)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'key-1' });
    const iat = Math.floor(now() / 1000);
    expect(decode(claims)).toEqual({
      iss: 'push@project.iam.gserviceaccount.com',
      scope: FIREBASE_MESSAGING_SCOPE,
      aud: TOKEN_URI,
      iat,
      exp: iat + 3600,
    });
    expect(verify('sha256', Buffer.from(`${header}.${claims}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(
      true,
    );
    const tampered = Buffer.from(JSON.stringify({ ...decode(claims), iss: 'other@x' })).toString('base64url');
    expect(verify('sha256', Buffer.from(`${header}.${tampered}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(
      false,
    );
  });

  it('reuses the token until five minutes before it expires, then exchanges a new assertion', async () => {
    const { source, assertions, advance } = setup(3600);
    expect(await source.getToken()).toBe('token-1');
    advance(54 * 60 * 1000 + 59_000);
    expect(await source.getToken()).toBe('token-1');
    expect(assertions).toHaveLength(1);
    advance(1000);
    expect(await source.getToken()).toBe('token-2');
    expect(assertions).toHaveLength(2);
    expect(decode(assertions[1].split('.')[1]).iat).toBe((decode(assertions[0].split('.')[1]).iat as number) + 55 * 60);
  });

  it('reuses a token shorter-lived than the margin for half its life', async () => {
    const { source, advance } = setup(60);
    expect(await source.getToken()).toBe('token-1');
    advance(29_000);
    expect(await source.getToken()).toBe('token-1');
    advance(1000);
    expect(await source.getToken()).toBe('token-2');
  });

  it('lets concurrent callers share one exchange in flight', async () => {
    const { source, assertions, holdExchanges, releaseExchanges } = setup();
    holdExchanges();
    const waiting = [source.getToken(), source.getToken(), source.getToken()];
    expect(assertions).toHaveLength(1);
    releaseExchanges();
    expect(await Promise.all(waiting)).toEqual(['token-1', 'token-1', 'token-1']);
  });

  it('drops the cached token only when the refused token is the cached one', async () => {
    const { source, assertions } = setup();
    const first = await source.getToken();
    source.invalidate(first);
    const second = await source.getToken();
    expect(second).toBe('token-2');
    // A second send refused with the old token must not throw away the fresh one.
    source.invalidate(first);
    expect(await source.getToken()).toBe('token-2');
    expect(assertions).toHaveLength(2);
  });

  it('passes a failed exchange on and tries again on the next call', async () => {
    let calls = 0;
    const source = new ServiceAccountTokenSource({
      clientEmail: 'push@project.iam.gserviceaccount.com',
      privateKey,
      privateKeyId: null,
      tokenUri: TOKEN_URI,
      exchange: () => {
        calls++;
        return calls === 1
          ? Promise.reject(new GoogleOAuthError('oauth: HTTP 503', 503, 2000))
          : Promise.resolve({ accessToken: 'fresh', expiresInSeconds: 3599 });
      },
    });
    await expect(source.getToken()).rejects.toMatchObject({ status: 503, retryAfterMs: 2000 });
    expect(await source.getToken()).toBe('fresh');
  });

  it('leaves kid out when the key file has no private_key_id', () => {
    const source = new ServiceAccountTokenSource({
      clientEmail: 'a@b',
      privateKey,
      privateKeyId: null,
      tokenUri: TOKEN_URI,
      exchange: () => Promise.reject(new Error('unused')),
    });
    expect(decode(source.assertion(Date.now()).split('.')[0])).toEqual({ alg: 'RS256', typ: 'JWT' });
  });
});
