import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyDevSecrets } from './dev-secrets';

describe('applyDevSecrets', () => {
  const file = () => join(mkdtempSync(join(tmpdir(), 'devsecrets-')), 'nested', 'dev-secrets.json');

  it('generates missing secrets once, into a 0600 file, and reuses them', () => {
    const path = file();
    const env: NodeJS.ProcessEnv = { SDK_SECRET: 'given-by-operator-0123456789abcdef' };
    expect(applyDevSecrets(env, path)).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(env.SDK_SECRET).toBe('given-by-operator-0123456789abcdef');
    expect(env.JWT_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(env.RTC_SDK_APP_ID).toMatch(/^[1-9][0-9]+$/);
    const again: NodeJS.ProcessEnv = {};
    applyDevSecrets(again, path);
    expect(again.JWT_SECRET).toBe(env.JWT_SECRET);
    expect(JSON.parse(readFileSync(path, 'utf8')).SDK_SECRET).toBe(again.SDK_SECRET);
  });

  it('does nothing in production or when everything is set', () => {
    expect(applyDevSecrets({ NODE_ENV: 'production' }, file())).toBeNull();
    expect(applyDevSecrets({ SDK_SECRET: 'a', JWT_SECRET: 'b', RTC_SDK_APP_ID: '1', RTC_CALLBACK_SECRET: 'c' }, file())).toBeNull();
  });
});
