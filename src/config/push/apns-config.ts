import { createPrivateKey, KeyObject, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readChoice } from '../env-values';

export const APNS_ENVIRONMENTS = ['production', 'sandbox'] as const;
export type ApnsEnvironment = (typeof APNS_ENVIRONMENTS)[number];

export const APNS_BASE_URLS: Record<ApnsEnvironment, string> = {
  production: 'https://api.push.apple.com',
  sandbox: 'https://api.sandbox.push.apple.com',
};

/** Apple Push Notification service, token-based (.p8 key) authentication. */
export interface ApnsConfig {
  /** The signing key (an EC P-256 private key), parsed once. */
  key: KeyObject;
  /** The key's 10-character ID (the JWT `kid`). */
  keyId: string;
  /** The developer team's 10-character ID (the JWT `iss`). */
  teamId: string;
  /** The app's bundle ID: `apns-topic` of alert pushes; VoIP pushes go to `<topic>.voip`. */
  topic: string;
  environment: ApnsEnvironment;
  /** Origin the HTTP/2 session connects to: Apple's for the environment, or APNS_URL. */
  baseUrl: string;
  /** Extra certificate authorities (PEM) trusted besides the system's, for a TLS-intercepting proxy or a test fake. */
  caPem: string | null;
  /** Values the log scrubber must hide: the key as configured and as parsed. */
  secrets: string[];
}

const VARIABLES = [
  'APNS_KEY_FILE',
  'APNS_KEY',
  'APNS_KEY_ID',
  'APNS_TEAM_ID',
  'APNS_TOPIC',
  'APNS_ENVIRONMENT',
  'APNS_URL',
  'APNS_CA_FILE',
] as const;

const APPLE_ID = /^[A-Z0-9]{10}$/;
const BUNDLE_ID = /^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const ORIGIN = /^https:\/\/[^\s/?#]+\/?$/;

/**
 * Reads the APNS_* variables. Null when none is set (APNs is off); otherwise every problem found
 * is pushed to `problems` (never the key itself) and null is returned if any was.
 */
export function loadApnsConfig(env: NodeJS.ProcessEnv, problems: string[]): ApnsConfig | null {
  const set = (name: string): boolean => env[name] !== undefined && env[name] !== '';
  const trigger = VARIABLES.find(set);
  if (trigger === undefined) return null;
  const found: string[] = [];
  const required = (name: string): string => {
    if (!set(name)) found.push(`${name} is required when ${trigger} is set`);
    return env[name] ?? '';
  };

  const keyPem = readKeyPem(env, trigger, found);
  const keyId = required('APNS_KEY_ID');
  if (keyId !== '' && !APPLE_ID.test(keyId)) found.push('APNS_KEY_ID must be the 10-character key ID (A-Z, 0-9)');
  const teamId = required('APNS_TEAM_ID');
  if (teamId !== '' && !APPLE_ID.test(teamId)) found.push('APNS_TEAM_ID must be the 10-character team ID (A-Z, 0-9)');
  const topic = required('APNS_TOPIC');
  if (topic !== '' && !BUNDLE_ID.test(topic)) found.push(`APNS_TOPIC must be the app's bundle ID (got "${topic}")`);
  if (topic.endsWith('.voip'))
    found.push("APNS_TOPIC must be the app's bundle ID without .voip (VoIP pushes add it themselves)");
  const environment = readChoice(env, 'APNS_ENVIRONMENT', APNS_ENVIRONMENTS, 'production', found);
  const url = env.APNS_URL ?? '';
  if (url !== '' && !ORIGIN.test(url)) found.push('APNS_URL must be an https:// origin without a path');
  const caPem = readCaFile(env, found);

  let key: KeyObject | null = null;
  if (keyPem !== null) key = parseKey(keyPem, env.APNS_KEY_FILE ? 'APNS_KEY_FILE' : 'APNS_KEY', found);

  problems.push(...found);
  if (found.length > 0 || key === null || keyPem === null) return null;
  const secrets = [keyPem];
  if (env.APNS_KEY && env.APNS_KEY !== keyPem) secrets.push(env.APNS_KEY);
  return {
    key,
    keyId,
    teamId,
    topic,
    environment,
    baseUrl: url !== '' ? url.replace(/\/$/, '') : APNS_BASE_URLS[environment],
    caPem,
    secrets,
  };
}

function readKeyPem(env: NodeJS.ProcessEnv, trigger: string, found: string[]): string | null {
  const file = env.APNS_KEY_FILE ?? '';
  const inline = env.APNS_KEY ?? '';
  if (file !== '' && inline !== '') {
    found.push('APNS_KEY_FILE and APNS_KEY are both set: set one');
    return null;
  }
  if (file === '' && inline === '') {
    found.push(`APNS_KEY_FILE (or APNS_KEY) is required when ${trigger} is set`);
    return null;
  }
  if (inline !== '') return inline.replace(/\\n/g, '\n');
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    found.push(`APNS_KEY_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${file}`);
    return null;
  }
}

function parseKey(pem: string, variable: string, found: string[]): KeyObject | null {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    // The parser's message may quote the input: only say what was expected.
    found.push(`${variable} is not a PEM private key (expected the AuthKey_<key ID>.p8 file from Apple)`);
    return null;
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || curve !== 'prime256v1') {
    const actual = key.asymmetricKeyType === 'ec' ? `ec ${curve}` : key.asymmetricKeyType;
    found.push(`${variable} must be an EC P-256 private key (an APNs .p8 key), not ${actual}`);
    return null;
  }
  return key;
}

function readCaFile(env: NodeJS.ProcessEnv, found: string[]): string | null {
  const file = env.APNS_CA_FILE ?? '';
  if (file === '') return null;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    found.push(`APNS_CA_FILE cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${file}`);
    return null;
  }
  try {
    new X509Certificate(pem);
  } catch {
    found.push(`APNS_CA_FILE does not hold a PEM certificate: ${file}`);
    return null;
  }
  return pem;
}
