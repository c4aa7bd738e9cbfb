import { constants, generateKeyPairSync, verify } from 'node:crypto';
import { HUAWEI_JWT_AUDIENCE, parseHuaweiServiceAccount, signHuaweiJwt } from './huawei-jwt';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

function keyFile(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    project_id: '3884',
    key_id: 'kid-1',
    private_key: privatePem,
    sub_account: '1108',
    ...overrides,
  });
}

describe('parseHuaweiServiceAccount', () => {
  it('reads the fields the JWT needs', () => {
    const account = parseHuaweiServiceAccount(keyFile());
    expect(account).toMatchObject({ projectId: '3884', keyId: 'kid-1', subAccount: '1108', privateKeyPem: privatePem });
  });

  it('names what is missing or wrong without quoting the key', () => {
    expect(() => parseHuaweiServiceAccount('{')).toThrow('is not JSON');
    expect(() => parseHuaweiServiceAccount(keyFile({ sub_account: '' }))).toThrow('has no sub_account');
    expect(() => parseHuaweiServiceAccount(keyFile({ private_key: 'not a key' }))).toThrow(
      'has a private_key that is not a PEM private key',
    );
  });
});

describe('signHuaweiJwt', () => {
  it('signs a PS256 JWT with kid, iss, aud and an hour of life', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    const { jwt, expiresAt } = signHuaweiJwt(parseHuaweiServiceAccount(keyFile()), now);
    const [header, payload, signature] = jwt.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ kid: 'kid-1', typ: 'JWT', alg: 'PS256' });
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual({
      aud: HUAWEI_JWT_AUDIENCE,
      iss: '1108',
      iat: now / 1000,
      exp: now / 1000 + 3600,
    });
    expect(expiresAt).toBe(now + 3600_000);
    const valid = verify(
      'sha256',
      Buffer.from(`${header}.${payload}`),
      { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
      Buffer.from(signature, 'base64url'),
    );
    expect(valid).toBe(true);
  });
});
