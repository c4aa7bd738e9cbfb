import { isIP } from 'node:net';
import { CLIENT_ERROR_PLATFORMS } from '../client-errors/dto/report-client-error.dto';
import { AppError } from '../common/app-error';

/** What a connection may name as its platform: the client-error report's platforms and the Web SDK's. */
export const DEVICE_PLATFORMS: readonly string[] = [...CLIENT_ERROR_PLATFORMS, 'web'];
// The client-error report's device_id rule, so one installation has one ID everywhere.
const DEVICE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const APP_VERSION = /^[A-Za-z0-9._+/-]{1,32}$/;
const USER_AGENT_MAX = 64;

/** One live connection as the operator's user page lists it (kept in memory beside the socket session). */
export interface ConnectionDevice {
  /** From `auth.device`; null when the client named no device. */
  platform: string | null;
  deviceId: string | null;
  appVersion: string | null;
  /** The User-Agent's short form ("Chrome 131 on Windows"), null when absent or unrecognised. */
  userAgent: string | null;
  /** The client's address, TRUST_PROXY applied as for HTTP requests. */
  address: string | null;
  connectedAt: number;
}

type NamedDevice = Pick<ConnectionDevice, 'platform' | 'deviceId' | 'appVersion'>;

const field = (name: string): string => `auth.device.${name}`;

/**
 * Reads the optional `auth.device` `{platform, device_id, app_version?}`. Absent (or null): the
 * device is unknown. Anything else that breaks a rule refuses the handshake (1004) naming the
 * field; a value holding a token or a secret is refused rather than kept, and never echoed.
 * Other keys are ignored, so a newer SDK can say more to an older service.
 */
export function readDevice(raw: unknown, hasCredential: (value: string) => boolean): NamedDevice {
  if (raw === undefined || raw === null) return { platform: null, deviceId: null, appVersion: null };
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw AppError.invalid('auth.device', 'must be an object {platform, device_id, app_version?}');
  const device = raw as Record<string, unknown>;
  const { platform, device_id: deviceId, app_version: appVersion } = device;
  if (typeof platform !== 'string' || !DEVICE_PLATFORMS.includes(platform))
    throw AppError.invalid(field('platform'), `must be one of ${DEVICE_PLATFORMS.join(', ')}`);
  if (typeof deviceId !== 'string' || !DEVICE_ID.test(deviceId))
    throw AppError.invalid(field('device_id'), 'must be 1–128 letters, digits, ".", "_", ":" or "-"');
  if (hasCredential(deviceId)) throw AppError.invalid(field('device_id'), 'must not contain a token or a secret');
  if (appVersion !== undefined && appVersion !== null) {
    if (typeof appVersion !== 'string' || !APP_VERSION.test(appVersion))
      throw AppError.invalid(field('app_version'), 'must be 1–32 letters, digits, ".", "_", "+", "/" or "-"');
    if (hasCredential(appVersion)) throw AppError.invalid(field('app_version'), 'must not contain a token or a secret');
  }
  return { platform, deviceId, appVersion: typeof appVersion === 'string' ? appVersion : null };
}

const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\/([0-9]{1,4})/, 'Edge'],
  [/\bOPR\/([0-9]{1,4})/, 'Opera'],
  [/\b(?:Firefox|FxiOS)\/([0-9]{1,4})/, 'Firefox'],
  [/\b(?:Chrome|CriOS)\/([0-9]{1,4})/, 'Chrome'],
  [/\bVersion\/([0-9]{1,4})[0-9.]*(?: Mobile\/\S+)? Safari\//, 'Safari'],
];
const SYSTEMS: Array<[RegExp, string]> = [
  [/\b(?:OpenHarmony|HarmonyOS)\b/, 'HarmonyOS'],
  [/\bAndroid\b/, 'Android'],
  [/\b(?:iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];
// Anything else (okhttp/4.12.0, Dart/3.5, node): its first product token, letters first, major version.
const PRODUCT = /^([A-Za-z][A-Za-z0-9._-]{0,23})(?:\/([0-9]{1,4}))?/;

/**
 * The User-Agent in a few words: a known browser and its major version, and the system; or the
 * first product token. Built only from fixed names and short captures (never the raw header),
 * and dropped when what is left still looks like a credential.
 */
export function shortUserAgent(header: unknown, hasCredential: (value: string) => boolean): string | null {
  if (typeof header !== 'string' || header === '') return null;
  const ua = header.slice(0, 512);
  let short: string | null = null;
  for (const [pattern, name] of BROWSERS) {
    const match = pattern.exec(ua);
    if (match) {
      short = `${name} ${match[1]}`;
      break;
    }
  }
  if (short) {
    const system = SYSTEMS.find(([pattern]) => pattern.test(ua));
    if (system) short += ` on ${system[1]}`;
  } else {
    const match = PRODUCT.exec(ua);
    if (!match || match[1] === 'Mozilla') return null;
    short = match[2] ? `${match[1]}/${match[2]}` : match[1];
  }
  short = short.slice(0, USER_AGENT_MAX);
  return hasCredential(short) ? null : short;
}

/** Express's compiled `trust proxy`: whether the peer at this hop (0: the socket's) may name the next. */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * The client's address as Express computes `req.ip` (proxy-addr): the socket's peer, then each
 * X-Forwarded-For entry from the right while the hop before it is trusted. Not an IP address
 * (a forged or broken header): null.
 */
export function clientAddress(peer: string | undefined, forwardedFor: unknown, trust: TrustProxy): string | null {
  if (!peer) return null;
  const listed = typeof forwardedFor === 'string' ? forwardedFor.split(/[\s,]+/).filter((s) => s !== '') : [];
  const hops = [peer, ...listed.reverse()];
  let hop = 0;
  while (hop < hops.length - 1 && trust(hops[hop], hop)) hop += 1;
  const address = hops[hop];
  return address.length <= 64 && isIP(address) ? address : null;
}
