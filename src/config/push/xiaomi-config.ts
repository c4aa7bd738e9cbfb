import { readFileSync } from 'node:fs';
import { checkHttpsUrl, readCaFile } from './provider-settings';

/** Xiaomi Mi Push credentials and endpoint. */
export interface XiaomiConfig {
  /** AppSecret from Xiaomi's open platform; sent as `Authorization: key=<AppSecret>`. */
  appSecret: string;
  /** The app's package: `restricted_package_name`, authoritative over what an SDK registration says. */
  packageName: string;
  /** The API base; the adapter posts to `{url}/v3/message/regid`. */
  url: string;
  /** An Android notification channel registered with Xiaomi (extra.channel_id), when the app has one. */
  channelId: string | null;
  /** An extra CA certificate (PEM) to trust: a proxy's or a test fake's. */
  caPem: string | null;
  /** Values the log scrubber must hide. */
  secrets: string[];
}

const VARIABLES = [
  'XIAOMI_APP_SECRET',
  'XIAOMI_PACKAGE_NAME',
  'XIAOMI_URL',
  'XIAOMI_CHANNEL_ID',
  'XIAOMI_CA_FILE',
] as const;

/** Mainland China; Xiaomi's global regions have their own hosts (api.xmpush.global.xiaomi.com and regional ones). */
export const XIAOMI_DEFAULT_URL = 'https://api.xmpush.xiaomi.com';

/**
 * Null when no XIAOMI_* variable is set (the provider is off). When some are set, every missing
 * or malformed one is reported in `problems` (and null returned) so the service refuses to start.
 */
export function loadXiaomiConfig(
  env: NodeJS.ProcessEnv,
  problems: string[],
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): XiaomiConfig | null {
  const value = (name: (typeof VARIABLES)[number]): string | undefined => env[name]?.trim() || undefined;
  const present = VARIABLES.filter((name) => value(name) !== undefined);
  if (present.length === 0) return null;

  const before = problems.length;
  const cause = `when ${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set`;
  const appSecret = value('XIAOMI_APP_SECRET');
  const packageName = value('XIAOMI_PACKAGE_NAME');
  if (!appSecret) problems.push(`XIAOMI_APP_SECRET is required ${cause}`);
  if (!packageName) problems.push(`XIAOMI_PACKAGE_NAME is required ${cause}`);
  else if (!/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/.test(packageName)) {
    problems.push('XIAOMI_PACKAGE_NAME must be an Android package name such as com.example.chat');
  }
  const url = checkHttpsUrl('XIAOMI_URL', value('XIAOMI_URL') ?? XIAOMI_DEFAULT_URL, problems);
  const caPem = readCaFile('XIAOMI_CA_FILE', value('XIAOMI_CA_FILE'), readFile, problems);
  if (problems.length > before || !appSecret || !packageName) return null;

  return {
    appSecret,
    packageName,
    url,
    channelId: value('XIAOMI_CHANNEL_ID') ?? null,
    caPem,
    secrets: [appSecret],
  };
}
