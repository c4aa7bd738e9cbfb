import { readFileSync } from 'node:fs';
import { checkHttpsUrl, readCaFile } from './provider-settings';
import { parseHuaweiServiceAccount, type HuaweiServiceAccount } from './huawei-service-account';

/** Huawei Push Kit (HMS, Android) credentials and endpoints. */
export interface HuaweiConfig {
  /** The app ID in AppGallery Connect: the `{appId}` of the push URL. */
  appId: string;
  /** The OAuth client ID; the app ID unless the project uses a separate OAuth client. */
  clientId: string;
  clientSecret: string;
  /** The OAuth token endpoint (client_credentials grant). */
  oauthUrl: string;
  /** The push API base; the adapter posts to `{pushUrl}/v1/{appId}/messages:send`. */
  pushUrl: string;
  /** An extra CA certificate (PEM) to trust: a proxy's or a test fake's. */
  caPem: string | null;
  /** The app's launcher activity class, needed by Huawei's launcher to show a numeric badge. */
  badgeClass: string | null;
  /**
   * Push Kit v3 for HarmonyOS NEXT devices: the project ID (`{base}/v3/{projectId}/messages:send`)
   * and the service account that signs its JWTs. Null when not configured: HarmonyOS devices then fail.
   */
  harmony: { projectId: string; serviceAccount: HuaweiServiceAccount } | null;
  /** Values the log scrubber must hide. */
  secrets: string[];
}

const VARIABLES = [
  'HUAWEI_APP_ID',
  'HUAWEI_CLIENT_ID',
  'HUAWEI_CLIENT_SECRET',
  'HUAWEI_OAUTH_URL',
  'HUAWEI_PUSH_URL',
  'HUAWEI_CA_FILE',
  'HUAWEI_BADGE_CLASS',
  'HUAWEI_PROJECT_ID',
  'HUAWEI_SERVICE_ACCOUNT_FILE',
] as const;

export const HUAWEI_DEFAULT_OAUTH_URL = 'https://oauth-login.cloud.huawei.com/oauth2/v3/token';
export const HUAWEI_DEFAULT_PUSH_URL = 'https://push-api.cloud.huawei.com';

/**
 * Null when no HUAWEI_* variable is set (the provider is off). When some are set, every missing
 * or malformed one is reported in `problems` (and null returned) so the service refuses to start.
 */
export function loadHuaweiConfig(
  env: NodeJS.ProcessEnv,
  problems: string[],
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): HuaweiConfig | null {
  const value = (name: (typeof VARIABLES)[number]): string | undefined => env[name]?.trim() || undefined;
  const present = VARIABLES.filter((name) => value(name) !== undefined);
  if (present.length === 0) return null;

  const before = problems.length;
  const cause = `when ${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set`;
  const appId = value('HUAWEI_APP_ID');
  const clientSecret = value('HUAWEI_CLIENT_SECRET');
  if (!appId) problems.push(`HUAWEI_APP_ID is required ${cause}`);
  else if (!/^[A-Za-z0-9._-]+$/.test(appId))
    problems.push('HUAWEI_APP_ID must be the numeric app ID from AppGallery Connect');
  if (!clientSecret) problems.push(`HUAWEI_CLIENT_SECRET is required ${cause}`);
  const oauthUrl = checkHttpsUrl('HUAWEI_OAUTH_URL', value('HUAWEI_OAUTH_URL') ?? HUAWEI_DEFAULT_OAUTH_URL, problems);
  const pushUrl = checkHttpsUrl('HUAWEI_PUSH_URL', value('HUAWEI_PUSH_URL') ?? HUAWEI_DEFAULT_PUSH_URL, problems);
  const caPem = readCaFile('HUAWEI_CA_FILE', value('HUAWEI_CA_FILE'), readFile, problems);
  const harmony = loadHarmony(value('HUAWEI_PROJECT_ID'), value('HUAWEI_SERVICE_ACCOUNT_FILE'), readFile, problems);
  if (problems.length > before || !appId || !clientSecret) return null;

  return {
    appId,
    clientId: value('HUAWEI_CLIENT_ID') ?? appId,
    clientSecret,
    oauthUrl,
    pushUrl,
    caPem,
    badgeClass: value('HUAWEI_BADGE_CLASS') ?? null,
    harmony,
    secrets: harmony ? [clientSecret, harmony.serviceAccount.privateKeyPem] : [clientSecret],
  };
}

function loadHarmony(
  projectId: string | undefined,
  file: string | undefined,
  readFile: (path: string) => string,
  problems: string[],
): HuaweiConfig['harmony'] {
  if (!projectId && !file) return null;
  if (!projectId) {
    problems.push('HUAWEI_PROJECT_ID is required when HUAWEI_SERVICE_ACCOUNT_FILE is set');
    return null;
  }
  if (!file) {
    problems.push('HUAWEI_SERVICE_ACCOUNT_FILE is required when HUAWEI_PROJECT_ID is set');
    return null;
  }
  let json: string;
  try {
    json = readFile(file);
  } catch (error) {
    problems.push(
      `HUAWEI_SERVICE_ACCOUNT_FILE (${file}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
    return null;
  }
  let serviceAccount: HuaweiServiceAccount;
  try {
    serviceAccount = parseHuaweiServiceAccount(json);
  } catch (error) {
    problems.push(`HUAWEI_SERVICE_ACCOUNT_FILE (${file}) ${(error as Error).message}`);
    return null;
  }
  if (serviceAccount.projectId !== projectId) {
    problems.push(
      `HUAWEI_SERVICE_ACCOUNT_FILE belongs to project ${serviceAccount.projectId}, not HUAWEI_PROJECT_ID ${projectId}`,
    );
    return null;
  }
  return { projectId, serviceAccount };
}
