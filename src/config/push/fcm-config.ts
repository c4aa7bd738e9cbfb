import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** Everything the FCM adapter needs, from the service account's key file and a few variables. */
export interface FcmConfig {
  projectId: string;
  clientEmail: string;
  /** The service account's RSA private key (PEM); signs the OAuth2 assertion. */
  privateKey: string;
  /** Sent as the assertion's `kid` when the key file has one. */
  privateKeyId: string | null;
  /** Where the signed assertion is exchanged for an access token (the key file's `token_uri`). */
  tokenUri: string;
  /** FCM's base URL, without a trailing slash. */
  baseUrl: string;
  /** Extra CA certificate(s) to trust besides the public roots (a proxy's, a test fake's). */
  caPem: string | null;
  /** Values the log scrubber must hide. */
  secrets: string[];
}

export const FCM_DEFAULT_URL = 'https://fcm.googleapis.com';
export const GOOGLE_DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';

const KEY_FILE_HINT = 'the key from Firebase console > Project settings > Service accounts > Generate new private key';

/**
 * Reads FCM_SERVICE_ACCOUNT_FILE or FCM_SERVICE_ACCOUNT (the key JSON itself), FCM_PROJECT_ID,
 * FCM_URL and FCM_CA_FILE. Null when none is set: FCM is simply not configured.
 */
export function loadFcmConfig(
  env: NodeJS.ProcessEnv,
  problems: string[],
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): FcmConfig | null {
  const file = nonEmpty(env.FCM_SERVICE_ACCOUNT_FILE);
  const inline = nonEmpty(env.FCM_SERVICE_ACCOUNT);
  const others = (['FCM_PROJECT_ID', 'FCM_URL', 'FCM_CA_FILE'] as const).filter((name) => nonEmpty(env[name]));
  if (!file && !inline) {
    if (others.length > 0) {
      problems.push(`FCM_SERVICE_ACCOUNT_FILE or FCM_SERVICE_ACCOUNT is required when ${others[0]} is set`);
    }
    return null;
  }
  const before = problems.length;
  if (file && inline) problems.push('set only one of FCM_SERVICE_ACCOUNT_FILE and FCM_SERVICE_ACCOUNT');

  const source = file ? `FCM_SERVICE_ACCOUNT_FILE (${file})` : 'FCM_SERVICE_ACCOUNT';
  let text: string | null = inline ?? null;
  if (file) {
    try {
      text = readFile(file);
    } catch (error) {
      problems.push(`${source} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
      text = null;
    }
  }
  const account = text === null ? null : parseAccount(text, source, problems);

  const projectId = nonEmpty(env.FCM_PROJECT_ID) ?? account?.projectId;
  if (account && !projectId) problems.push(`FCM_PROJECT_ID is required: ${source} has no project_id`);
  // The ID goes into the request path; Google's IDs are letters, digits, hyphens (and a legacy "domain:" prefix).
  if (projectId && !/^[A-Za-z0-9][A-Za-z0-9.:-]*$/.test(projectId)) {
    problems.push('FCM_PROJECT_ID (or the key file project_id) is not a valid Google Cloud project ID');
  }
  const baseUrl = checkHttpsUrl('FCM_URL', nonEmpty(env.FCM_URL) ?? FCM_DEFAULT_URL, problems);
  const caPem = readCa(nonEmpty(env.FCM_CA_FILE), readFile, problems);

  if (!account || !projectId || problems.length > before) return null;
  return {
    projectId,
    clientEmail: account.clientEmail,
    privateKey: account.privateKey,
    privateKeyId: account.privateKeyId,
    tokenUri: account.tokenUri,
    baseUrl,
    caPem,
    secrets: [account.privateKey, ...(account.privateKeyId ? [account.privateKeyId] : [])],
  };
}

interface ServiceAccount {
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | null;
  tokenUri: string;
  projectId: string | undefined;
}

function parseAccount(text: string, source: string, problems: string[]): ServiceAccount | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // The parser's message quotes the text around the error, which may be the private key.
    problems.push(`${source} is not valid JSON (expected ${KEY_FILE_HINT})`);
    return null;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    problems.push(`${source} is not a JSON object (expected ${KEY_FILE_HINT})`);
    return null;
  }
  const fields = json as Record<string, unknown>;
  if (fields.type !== undefined && fields.type !== 'service_account') {
    problems.push(
      `${source} has type "${String(fields.type).slice(0, 40)}", not "service_account" (expected ${KEY_FILE_HINT})`,
    );
    return null;
  }
  const field = (name: string): string | undefined => {
    const value = fields[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const before = problems.length;
  const clientEmail = field('client_email');
  if (!clientEmail) problems.push(`${source} has no client_email (expected ${KEY_FILE_HINT})`);
  // Not trimmed: the scrubber is given the key exactly as the file holds it.
  let privateKey = field('private_key') ? (fields.private_key as string) : undefined;
  if (!privateKey) {
    problems.push(`${source} has no private_key`);
  } else {
    // A key pasted into an environment variable often arrives with its newlines as literal "\n".
    if (!privateKey.includes('\n') && privateKey.includes('\\n')) privateKey = privateKey.replace(/\\n/g, '\n');
    try {
      const key = createPrivateKey(privateKey);
      if (key.asymmetricKeyType !== 'rsa') problems.push(`${source} private_key is not an RSA key`);
    } catch {
      problems.push(`${source} private_key is not a readable PEM private key`);
    }
  }
  const tokenUri = checkHttpsUrl(`${source} token_uri`, field('token_uri') ?? GOOGLE_DEFAULT_TOKEN_URI, problems);
  if (problems.length > before || !clientEmail || !privateKey) return null;
  return {
    clientEmail,
    privateKey,
    privateKeyId: field('private_key_id') ?? null,
    tokenUri,
    projectId: field('project_id'),
  };
}

function readCa(path: string | undefined, readFile: (path: string) => string, problems: string[]): string | null {
  if (!path) return null;
  let pem: string;
  try {
    pem = readFile(path);
  } catch (error) {
    problems.push(`FCM_CA_FILE (${path}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    return null;
  }
  try {
    new X509Certificate(pem);
  } catch {
    problems.push(`FCM_CA_FILE (${path}) does not contain a PEM certificate`);
    return null;
  }
  return pem;
}

/** An https URL without credentials; returned without its trailing slash. */
function checkHttpsUrl(what: string, value: string, problems: string[]): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:') problems.push(`${what} must be an https:// URL`);
    if (url.username || url.password) problems.push(`${what} must not contain credentials`);
  } catch {
    problems.push(`${what} is not a valid URL`);
  }
  return value.replace(/\/+$/, '');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
