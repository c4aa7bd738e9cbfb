import { clientErrorReport } from './helpers/client-error';
import { TestApp, bearer, issueUser, startTestApp } from './helpers/test-app';

describe('per-user rate limits (1005)', () => {
  describe('in memory, one instance', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMITS: 'client_error=3/60s,report=2/60s' });
      t.clock.set(Date.UTC(2030, 0, 1, 0, 0, 1));
    });
    afterAll(() => t.close());

    it('refuses the request past the limit with 1005, per user, and allows again in the next window', async () => {
      const alice = await issueUser(t);
      const bob = await issueUser(t);
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await t.http.post('/app/sdk/client-errors').set(...bearer(alice.token)).send(clientErrorReport(alice.userId))).body.code);
      expect(codes).toEqual([0, 0, 0, 1005]);
      expect((await t.http.post('/app/sdk/client-errors').set(...bearer(bob.token)).send(clientErrorReport(bob.userId))).body.code).toBe(0);
      t.clock.advance(60_000);
      expect((await t.http.post('/app/sdk/client-errors').set(...bearer(alice.token)).send(clientErrorReport(alice.userId))).body.code).toBe(0);
    });

    it('answers 1005 with the envelope and stores nothing', async () => {
      const alice = await issueUser(t);
      const target = await issueUser(t);
      const report = (n: number) => t.http.post('/app/sdk/reports/user').set(...bearer(alice.token)).send({ user_id: target.userId, request_id: `r-${n}`, reason_code: 1 });
      expect((await report(1)).body.code).toBe(0);
      expect((await report(2)).body.code).toBe(0);
      const refused = await report(3);
      expect(refused.body).toEqual({ code: 1005, msg: expect.stringContaining('too many'), data: null });
    });
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (redisUrl ? describe : describe.skip)('in Redis, shared by two instances (TEST_REDIS_URL)', () => {
    let first: TestApp;
    let second: TestApp;
    beforeAll(async () => {
      // Both instances share one database and one Redis, as two replicas behind a balancer would.
      const env = { RATE_LIMITS: 'client_error=4/60s', REDIS_URL: redisUrl as string };
      first = await startTestApp(env);
      second = await startTestApp({ ...env, DATABASE_URL: first.config.database.type === 'sqlite' ? `sqlite:${first.config.database.path}` : (process.env.E2E_DATABASE_URL as string), MIGRATIONS_RUN: 'false' });
      // Redis outlives test runs and internal user IDs repeat between runs: a random future
      // window keeps this run's counters apart.
      const window = Date.UTC(2040, 0, 1) + Math.floor(Math.random() * 1e6) * 60_000 + 1000;
      first.clock.set(window);
      second.clock.set(window);
    });
    afterAll(async () => {
      await second.close();
      await first.close();
    });

    it('counts requests to either instance against one limit', async () => {
      const alice = await issueUser(first);
      const codes: number[] = [];
      for (let i = 0; i < 6; i++) {
        const instance = i % 2 === 0 ? first : second;
        codes.push((await instance.http.post('/app/sdk/client-errors').set(...bearer(alice.token)).send(clientErrorReport(alice.userId))).body.code);
      }
      expect(codes).toEqual([0, 0, 0, 0, 1005, 1005]);
    });
  });
});
