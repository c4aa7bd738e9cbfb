import { Secret, TOTP } from 'otpauth';
import { toString as qrSvg } from 'qrcode';

/** RFC 6238 with the parameters every authenticator app supports: SHA-1, 6 digits, 30 s. */
const PERIOD_SECONDS = 30;
const ISSUER = 'IM Admin';
/** One step either side: a code from a phone whose clock is up to 30 s off still works. */
const WINDOW = 1;

function totp(secret: string, username: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: username,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secret),
  });
}

/** A new 160-bit secret (the RFC 4226 recommendation), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function totpUri(secret: string, username: string): string {
  return totp(secret, username).toString();
}

/**
 * The URI as a QR code for the phone's camera: an SVG drawn here, sent as a data: URL the console
 * shows with <img>. Its policy already allows `img-src data:`, and an image runs no script, so
 * the page needs no QR library and its script-src stays 'self' without eval.
 */
export async function totpQrCode(uri: string): Promise<string> {
  const svg = await qrSvg(uri, { type: 'svg', errorCorrectionLevel: 'M' });
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/**
 * The time step of `code` when it is valid at `nowMs` (within one step either side), else null.
 * The caller still has to make sure that step was not used before.
 */
export function totpStep(secret: string, code: string, nowMs: number): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totp(secret, '').validate({ token: code, timestamp: nowMs, window: WINDOW });
  if (delta === null) return null;
  return Math.floor(nowMs / 1000 / PERIOD_SECONDS) + delta;
}

/** The code of `secret` at `nowMs` (tests, and nothing else: the service never generates codes for a user). */
export function totpCodeAt(secret: string, nowMs: number): string {
  return totp(secret, '').generate({ timestamp: nowMs });
}
