import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { DatabaseTimeoutError } from '../../src/database/pool-guard';
import { clientErrorReport } from '../helpers/client-error';
import {
  TEST_SECRETS,
  TestApp,
  bearer,
  hostAuth,
  issueUser,
  okData,
  randomUserId,
  startTestApp,
} from '../helpers/test-app';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Two values of one header: supertest sends an array as repeated headers, though its types only allow it for Cookie. */
const twice = (first: string, second: string): string => [first, second] as unknown as string;

/** A raw HTTP/1.1 exchange, for what supertest cannot send (20 KB of headers). */
function rawRequest(
  t: TestApp,
  headers: Record<string, string>,
  path = '/health',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const server = t.app.getHttpServer();
  if (!server.listening) server.listen(0, '127.0.0.1');
  return new Promise((resolve, reject) => {
    const send = () => {
      const { port } = server.address() as AddressInfo;
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    };
    if (server.listening) send();
    else server.once('listening', send);
  });
}

describe('operations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: 'https://app.example.com,http://localhost:5173' });
  });
  afterAll(async () => {
    const server = t.app.getHttpServer();
    if (server.listening) server.close();
    await t.close();
  });

  describe('liveness and readiness', () => {
    it('/health answers without asking any dependency', async () => {
      const reply = await t.http.get('/health');
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ code: 0, msg: 'ok', data: { status: 'ok' } });
    });

    it('/health/ready checks the database (Redis is not configured here)', async () => {
      const reply = await t.http.get('/health/ready');
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ code: 0, msg: 'ok', data: { status: 'ready', database: 'up', redis: 'disabled' } });
    });
  });

  describe('trace IDs', () => {
    it('returns a well-formed X-Request-Id unchanged, on success and on failure', async () => {
      const ok = await t.http.get('/health').set('X-Request-Id', 'web-7f3a.42');
      expect(ok.headers['x-request-id']).toBe('web-7f3a.42');
      const failed = await t.http.post('/app/sdk/sync').set('X-Request-Id', 'web-7f3a.43').send({});
      expect(failed.body.code).toBe(1101);
      expect(failed.headers['x-request-id']).toBe('web-7f3a.43');
      const unknown = await t.http.get('/no/such/route').set('X-Request-Id', 'web-7f3a.44');
      expect(unknown.status).toBe(404);
      expect(unknown.headers['x-request-id']).toBe('web-7f3a.44');
    });

    it('generates a UUID v4 when the header is absent, malformed, or shaped like a credential', async () => {
      const user = await issueUser(t);
      for (const header of [undefined, 'has space', 'x'.repeat(65), user.token, TEST_SECRETS.SDK_SECRET]) {
        const call = t.http.get('/health');
        const reply = header === undefined ? await call : await call.set('X-Request-Id', header);
        expect(reply.headers['x-request-id']).toMatch(UUID_V4);
      }
    });

    it('answers a malformed JSON body with the envelope and a trace ID', async () => {
      const reply = await t.http
        .post('/app/sdk/token')
        .set(...hostAuth())
        .set('Content-Type', 'application/json')
        .send('{"user_id":');
      expect(reply.body).toEqual({ code: 1004, msg: 'body: malformed JSON', data: null });
      expect(reply.headers['x-request-id']).toMatch(UUID_V4);
    });
  });

  describe('credentials', () => {
    it('refuses two Authorization headers (1102) on SDK and host endpoints, and changes nothing', async () => {
      const user = await issueUser(t);
      const other = await issueUser(t);
      const sdk = await t.http
        .post('/app/sdk/sync')
        .set('Authorization', twice(`Bearer ${user.token}`, `Bearer ${other.token}`))
        .send({});
      expect(sdk.body).toEqual({
        code: 1102,
        msg: 'Authorization: sent more than once; send exactly one credential',
        data: null,
      });
      const same = await t.http
        .post('/app/sdk/sync')
        .set('Authorization', twice(`Bearer ${user.token}`, `Bearer ${user.token}`))
        .send({});
      expect(same.body.code).toBe(1102);
      const userId = randomUserId();
      const host = await t.http
        .post('/app/sdk/token')
        .set('Authorization', twice(`Bearer ${TEST_SECRETS.SDK_SECRET}`, `Bearer ${TEST_SECRETS.SDK_SECRET}`))
        .send({ user_id: userId, nickname: 'Dup' });
      expect(host.body.code).toBe(1102);
      const upsertCheck = await t.http
        .post('/app/sdk/users/upsert')
        .set(...hostAuth())
        .send({ user_id: userId, nickname: 'Later' });
      // The refused call created nothing: the first upsert of this ID is a creation.
      expect(okData<{ user: { nickname: string } }>(upsertCheck).user.nickname).toBe('Later');
    });

    it('answers headers over 16 KiB with the envelope (HTTP 431), not a bare status line', async () => {
      const reply = await rawRequest(t, { 'X-Padding': 'a'.repeat(20 * 1024) });
      expect(reply.status).toBe(431);
      expect(reply.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(reply.body)).toEqual({
        code: 1004,
        msg: expect.stringContaining('request headers: larger than 16 KiB'),
        data: null,
      });
    });

    it('answers the provider callback in its own format (403 {"code":1}) when its headers are too large', async () => {
      for (const path of [
        '/app/sdk/rtc/room-callback',
        `/app/sdk/rtc/room-callback?pad=${'a'.repeat(17_000)}`,
        '/APP/SDK/RTC/ROOM-CALLBACK/',
      ]) {
        const reply = await rawRequest(t, { 'X-Padding': 'a'.repeat(20 * 1024) }, path);
        expect({ status: reply.status, body: JSON.parse(reply.body) }).toEqual({ status: 403, body: { code: 1 } });
      }
      const other = await rawRequest(t, { 'X-Padding': 'a'.repeat(20 * 1024) }, '/app/sdk/rtc/room-callbacks');
      expect(other.status).toBe(431);
    });

    it('answers a long token in the header with the envelope too', async () => {
      const reply = await rawRequest(t, { Authorization: `Bearer ${'e'.repeat(17 * 1024)}` });
      expect(reply.status).toBe(431);
      expect(JSON.parse(reply.body).code).toBe(1004);
    });
  });

  describe('metrics', () => {
    it('serves Prometheus text with request counts by route template and envelope code', async () => {
      const user = await issueUser(t);
      await t.http
        .post('/app/sdk/sync')
        .set(...bearer(user.token))
        .send({});
      await t.http.post('/app/sdk/sync').send({});
      const reply = await t.http.get('/metrics');
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toMatch(/^text\/plain/);
      expect(reply.text).toMatch(
        /im_http_requests_total\{method="POST",route="\/app\/sdk\/sync",status="200",code="0"\} [1-9]/,
      );
      expect(reply.text).toMatch(
        /im_http_requests_total\{method="POST",route="\/app\/sdk\/sync",status="200",code="1101"\} [1-9]/,
      );
      expect(reply.text).toContain('im_http_request_duration_seconds_bucket');
      expect(reply.text).toContain('im_process_resident_memory_bytes');
      // No user's identity or token in a label.
      expect(reply.text).not.toContain(user.userId);
      expect(reply.text).not.toContain(user.token);
    });
  });

  describe('CORS', () => {
    it('answers a preflight from a listed origin on an SDK endpoint, cached, without credentials', async () => {
      const reply = await t.http
        .options('/app/sdk/sync')
        .set('Origin', 'https://app.example.com')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(reply.status).toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(reply.headers['access-control-allow-headers']).toBe('Authorization,Content-Type,X-Request-Id');
      expect(reply.headers['access-control-max-age']).toBe('7200');
      expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
      const actual = await t.http.post('/app/sdk/sync').set('Origin', 'http://localhost:5173').send({});
      expect(actual.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect(actual.headers['access-control-expose-headers']).toContain('X-Request-Id');
    });

    it('allows no other origin, and never the host-secret endpoints or the provider callback', async () => {
      const stranger = await t.http
        .options('/app/sdk/sync')
        .set('Origin', 'https://evil.example.com')
        .set('Access-Control-Request-Method', 'POST');
      expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
      for (const path of ['/app/sdk/token', '/app/sdk/users/upsert', '/app/sdk/rtc/room-callback', '/APP/SDK/TOKEN/']) {
        const reply = await t.http
          .options(path)
          .set('Origin', 'https://app.example.com')
          .set('Access-Control-Request-Method', 'POST');
        expect(reply.headers['access-control-allow-origin']).toBeUndefined();
      }
    });
  });

  (t_driver() === 'mysql' ? describe : describe.skip)('database time limits (MySQL)', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await startTestApp({ DB_QUERY_TIMEOUT_MS: '1500', DB_ACQUIRE_TIMEOUT_MS: '300' });
    });
    afterAll(() => limited.close());

    it('gives up a statement after DB_QUERY_TIMEOUT_MS, drops its connection, and the pool goes on', async () => {
      const dataSource = limited.app.get(DataSource);
      // MariaDB's max_statement_time (1.35 s here) or, failing that, the client's limit ends it.
      const outcome = await dataSource.query('SELECT SLEEP(3) AS slept').then(
        (rows: Array<{ slept: number }>) => ({ interruptedOnServer: rows[0].slept === 1 }),
        (error: { driverError?: { errno?: number } }) => ({
          failed: error.driverError instanceof DatabaseTimeoutError ? 'client' : error.driverError?.errno,
        }),
      );
      // 1969: MariaDB's max_statement_time exceeded; an uninterrupted SLEEP(3) would answer 0.
      expect([{ interruptedOnServer: true }, { failed: 1969 }, { failed: 'client' }]).toContainEqual(outcome);
      expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    });

    it('has the server fail a statement waiting on a lock before the client gives up, so it is never applied later', async () => {
      const dataSource = limited.app.get(DataSource);
      const userId = randomUserId();
      okData(
        await limited.http
          .post('/app/sdk/token')
          .set(...hostAuth())
          .send({ user_id: userId, nickname: 'Before' }),
      );
      const holder = dataSource.createQueryRunner();
      await holder.connect();
      await holder.startTransaction();
      try {
        await holder.query('SELECT id FROM users WHERE external_id = ? FOR UPDATE', [userId]);
        // innodb_lock_wait_timeout is 1 s for DB_QUERY_TIMEOUT_MS=1500: the server answers 1205 first
        // (the client's own timeout would reject with a DatabaseTimeoutError instead).
        await expect(
          dataSource.query('UPDATE users SET nickname = ? WHERE external_id = ?', ['Waiter', userId]),
        ).rejects.toMatchObject({ driverError: { code: 'ER_LOCK_WAIT_TIMEOUT' } });
      } finally {
        await holder.rollbackTransaction();
        await holder.release();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await dataSource.query('SELECT nickname FROM users WHERE external_id = ?', [userId])).toEqual([
        { nickname: 'Before' },
      ]);
    });

    it('answers 503 with code 1500 and Retry-After when no connection frees within DB_ACQUIRE_TIMEOUT_MS', async () => {
      const dataSource = limited.app.get(DataSource);
      // Every pooled connection (20) busy for longer than the acquire limit, within the statement limit.
      const holders = Array.from({ length: 20 }, () => dataSource.query('SELECT SLEEP(0.8)'));
      const userId = randomUserId();
      // A 503 shows the acquire limit gave up first: waiting for a free connection would succeed.
      const reply = await limited.http
        .post('/app/sdk/token')
        .set(...hostAuth())
        .send({ user_id: userId, nickname: 'Waiting' });
      expect(reply.status).toBe(503);
      expect(reply.headers['retry-after']).toBe('1');
      expect(reply.body).toEqual({
        code: 1500,
        msg: 'service temporarily unavailable: the database did not answer in time; retry later',
        data: null,
      });
      await Promise.all(holders);
      // The refused request changed nothing; once connections are free the same call succeeds.
      const retried = await limited.http
        .post('/app/sdk/token')
        .set(...hostAuth())
        .send({ user_id: userId, nickname: 'Waiting' });
      expect(okData<{ user: { user_id: string } }>(retried).user.user_id).toBe(userId);
      const metrics = await limited.http.get('/metrics');
      expect(metrics.text).toMatch(/im_db_timeouts_total\{phase="acquire"\} [1-9]/);
      expect(metrics.text).toMatch(/im_db_unavailable_replies_total [1-9]/);
    });
  });
});

