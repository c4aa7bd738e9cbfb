import { createHmac } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';

/**
 * TRTC's UserSig, as Tencent's TLSSigAPIv2 issues it without a userbuf (reference:
 * github.com/tencentyun/tls-sig-api-v2-node, TLSSigAPIv2.js `genSig`): HMAC-SHA256 with the
 * application's SDKSecretKey over four `TLS.*` lines, a JSON document carrying it, zlib
 * deflate at the default level, base64 with `+/=` replaced by `*-_`.
 */
export interface UserSigInput {
  sdkAppId: number;
  /** The SDKSecretKey, used as text (its 64 hex characters are not decoded), as every reference does. */
  key: string;
  /** The provider user ID (see providerUserId). */
  identifier: string;
  /** Lifetime in seconds, counted from `now`. */
  expireSeconds: number;
  /** Issue time, Unix seconds. */
  now: number;
}

/** The signed document inside a UserSig (field order as the node reference writes it). */
export interface UserSigDocument {
  'TLS.ver': '2.0';
  'TLS.identifier': string;
  'TLS.sdkappid': number;
  'TLS.time': number;
  'TLS.expire': number;
  'TLS.sig': string;
}

/** TRTC's user ID rule: at most 32 bytes of letters, digits, `_` and `-`. */
export const PROVIDER_USER_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** The largest document a UserSig may inflate to (a real one is under 300 bytes): bounds a hostile input. */
const MAX_DOCUMENT_BYTES = 4096;

export function genUserSig(input: UserSigInput): string {
  const { sdkAppId, key, identifier, expireSeconds, now } = input;
  // The messages name the field, never the key.
  if (!Number.isSafeInteger(sdkAppId) || sdkAppId <= 0) throw new Error('UserSig: sdkAppId must be a positive integer');
  if (typeof key !== 'string' || key === '') throw new Error('UserSig: the SDKSecretKey is empty');
  if (!PROVIDER_USER_ID_PATTERN.test(identifier))
    throw new Error('UserSig: identifier must be 1 to 32 characters of [A-Za-z0-9_-]');
  if (!Number.isSafeInteger(expireSeconds) || expireSeconds <= 0)
    throw new Error('UserSig: expireSeconds must be a positive integer');
  if (!Number.isSafeInteger(now) || now < 0) throw new Error('UserSig: now must be whole Unix seconds');

  const document: UserSigDocument = {
    'TLS.ver': '2.0',
    'TLS.identifier': identifier,
    'TLS.sdkappid': sdkAppId,
    'TLS.time': now,
    'TLS.expire': expireSeconds,
    'TLS.sig': userSigHmac(key, identifier, sdkAppId, now, expireSeconds),
  };
  return toTlsBase64(deflateSync(Buffer.from(JSON.stringify(document), 'utf8')));
}

/** The `TLS.sig` field: base64 of HMAC-SHA256(key, the four lines, each ending in `\n`). */
export function userSigHmac(key: string, identifier: string, sdkAppId: number, time: number, expire: number): string {
  const content = `TLS.identifier:${identifier}\nTLS.sdkappid:${sdkAppId}\nTLS.time:${time}\nTLS.expire:${expire}\n`;
  return createHmac('sha256', key).update(content, 'utf8').digest('base64');
}

/**
 * Reads a UserSig back to its document, for tests and diagnostics. It checks the shape only,
 * not the HMAC (that needs the key) nor the expiry; every reference's layout is accepted
 * (field order and JSON spacing differ between them). Throws on anything malformed.
 */
export function decodeUserSig(userSig: string): UserSigDocument {
  if (!/^[A-Za-z0-9*_-]+$/.test(userSig)) throw new Error('UserSig: not in the TLS base64 alphabet');
  let text: string;
  try {
    text = inflateSync(fromTlsBase64(userSig), { maxOutputLength: MAX_DOCUMENT_BYTES }).toString('utf8');
  } catch {
    throw new Error('UserSig: not a zlib stream (or larger than a UserSig)');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('UserSig: the document is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error('UserSig: the document is not an object');
  const doc = parsed as Record<string, unknown>;
  if (doc['TLS.ver'] !== '2.0') throw new Error('UserSig: TLS.ver is not 2.0');
  if ('TLS.userbuf' in doc) throw new Error('UserSig: a userbuf (PrivateMapKey) is not a UserSig');
  const identifier = doc['TLS.identifier'];
  const sig = doc['TLS.sig'];
  if (typeof identifier !== 'string' || typeof sig !== 'string')
    throw new Error('UserSig: TLS.identifier and TLS.sig must be strings');
  const numbers = ['TLS.sdkappid', 'TLS.time', 'TLS.expire'].map((name) => {
    const value = doc[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw new Error(`UserSig: ${name} must be a whole number`);
    return value;
  });
  return {
    'TLS.ver': '2.0',
    'TLS.identifier': identifier,
    'TLS.sdkappid': numbers[0],
    'TLS.time': numbers[1],
    'TLS.expire': numbers[2],
    'TLS.sig': sig,
  };
}

function toTlsBase64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/\+/g, '*').replace(/\//g, '-').replace(/=/g, '_');
}

function fromTlsBase64(text: string): Buffer {
  return Buffer.from(text.replace(/\*/g, '+').replace(/-/g, '/').replace(/_/g, '='), 'base64');
}

/**
 * Our users' identity at the provider: `u` and the stable internal numeric user ID. Never the
 * host's user ID: that is free text up to 64 characters (TRTC allows 32 of a narrow alphabet),
 * and it would show the host's identifiers to the provider. Room callbacks name users in this
 * form; internalUserIdOf maps them back.
 */
const PROVIDER_PREFIX = 'u';
/** A BIGINT primary key in decimal, without sign or leading zero. */
const INTERNAL_ID = /^[1-9][0-9]{0,19}$/;
const PROVIDER_ID = new RegExp(`^${PROVIDER_PREFIX}([1-9][0-9]{0,19})$`);

export function providerUserId(internalUserId: string): string {
  if (!INTERNAL_ID.test(internalUserId))
    throw new Error('providerUserId: the internal user ID must be a positive decimal integer');
  return `${PROVIDER_PREFIX}${internalUserId}`;
}

/** The internal user ID behind a provider user ID, or null for any ID not made by providerUserId. */
export function internalUserIdOf(providerId: string): string | null {
  const match = PROVIDER_ID.exec(providerId);
  return match ? match[1] : null;
}
