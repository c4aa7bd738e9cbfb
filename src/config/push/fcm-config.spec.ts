import { generateKeyPairSync } from 'node:crypto';
import { FCM_DEFAULT_URL, GOOGLE_DEFAULT_TOKEN_URI, loadFcmConfig } from './fcm-config';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const { privateKey: ecKey } = generateKeyPairSync('ec', {
  namedCurve: 'P-256',
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

const account = {
  type: 'service_account',
  project_id: 'chat-prod',
  private_key_id: 'abc123',
  private_key: privateKey,
  client_email: 'push@chat-prod.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
};

function load(env: NodeJS.ProcessEnv, files: Record<string, string> = {}) {
  const problems: string[] = [];
  const config = loadFcmConfig(env, problems, (path) => {
    if (path in files) return files[path];
    throw Object.assign(new Error('missing'), { code: 'ENOENT' });
  });
  return { config, problems };
}

describe('loadFcmConfig', () => {
  it('is null, without problems, when no FCM variable is set', () => {
    expect(load({})).toEqual({ config: null, problems: [] });
  });

  it('reads the key JSON from FCM_SERVICE_ACCOUNT, with the defaults', () => {
    const { config, problems } = load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, token_uri: undefined }) });
    expect(problems).toEqual([]);
    expect(config).toEqual({
      projectId: 'chat-prod',
      clientEmail: account.client_email,
      privateKey,
      privateKeyId: 'abc123',
      tokenUri: GOOGLE_DEFAULT_TOKEN_URI,
      baseUrl: FCM_DEFAULT_URL,
      caPem: null,
      secrets: [privateKey, 'abc123'],
    });
  });

  it('reads the key file, FCM_PROJECT_ID over project_id, FCM_URL and the key file token_uri', () => {
    const { config, problems } = load(
      {
        FCM_SERVICE_ACCOUNT_FILE: '/keys/fcm.json',
        FCM_PROJECT_ID: 'chat-staging',
        FCM_URL: 'https://fcm-proxy.internal:8443/',
      },
      { '/keys/fcm.json': JSON.stringify({ ...account, token_uri: 'https://oauth.proxy.internal/token' }) },
    );
    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      projectId: 'chat-staging',
      baseUrl: 'https://fcm-proxy.internal:8443',
      tokenUri: 'https://oauth.proxy.internal/token',
    });
  });

  it('accepts a private key whose newlines arrived as literal \\n', () => {
    const flattened = JSON.stringify({ ...account, private_key: privateKey.replace(/\n/g, '\\n') });
    const { config, problems } = load({ FCM_SERVICE_ACCOUNT: flattened });
    expect(problems).toEqual([]);
    expect(config?.privateKey).toBe(privateKey);
  });

  it('names the missing key when only the other variables are set', () => {
    expect(load({ FCM_PROJECT_ID: 'chat-prod' }).problems).toEqual([
      'FCM_SERVICE_ACCOUNT_FILE or FCM_SERVICE_ACCOUNT is required when FCM_PROJECT_ID is set',
    ]);
  });

  it('refuses both sources at once', () => {
    const { config, problems } = load(
      { FCM_SERVICE_ACCOUNT: JSON.stringify(account), FCM_SERVICE_ACCOUNT_FILE: '/k.json' },
      { '/k.json': JSON.stringify(account) },
    );
    expect(config).toBeNull();
    expect(problems).toContain('set only one of FCM_SERVICE_ACCOUNT_FILE and FCM_SERVICE_ACCOUNT');
  });

  it('reports an unreadable file and non-JSON text without quoting the text', () => {
    expect(load({ FCM_SERVICE_ACCOUNT_FILE: '/nope.json' }).problems).toEqual([
      'FCM_SERVICE_ACCOUNT_FILE (/nope.json) cannot be read: ENOENT',
    ]);
    const { problems } = load({ FCM_SERVICE_ACCOUNT: '{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIsecret' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^FCM_SERVICE_ACCOUNT is not valid JSON/);
    expect(problems[0]).not.toContain('MIIsecret');
  });

  it('names each missing or unusable field', () => {
    const missing = load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ type: 'service_account' }) }).problems;
    expect(missing).toEqual([expect.stringContaining('has no client_email'), 'FCM_SERVICE_ACCOUNT has no private_key']);
    expect(load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, private_key: 'not a key' }) }).problems).toEqual([
      'FCM_SERVICE_ACCOUNT private_key is not a readable PEM private key',
    ]);
    expect(load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, private_key: ecKey }) }).problems).toEqual([
      'FCM_SERVICE_ACCOUNT private_key is not an RSA key',
    ]);
    expect(
      load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, token_uri: 'http://oauth/token' }) }).problems,
    ).toEqual(['FCM_SERVICE_ACCOUNT token_uri must be an https:// URL']);
    expect(
      load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, type: 'authorized_user' }) }).problems[0],
    ).toContain('not "service_account"');
  });

  it('needs a project ID from somewhere', () => {
    expect(load({ FCM_SERVICE_ACCOUNT: JSON.stringify({ ...account, project_id: undefined }) }).problems).toEqual([
      'FCM_PROJECT_ID is required: FCM_SERVICE_ACCOUNT has no project_id',
    ]);
  });

  it('checks FCM_URL and FCM_CA_FILE', () => {
    const env = { FCM_SERVICE_ACCOUNT: JSON.stringify(account) };
    expect(load({ ...env, FCM_URL: 'http://fcm.googleapis.com' }).problems).toEqual([
      'FCM_URL must be an https:// URL',
    ]);
    expect(load({ ...env, FCM_URL: 'https://user:pw@proxy' }).problems).toEqual([
      'FCM_URL must not contain credentials',
    ]);
    expect(load({ ...env, FCM_CA_FILE: '/ca.pem' }).problems).toEqual(['FCM_CA_FILE (/ca.pem) cannot be read: ENOENT']);
    expect(load({ ...env, FCM_CA_FILE: '/ca.pem' }, { '/ca.pem': 'garbage' }).problems).toEqual([
      'FCM_CA_FILE (/ca.pem) does not contain a PEM certificate',
    ]);
  });
});
