import { randomBytes } from 'node:crypto';
import { TestApp, startTestApp } from '../helpers/test-app';
import { RateLimiter } from '../../src/common/rate-limit/rate-limiter';
import { ApiClient } from '../helpers/api-client';
import { expectFail } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';

describe('per-user rate limits (1005)', () => {
  describe('in memory, one instance', () => {
    let t: TestApp;
    let api: ApiClient;
    beforeAll(async () => {
      t = await startTestApp({ RATE_LIMITS: 'client_error=3/60s,report=2/60s' });
      api = new ApiClient(t);
      t.clock.set(Date.UTC(2030, 0, 1, 0, 0, 1));
    });
    afterAll(() => t.close());

    it('refuses the request past the limit with 1005, per user, and allows again in the next window', async () => {
      const [alice, bob] = await api.users(2);
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await api.raw.clientError(alice, clientErrorBody(alice))).body.code);
      expect(codes).toEqual([0, 0, 0, 1005]);
      expect((await api.raw.clientError(bob, clientErrorBody(bob))).body.code).toBe(0);
      t.clock.advance(60_000);
      expect((await api.raw.clientError(alice, clientErrorBody(alice))).body.code).toBe(0);
    });

    it('answers 1005 with the envelope and stores nothing', async () => {
      const [alice, target] = await api.users(2);
      const report = (n: number) =>
        api.raw.reportUser(alice, { user_id: target.userId, request_id: `r-${n}`, reason_code: 1 });
      expect((await report(1)).body.code).toBe(0);
      expect((await report(2)).body.code).toBe(0);
      expectFail(await report(3), 1005, 'too many');
    });
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (redisUrl ? describe : describe.skip)('in Redis, shared by two instances (TEST_REDIS_URL)', () => {
    let first: TestApp;
    let second: TestApp;
    beforeAll(async () => {
      // Both instances share one database and one Redis, as two replicas behind a balancer would;
      // a Redis prefix of their own, so that their clock far ahead (below) sweeps no other spec
      // file's presence on the shared Redis.
      const env = {
        RATE_LIMITS: 'client_error=4/60s',
        REDIS_URL: redisUrl as string,
        REDIS_KEY_PREFIX: `e2e-${randomBytes(6).toString('hex')}:`,
      };
      first = await startTestApp(env);
      second = await startTestApp({
        ...env,
        DATABASE_URL:
          first.config.database.type === 'sqlite'
            ? `sqlite:${first.config.database.path}`
            : (process.env.E2E_DATABASE_URL as string),
        MIGRATIONS_RUN: 'false',
      });
      // Redis outlives test runs and internal user IDs repeat between runs: a random future
      // window keeps this run's counters apart.
      const window = Date.UTC(2040, 0, 1) + Math.floor(Math.random() * 1e6) * 60_000 + 1000;
      first.clock.set(window);
      second.clock.set(window);
      // An instance whose Redis connection is not up yet counts in memory (the outage path):
      // start counting only once both are connected.
      for (const app of [first, second]) expect(await app.app.get(RateLimiter).storeUp(5000)).toBe(true);
    });
    afterAll(async () => {
      await second.close();
      await first.close();
    });

    it('counts requests to either instance against one limit', async () => {
      const [one, two] = [new ApiClient(first), new ApiClient(second)];
      const alice = await one.user();
      const codes: number[] = [];
      for (let i = 0; i < 6; i++)
        codes.push((await (i % 2 === 0 ? one : two).raw.clientError(alice, clientErrorBody(alice))).body.code);
      expect(codes).toEqual([0, 0, 0, 0, 1005, 1005]);
    });
  });
});
