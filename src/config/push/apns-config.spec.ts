import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { loadApnsConfig } from './apns-config';

describe('loadApnsConfig', () => {
  const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const dir = mkdtempSync(join(tmpdir(), 'apns-config-'));
  const keyFile = join(dir, 'AuthKey_ABC123DEFG.p8');
  writeFileSync(keyFile, pem);
  const base = {
    APNS_KEY_FILE: keyFile,
    APNS_KEY_ID: 'ABC123DEFG',
    APNS_TEAM_ID: 'TEAM123456',
    APNS_TOPIC: 'com.example.chat',
  };

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const load = (env: NodeJS.ProcessEnv): { config: ReturnType<typeof loadApnsConfig>; problems: string[] } => {
    const problems: string[] = [];
    return { config: loadApnsConfig(env, problems), problems };
  };

  it('is off when no APNS_ variable is set', () => {
    expect(load({ APNS_KEY_ID: '' })).toEqual({ config: null, problems: [] });
  });

  it('reads a complete configuration, production by default, the key PEM among the secrets', () => {
    const { config, problems } = load(base);
    expect(problems).toEqual([]);
    expect(config).toMatchObject({
      keyId: 'ABC123DEFG',
      teamId: 'TEAM123456',
      topic: 'com.example.chat',
      environment: 'production',
      baseUrl: 'https://api.push.apple.com',
      caPem: null,
      secrets: [pem],
    });
    expect(config!.key.asymmetricKeyType).toBe('ec');
  });

  it('takes the key inline with \\n escapes, sandbox, a URL override and an extra CA', async () => {
    const caFile = join(dir, 'ca.pem');
    const { cert } = await generate([{ name: 'commonName', value: 'proxy.local' }], { keyType: 'ec' });
    writeFileSync(caFile, cert);
    const inline = pem.replace(/\n/g, '\\n');
    const { config, problems } = load({
      APNS_KEY: inline,
      APNS_KEY_ID: 'ABC123DEFG',
      APNS_TEAM_ID: 'TEAM123456',
      APNS_TOPIC: 'com.example.chat',
      APNS_ENVIRONMENT: 'sandbox',
      APNS_URL: 'https://127.0.0.1:8443/',
      APNS_CA_FILE: caFile,
    });
    expect(problems).toEqual([]);
    expect(config).toMatchObject({ environment: 'sandbox', baseUrl: 'https://127.0.0.1:8443', caPem: cert });
    expect(config!.secrets).toEqual([pem, inline]);
    expect(load({ ...base, APNS_ENVIRONMENT: 'sandbox' }).config!.baseUrl).toBe('https://api.sandbox.push.apple.com');
    writeFileSync(caFile, 'not a certificate');
    expect(load({ ...base, APNS_CA_FILE: caFile }).problems).toEqual([
      `APNS_CA_FILE does not hold a PEM certificate: ${caFile}`,
    ]);
  });

  it('names each missing variable', () => {
    const { config, problems } = load({ APNS_TOPIC: 'com.example.chat' });
    expect(config).toBeNull();
    expect(problems).toEqual([
      'APNS_KEY_FILE (or APNS_KEY) is required when APNS_TOPIC is set',
      'APNS_KEY_ID is required when APNS_TOPIC is set',
      'APNS_TEAM_ID is required when APNS_TOPIC is set',
    ]);
  });

  it('rejects malformed values', () => {
    const { problems } = load({
      ...base,
      APNS_KEY_ID: 'short',
      APNS_TEAM_ID: 'team123456',
      APNS_TOPIC: 'com.example.chat.voip',
      APNS_ENVIRONMENT: 'development',
      APNS_URL: 'http://proxy.local/apns',
    });
    expect(problems).toEqual([
      'APNS_KEY_ID must be the 10-character key ID (A-Z, 0-9)',
      'APNS_TEAM_ID must be the 10-character team ID (A-Z, 0-9)',
      "APNS_TOPIC must be the app's bundle ID without .voip (VoIP pushes add it themselves)",
      'APNS_ENVIRONMENT must be one of production, sandbox (got "development")',
      'APNS_URL must be an https:// origin without a path',
    ]);
  });

  it('rejects a key that is not an EC P-256 private key, without quoting it', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(load({ ...base, APNS_KEY_FILE: undefined, APNS_KEY: rsa }).problems).toEqual([
      'APNS_KEY must be an EC P-256 private key (an APNs .p8 key), not rsa',
    ]);
    expect(load({ ...base, APNS_KEY_FILE: undefined, APNS_KEY: p384 }).problems).toEqual([
      'APNS_KEY must be an EC P-256 private key (an APNs .p8 key), not ec secp384r1',
    ]);
    const garbage = load({ ...base, APNS_KEY_FILE: undefined, APNS_KEY: 'secret-looking-text' }).problems;
    expect(garbage).toEqual(['APNS_KEY is not a PEM private key (expected the AuthKey_<key ID>.p8 file from Apple)']);
    expect(load({ ...base, APNS_KEY: pem }).problems).toEqual(['APNS_KEY_FILE and APNS_KEY are both set: set one']);
    expect(load({ ...base, APNS_KEY_FILE: join(dir, 'missing.p8') }).problems).toEqual([
      `APNS_KEY_FILE cannot be read (ENOENT): ${join(dir, 'missing.p8')}`,
    ]);
  });
});
