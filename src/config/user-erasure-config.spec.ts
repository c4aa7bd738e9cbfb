import { loadUserErasureConfig } from './user-erasure-config';

describe('ERASE_KEEPS_MESSAGES', () => {
  it('defaults to false (tombstones) when unset or empty', () => {
    for (const env of [{}, { ERASE_KEEPS_MESSAGES: '' }]) {
      const problems: string[] = [];
      expect(loadUserErasureConfig(env, problems)).toEqual({ keepsMessages: false });
      expect(problems).toEqual([]);
    }
  });

  it('reads true and false', () => {
    const problems: string[] = [];
    expect(loadUserErasureConfig({ ERASE_KEEPS_MESSAGES: 'true' }, problems).keepsMessages).toBe(true);
    expect(loadUserErasureConfig({ ERASE_KEEPS_MESSAGES: 'false' }, problems).keepsMessages).toBe(false);
    expect(problems).toEqual([]);
  });

  it('reports anything else as a problem naming the setting', () => {
    for (const raw of ['1', 'yes', 'TRUE', ' true']) {
      const problems: string[] = [];
      loadUserErasureConfig({ ERASE_KEEPS_MESSAGES: raw }, problems);
      expect(problems).toEqual([expect.stringContaining('ERASE_KEEPS_MESSAGES must be true or false')]);
    }
  });
});
