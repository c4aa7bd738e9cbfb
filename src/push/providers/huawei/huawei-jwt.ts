import { constants, sign } from 'node:crypto';
import type { HuaweiServiceAccount } from '../../../config/push/huawei-service-account';

export { parseHuaweiServiceAccount, type HuaweiServiceAccount } from '../../../config/push/huawei-service-account';

/**
 * Push Kit v3 (HarmonyOS NEXT) authenticates with a JWT the server signs itself from a service
 * account key (AppGallery Connect / API Console → service account key, a JSON file). No token
 * exchange: the JWT is the Bearer credential.
 */

/** Huawei's fixed audience for service-account JWTs. */
export const HUAWEI_JWT_AUDIENCE = 'https://oauth-login.cloud.huawei.com/oauth2/v3/token';
/** Huawei advises an hour; it refuses more than a day (80300036). */
export const HUAWEI_JWT_LIFETIME_SEC = 3600;

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
