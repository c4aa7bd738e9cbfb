import { randomBytes, randomInt } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { SECRET_NAMES, SecretName } from './app-config';

export const DEFAULT_DEV_SECRETS_FILE = './data/dev-secrets.json';

/** Where the development secrets came from: the start-up line names the file, never the values. */
export interface DevSecretsUse {
  path: string;
  /** The secrets generated (and written to the file) now; the others were read from it. */
  generated: SecretName[];
  read: SecretName[];
}

/**
 * Outside production, fills missing secrets from a file under ./data/, generating each one
 * once so tokens stay valid across restarts. The file is created with mode 0600.
 */
export function applyDevSecrets(
  env: NodeJS.ProcessEnv,
  file = env.DEV_SECRETS_FILE || DEFAULT_DEV_SECRETS_FILE,
): DevSecretsUse | null {
  if (env.NODE_ENV === 'production') return null;
  const missing = SECRET_NAMES.filter((name) => !env[name]);
  if (missing.length === 0) return null;

  const path = resolve(file);
  let stored: Record<string, string> = {};
  if (existsSync(path)) {
    try {
      stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    } catch {
      throw new Error(`${path} is not valid JSON; delete it to generate new development secrets`);
    }
  }
  const generated: SecretName[] = [];
  const read: SecretName[] = [];
  for (const name of missing) {
    if (stored[name]) {
      read.push(name);
    } else {
      stored[name] = generate(name);
      generated.push(name);
    }
    env[name] = stored[name];
  }
  if (generated.length > 0) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  chmodSync(path, 0o600);
  return { path, generated, read };
}

/** The start-up line about development secrets: generated into, or read from, the file. */
export function describeDevSecrets(use: DevSecretsUse): string {
  const parts: string[] = [];
  if (use.generated.length) parts.push(`generated ${use.generated.join(', ')} into ${use.path}`);
  if (use.read.length) parts.push(`read ${use.read.join(', ')} from ${use.path}`);
  return `Development secrets: ${parts.join('; ')}. Set them in the environment for production.`;
}

function generate(name: SecretName): string {
  if (name === 'RTC_SDK_APP_ID') return String(1400000000 + randomInt(99999999));
  // Shaped like the provider console's SDKSecretKey (64 hex characters).
  if (name === 'RTC_SECRET_KEY') return randomBytes(32).toString('hex');
  return randomBytes(32).toString('base64url');
}