describe('Redis outage (REDIS_URL unreachable)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Port 1 on loopback refuses at once, like a Redis that is down.
    t = await startTestApp({
      REDIS_URL: 'redis://127.0.0.1:1',
      RATE_LIMITS: 'client_error=3/60s',
      REDIS_TIMEOUT_MS: '100',
    });
  });
  afterAll(() => t.close());

  it('keeps rate-limited endpoints working with in-memory limits', async () => {
    const user = await issueUser(t);
    // The limit counts in fixed windows of the clock's minutes: hold the clock inside one, so that
    // these requests cannot straddle a minute's edge on a slow machine.
    t.clock.set(Math.ceil(t.clock.now() / 60_000) * 60_000 + 1000);
    const codes: number[] = [];
    for (let i = 0; i < 4; i++)
      codes.push(
        (
          await t.http
            .post('/app/sdk/client-errors')
            .set(...bearer(user.token))
            .send(clientErrorReport(user.userId))
        ).body.code,
      );
    expect(codes).toEqual([0, 0, 0, 1005]);
  });

  it('stays ready reporting Redis down, and shows the outage in the metrics', async () => {
    const ready = await t.http.get('/health/ready');
    expect(okData(ready)).toEqual({ status: 'ready', database: 'up', redis: 'down' });
    const metrics = await t.http.get('/metrics');
    expect(metrics.text).toMatch(/im_redis_up 0/);
    expect(metrics.text).toMatch(/im_redis_fallbacks_total [1-9]/);
    expect(metrics.text).toMatch(/im_rate_limit_refusals_total\{limit="client_error"\} [1-9]/);
  });

  it('fails readiness naming Redis with READY_REQUIRES_REDIS=true', async () => {
    const strict = await startTestApp({
      REDIS_URL: 'redis://127.0.0.1:1',
      READY_REQUIRES_REDIS: 'true',
      READY_TIMEOUT_MS: '200',
    });
    try {
      const ready = await strict.http.get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ code: 1500, msg: 'not ready: redis did not answer within 200 ms', data: null });
    } finally {
      await strict.close();
    }
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
(redisUrl ? describe : describe.skip)('Redis up (TEST_REDIS_URL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: redisUrl as string });
  });
  afterAll(() => t.close());

  it('reports Redis in readiness', async () => {
    const reply = await t.http.get('/health/ready');
    expect(okData(reply)).toEqual({ status: 'ready', database: 'up', redis: 'up' });
  });
});

function t_driver(): 'sqlite' | 'mysql' {
  const url = process.env.E2E_DATABASE_URL;
  return url && !url.startsWith('sqlite') ? 'mysql' : 'sqlite';
}
