import { constants, createPrivateKey, sign, type KeyObject } from 'node:crypto';

/**
 * Push Kit v3 (HarmonyOS NEXT) authenticates with a JWT the server signs itself from a service
 * account key (AppGallery Connect / API Console → service account key, a JSON file). No token
 * exchange: the JWT is the Bearer credential.
 */

/** The fields of the service account key file this adapter uses. */
export interface HuaweiServiceAccount {
  projectId: string;
  keyId: string;
  subAccount: string;
  privateKey: KeyObject;
  /** The key as the file holds it, for the log scrubber. */
  privateKeyPem: string;
}

/** Huawei's fixed audience for service-account JWTs. */
export const HUAWEI_JWT_AUDIENCE = 'https://oauth-login.cloud.huawei.com/oauth2/v3/token';
/** Huawei advises an hour; it refuses more than a day (80300036). */
export const HUAWEI_JWT_LIFETIME_SEC = 3600;

/** Parses a downloaded service account key file; throws a secret-free message naming what is wrong. */
export function parseHuaweiServiceAccount(json: string): HuaweiServiceAccount {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new Error('is not JSON');
  }
  for (const field of ['project_id', 'key_id', 'sub_account', 'private_key']) {
    if (typeof parsed[field] !== 'string' || !(parsed[field] as string).trim()) throw new Error(`has no ${field}`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(parsed.private_key as string);
  } catch {
    throw new Error('has a private_key that is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('has a private_key that is not an RSA key');
  return {
    projectId: parsed.project_id as string,
    keyId: parsed.key_id as string,
    subAccount: parsed.sub_account as string,
    privateKey,
    privateKeyPem: parsed.private_key as string,
  };
}

/** A PS256 JWT: header {kid, typ, alg}, payload {aud, iss: sub_account, iat, exp}. */
export function signHuaweiJwt(account: HuaweiServiceAccount, nowMs: number): { jwt: string; expiresAt: number } {
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + HUAWEI_JWT_LIFETIME_SEC;
  const header = base64url(JSON.stringify({ kid: account.keyId, typ: 'JWT', alg: 'PS256' }));
  const payload = base64url(JSON.stringify({ aud: HUAWEI_JWT_AUDIENCE, iss: account.subAccount, iat, exp }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
    key: account.privateKey,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    // PS256 (RFC 7518): salt as long as the SHA-256 digest.
    saltLength: 32,
  });
  return { jwt: `${header}.${payload}.${signature.toString('base64url')}`, expiresAt: exp * 1000 };
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
