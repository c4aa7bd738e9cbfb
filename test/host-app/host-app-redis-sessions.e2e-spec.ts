// Host-app sessions in Redis (HOST_SESSION_STORE=redis): what is stored and for how long, the
// owner's index behind "end the other sessions", and a Redis that does not answer.
import Redis from 'ioredis';
import { sessionIdHash } from '../../src/common/security/session-ids';
import { TestApp, startTestApp } from '../helpers/test-app';
import {
  HOST_PASSWORD,
  SAME_ORIGIN,
  freshCode,
  hostCookie,
  passwordLogin,
  randomPhone,
  sessionIdOf,
  signUp,
} from '../helpers/host-app-client';

const IDLE_SECONDS = 600;
const redisUrl = process.env.TEST_REDIS_URL;

(redisUrl ? describe : describe.skip)('host-app sessions in Redis (TEST_REDIS_URL)', () => {
  let t: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    t = await startTestApp({
      HOST_SESSION_STORE: 'redis',
      REDIS_URL: redisUrl!,
      HOST_SESSION_IDLE_SECONDS: String(IDLE_SECONDS),
      HOST_SESSION_ABSOLUTE_SECONDS: '3600',
      SMS_PHONE_INTERVAL_SECONDS: '0',
      SMS_PER_ADDRESS: '100000',
      HOST_LOGIN_ATTEMPTS_PER_ADDRESS: '100000',
      HOST_LOGIN_ATTEMPTS_PER_ACCOUNT: '1000',
    });
    redis = new Redis(redisUrl!);
  });
  afterAll(async () => {
    await redis.quit();
    await t.close();
  });

  const keyOf = (cookie: string) => `im:host-session:${sessionIdHash(sessionIdOf(cookie))}`;
  const indexOf = (userId: string) => `im:host-sessions:${userId}`;

  it('stores only the hash of the ID, with the account and both clocks, dropped by Redis after the idle time', async () => {
    const account = await signUp(t);
    const key = keyOf(account.cookie);
    const stored = await redis.hgetall(key);
    expect(Object.keys(stored).sort()).toEqual(['a', 'c', 's', 'u']);
    expect(stored.u).toBe(account.userId);
    expect(stored.c).toBe(stored.s);
    expect(JSON.stringify(stored)).not.toContain(sessionIdOf(account.cookie));
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan((IDLE_SECONDS - 10) * 1000);
    expect(ttl).toBeLessThanOrEqual(IDLE_SECONDS * 1000);
    expect(await redis.smembers(indexOf(account.userId))).toEqual([sessionIdHash(sessionIdOf(account.cookie))]);
    expect(await redis.pttl(indexOf(account.userId))).toBeGreaterThan(3500 * 1000);

    // Uses a minute or more apart are written; the time left never passes the absolute lifetime.
    for (let step = 0; step < 6; step++) {
      t.clock.advance(9 * 60_000);
      const before = t.clock.now();
      expect((await account.get('/app/auth/me')).body.code).toBe(0);
      const seen = Number(await redis.hget(key, 's'));
      expect(seen).toBeGreaterThanOrEqual(before);
      expect(seen).toBeLessThanOrEqual(t.clock.now());
    }
    // 54 minutes after login: 6 minutes are left of the hour, less than the idle 10.
    const left = await redis.pttl(key);
    expect(left).toBeGreaterThan(350_000);
    expect(left).toBeLessThanOrEqual(360_000);

    // Logout removes the session and its index entry.
    await account.post('/app/auth/logout');
    expect(await redis.exists(key)).toBe(0);
    expect(await redis.smembers(indexOf(account.userId))).toEqual([]);
  });

  it('a session Redis no longer has is a 401 (1102), and a touch never brings it back', async () => {
    const account = await signUp(t);
    await redis.del(keyOf(account.cookie));
    t.clock.advance(2 * 60_000);
    const me = await account.get('/app/auth/me');
    expect({ status: me.status, code: me.body.code }).toEqual({ status: 401, code: 1102 });
    expect(await redis.exists(keyOf(account.cookie))).toBe(0);
  });

  it('ends the other sessions on a password change through the index, and sweeps entries Redis expired', async () => {
    const account = await signUp(t);
    const others: string[] = [];
    for (let i = 0; i < 24; i++) others.push(hostCookie(await passwordLogin(t, account.phone)));
    // Redis expiring some sessions by itself: the next login sweeps them from the index.
    await redis.del(...others.slice(0, 10).map(keyOf));
    const last = hostCookie(await passwordLogin(t, account.phone));
    const index = await redis.smembers(indexOf(account.userId));
    expect(index.sort()).toEqual(
      [account.cookie, ...others.slice(10), last].map((cookie) => sessionIdHash(sessionIdOf(cookie))).sort(),
    );

    const changed = await t.http
      .post('/app/auth/password')
      .set('Cookie', last)
      .set(...SAME_ORIGIN)
      .send({ old_password: HOST_PASSWORD, new_password: 'another password' });
    expect(changed.body.code).toBe(0);
    expect(await redis.smembers(indexOf(account.userId))).toEqual([sessionIdHash(sessionIdOf(last))]);
    for (const cookie of [account.cookie, ...others]) expect(await redis.exists(keyOf(cookie))).toBe(0);
    const stale = await t.http.get('/app/auth/me').set('Cookie', others[20]);
    expect(stale.status).toBe(401);
    expect((await t.http.get('/app/auth/me').set('Cookie', last)).body.code).toBe(0);
  });
});

describe('host-app sessions in Redis when Redis does not answer', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Port 1 on loopback refuses at once, like a Redis that is down.
    t = await startTestApp({ HOST_SESSION_STORE: 'redis', REDIS_URL: 'redis://127.0.0.1:1', REDIS_TIMEOUT_MS: '100' });
  });
  afterAll(() => t.close());

  const unavailable = {
    code: 1500,
    msg: 'service temporarily unavailable: the session store (Redis) did not answer; retry later',
    data: null,
  };

  it('answers 503 / 1500 where a session is needed, and the rest of the service keeps working', async () => {
    const me = await t.http.get('/app/auth/me').set('PHPSID', 'A'.repeat(43));
    expect({ status: me.status, body: me.body }).toEqual({ status: 503, body: unavailable });

    const phone = randomPhone();
    const code = await freshCode(t, phone, 'signup');
    const signup = await t.http
      .post('/app/auth/signup')
      .set(...SAME_ORIGIN)
      .send({ phone, code, password: HOST_PASSWORD, nickname: 'Waiting' });
    expect({ status: signup.status, body: signup.body }).toEqual({ status: 503, body: unavailable });
    // No session was handed out, and the account can log in once Redis is back (here: still 503).
    expect(signup.headers['set-cookie']).toBeUndefined();
    const login = await passwordLogin(t, phone);
    expect({ status: login.status, body: login.body }).toEqual({ status: 503, body: unavailable });

    expect((await t.http.get('/health')).body.code).toBe(0);
  });
});
