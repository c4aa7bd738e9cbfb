import { ConfigError, loadConfig } from './app-config';
import { loadRetentionConfig } from './retention-config';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  loadRetentionConfig(env, problems);
  return problems;
}

describe('loadRetentionConfig', () => {
  it('keeps client errors and room events 30 days and idempotency records 7, pruning every 10 minutes in batches of 500', () => {
    expect(loadRetentionConfig({}, [])).toEqual({
      clientErrorsDays: 30,
      roomEventsDays: 30,
      idempotencyDays: 7,
      intervalSeconds: 600,
      batchSize: 500,
    });
  });

  it('reads every variable, 0 days meaning keep for ever', () => {
    const env = {
      RETENTION_CLIENT_ERRORS_DAYS: '0',
      RETENTION_ROOM_EVENTS_DAYS: '90',
      RETENTION_IDEMPOTENCY_DAYS: '1',
      RETENTION_INTERVAL_SECONDS: '10',
      RETENTION_BATCH_SIZE: '10000',
    };
    expect(loadRetentionConfig(env, [])).toEqual({
      clientErrorsDays: 0,
      roomEventsDays: 90,
      idempotencyDays: 1,
      intervalSeconds: 10,
      batchSize: 10000,
    });
  });

  it.each([
    ['RETENTION_CLIENT_ERRORS_DAYS', '-1'],
    ['RETENTION_CLIENT_ERRORS_DAYS', '3651'],
    ['RETENTION_ROOM_EVENTS_DAYS', '1.5'],
    ['RETENTION_IDEMPOTENCY_DAYS', 'seven'],
    ['RETENTION_INTERVAL_SECONDS', '9'],
    ['RETENTION_INTERVAL_SECONDS', '86401'],
    ['RETENTION_BATCH_SIZE', '0'],
    ['RETENTION_BATCH_SIZE', '10001'],
    ['RETENTION_BATCH_SIZE', '1e3'],
  ])('refuses %s=%s, naming the variable and its range', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name} must be an integer from \\d+ to \\d+`));
  });

  it('is part of the application configuration, its problems reported with the others', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).retention.idempotencyDays).toBe(7);
    try {
      loadConfig({ NODE_ENV: 'test', RETENTION_BATCH_SIZE: 'x', RETENTION_INTERVAL_SECONDS: '1', PORT: 'http' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems;
      expect(problems.filter((p) => /^(RETENTION_BATCH_SIZE|RETENTION_INTERVAL_SECONDS|PORT) /.test(p))).toHaveLength(
        3,
      );
    }
  });
});
