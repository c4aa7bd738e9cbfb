import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './app-config';
import { applyDevSecrets, describeDevSecrets } from './dev-secrets';

describe('applyDevSecrets', () => {
  const file = () => join(mkdtempSync(join(tmpdir(), 'devsecrets-')), 'nested', 'dev-secrets.json');

  it('generates missing secrets once, into a 0600 file, and reuses them', () => {
    const path = file();
    const env: NodeJS.ProcessEnv = { SDK_SECRET: 'given-by-operator-0123456789abcdef' };
    const first = applyDevSecrets(env, path)!;
    expect(first.path).toBe(path);
    expect(first.read).toEqual([]);
    expect(first.generated).toEqual(['JWT_SECRET', 'RTC_SDK_APP_ID', 'RTC_CALLBACK_SECRET', 'RTC_SECRET_KEY']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(env.SDK_SECRET).toBe('given-by-operator-0123456789abcdef');
    expect(env.JWT_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(env.RTC_SDK_APP_ID).toMatch(/^[1-9][0-9]+$/);
    // Shaped like the provider console's SDKSecretKey, and a key of its own.
    expect(env.RTC_SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect([env.SDK_SECRET, env.JWT_SECRET, env.RTC_CALLBACK_SECRET]).not.toContain(env.RTC_SECRET_KEY);
    const again: NodeJS.ProcessEnv = {};
    const second = applyDevSecrets(again, path)!;
    // SDK_SECRET came from the environment the first time, so only now is it generated.
    expect(second.generated).toEqual(['SDK_SECRET']);
    expect(second.read).toEqual(['JWT_SECRET', 'RTC_SDK_APP_ID', 'RTC_CALLBACK_SECRET', 'RTC_SECRET_KEY']);
    expect(again.JWT_SECRET).toBe(env.JWT_SECRET);
    expect(JSON.parse(readFileSync(path, 'utf8')).SDK_SECRET).toBe(again.SDK_SECRET);
  });

  it('does nothing in production or when everything is set', () => {
    expect(applyDevSecrets({ NODE_ENV: 'production' }, file())).toBeNull();
    expect(
      applyDevSecrets(
        { SDK_SECRET: 'a', JWT_SECRET: 'b', RTC_SDK_APP_ID: '1', RTC_CALLBACK_SECRET: 'c', RTC_SECRET_KEY: 'd' },
        file(),
      ),
    ).toBeNull();
  });

  it('adds RTC_SECRET_KEY to a file written before it existed, keeping the other values', () => {
    const path = file();
    const before: NodeJS.ProcessEnv = {};
    applyDevSecrets(before, path);
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
    delete stored.RTC_SECRET_KEY;
    writeFileSync(path, JSON.stringify(stored));
    const after: NodeJS.ProcessEnv = {};
    expect(applyDevSecrets(after, path)!.generated).toEqual(['RTC_SECRET_KEY']);
    expect(after.RTC_SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(after.RTC_SECRET_KEY).not.toBe(before.RTC_SECRET_KEY);
    expect(after.JWT_SECRET).toBe(before.JWT_SECRET);
    expect(JSON.parse(readFileSync(path, 'utf8')).RTC_SECRET_KEY).toBe(after.RTC_SECRET_KEY);
  });

  it('says whether the secrets were generated into the file or read from it, never their values', () => {
    const path = file();
    const env: NodeJS.ProcessEnv = {};
    const created = describeDevSecrets(applyDevSecrets(env, path)!);
    expect(created).toContain(`generated SDK_SECRET, JWT_SECRET`);
    expect(created).not.toContain('read ');
    const reread = describeDevSecrets(applyDevSecrets({}, path)!);
    expect(reread).toMatch(/^Development secrets: read SDK_SECRET, .* from /);
    expect(reread).not.toContain('generated');
    for (const value of Object.values(env)) {
      expect(created).not.toContain(value);
      expect(reread).not.toContain(value);
    }
  });

  it('generated values pass the boot checks', () => {
    const env: NodeJS.ProcessEnv = {};
    applyDevSecrets(env, file());
    expect(() => loadConfig({ ...env, NODE_ENV: 'production' })).not.toThrow();
  });
});
