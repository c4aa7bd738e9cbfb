// The database and Redis becoming unreachable and coming back, on a private mariadbd and
// redis-server: requests answer 503/1500 once a configured limit gives up instead of hanging,
// liveness stays up, readiness follows the dependencies, the service recovers without a
// restart and no acknowledged write is lost. Rate-limited endpoints keep working without Redis.
// No reply is timed (the benchmark measures speed): a request that hung would wait for its
// dependency until the test lets it go, so it would meet the test's own deadline (HANG_MS, many
// times the limits, enough for a loaded machine) and fail as status 0.
import {
  Ack,
  FAULT_SECRETS,
  FaultLab,
  FaultUser,
  HttpReply,
  MariaDb,
  RedisServer,
  ServiceProcess,
  expectExactlyOnce,
  friendConversationId,
  issueUser,
  makeFriends,
  ok,
  randomSuffix,
  sendUntilAcked,
  sleep,
  StoredMessage,
  uuid,
  waitFor,
} from './harness';

const TIMEOUTS = {
  DB_CONNECT_TIMEOUT_MS: 1000,
  DB_ACQUIRE_TIMEOUT_MS: 1000,
  DB_QUERY_TIMEOUT_MS: 2000,
  DB_CONNECT_RETRY_MS: 100,
  DB_CONNECT_RETRY_MAX_MS: 500,
  READY_TIMEOUT_MS: 500,
  REDIS_TIMEOUT_MS: 200,
};
// Readiness here also requires Redis (READY_REQUIRES_REDIS), so its outage shows in readiness;
// the default (ready, reporting redis "down") is covered by test/operations.e2e-spec.ts.
const TIMEOUT_ENV = {
  ...Object.fromEntries(Object.entries(TIMEOUTS).map(([name, value]) => [name, String(value)])),
  READY_REQUIRES_REDIS: 'true',
};
/**
 * The test's deadline for any one request: a reply later than this is taken for a hang. Well
 * above every limit above (the longest wait, pool then statement, is 3 s), so a loaded machine
 * still answers within it, and well below how long a dependency stays frozen or down here.
 */
const HANG_MS = 20_000;
/** More concurrent requests than the pool has connections (20), so some wait for one. */
const CONCURRENT = 25;

const LIVE = { code: 0, msg: 'ok', data: { status: 'ok' } };

function metric(text: string, name: string): number | null {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([-+0-9.eE]+|NaN)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

/** A request's outcome as compared by the tests (a network error or HANG_MS without a reply becomes status 0). */
async function outcome(
  reply: Promise<HttpReply>,
): Promise<{ status: number; code: unknown; msg: unknown; data: unknown; ms: number; retryAfter: unknown }> {
  const started = Date.now();
  try {
    const r = await reply;
    return {
      status: r.status,
      code: r.body.code,
      msg: r.body.msg,
      data: r.body.data,
      ms: r.ms,
      retryAfter: r.headers['retry-after'],
    };
  } catch (error) {
    return {
      status: 0,
      code: (error as NodeJS.ErrnoException).code ?? null,
      msg: (error as Error).message,
      data: null,
      ms: Date.now() - started,
      retryAfter: undefined,
    };
  }
}

/**
 * HTTP 503 with the 1500 envelope (a limit gave up: a hang would be status 0); a refused request
 * also says when to retry. `ms` is shown, never compared.
 */
function expectUnavailable(what: string, seen: Awaited<ReturnType<typeof outcome>>, msg: RegExp = /.+/): void {
  const request = !/readiness/.test(what);
  expect({
    what,
    status: seen.status,
    code: seen.code,
    data: seen.data,
    msgMatches: typeof seen.msg === 'string' && msg.test(seen.msg),
    msg: seen.msg,
    ms: seen.ms,
    retryAfter: request ? /^[1-9][0-9]*$/.test(String(seen.retryAfter)) : null,
  }).toEqual({
    what,
    status: 503,
    code: 1500,
    data: null,
    msgMatches: true,
    msg: seen.msg,
    ms: seen.ms,
    retryAfter: request ? true : null,
  });
}

/** Liveness answers whatever the dependencies do (it never waits for one: a wait would be a hang). */
function expectLive(seen: Awaited<ReturnType<typeof outcome>>): void {
  expect({ status: seen.status, body: { code: seen.code, msg: seen.msg, data: seen.data } }).toEqual({
    status: 200,
    body: LIVE,
  });
}

describe('dependency outages (private mariadbd and redis-server)', () => {
  const lab = new FaultLab();
  let db: MariaDb;
  let redis: RedisServer;
  let service: ServiceProcess;
  let a: FaultUser;
  let b: FaultUser;
  let cid: string;
  /** Every acknowledged send of a into the conversation with b, across the tests. */
  const acks: Ack[] = [];

  beforeAll(async () => {
    db = await lab.mariaDb();
    redis = await lab.redis();
    const url = await db.createDatabase(`im_faults_${randomSuffix()}`);
    service = await lab.service({ DATABASE_URL: url, REDIS_URL: redis.url, ...TIMEOUT_ENV });
    await service.startReady();
    a = await issueUser(service, 'oa');
    b = await issueUser(service, 'ob');
    await makeFriends(service, a, b);
    cid = friendConversationId(b);
  });

  // A failed test must not leave the next one without its dependencies.
  beforeEach(async () => {
    if (!db.running) await db.start();
    if (!redis.running) await redis.start();
    await service.waitReady(30_000);
  });

  afterAll(() => lab.close());

  const health = (s: ServiceProcess = service) => outcome(s.request('GET', '/health', { timeoutMs: HANG_MS }));
  const ready = (s: ServiceProcess = service) => outcome(s.request('GET', '/health/ready', { timeoutMs: HANG_MS }));
  const metrics = async (): Promise<string> => {
    const reply = await service.request('GET', '/metrics', { timeoutMs: HANG_MS });
    expect({ status: reply.status, type: String(reply.headers['content-type']).split(';')[0] }).toEqual({
      status: 200,
      type: 'text/plain',
    });
    return reply.text;
  };
  const sendOnce = (cmid: string, text: string) =>
    outcome(
      service.request('POST', '/app/sdk/messages/send', {
        token: a.token,
        body: { conversation_id: cid, client_message_id: cmid, type: 'text', content: { text } },
        timeoutMs: HANG_MS,
      }),
    );

  /** The acknowledgement of a send answered with code 0 (sendOnce). */
  function ackOf(data: unknown): Ack {
    const { message } = data as { message: StoredMessage };
    return {
      sender: a,
      conversationId: cid,
      clientMessageId: message.client_message_id,
      text: String(message.content?.text),
      mid: message.mid,
      seq: Number(message.conversation_seq),
    };
  }

  async function sendAcked(count: number, label: string): Promise<void> {
    for (let i = 0; i < count; i += 1)
      acks.push(
        await sendUntilAcked(
          service,
          a,
          cid,
          `o-${label.replace(/[^A-Za-z0-9]+/g, '-')}-${i}-${randomSuffix()}`,
          `${label} ${i}`,
        ),
      );
  }

  /** Sends that were refused during an outage, retried (same client_message_id) until acknowledged. */
  async function retry(pending: { cmid: string; text: string }[]): Promise<void> {
    for (const p of pending) acks.push(await sendUntilAcked(service, a, cid, p.cmid, p.text));
  }

  it('database frozen: requests answer 503/1500 (a limit gives up), liveness 200, readiness 503; thawed: recovers without restart, nothing lost', async () => {
    const pid = service.pid;
    await sendAcked(3, 'before freeze');
    const pending = Array.from({ length: CONCURRENT }, (_, i) => ({
      cmid: `o-frozen-${i}-${randomSuffix()}`,
      text: `during freeze ${i}`,
    }));
    db.freeze();
    try {
      const [live, notReady, read, ...sends] = await Promise.all([
        health(),
        ready(),
        outcome(
          service.request('GET', '/app/sdk/messages', {
            token: a.token,
            query: { conversation_id: cid, after_seq: '0' },
            timeoutMs: HANG_MS,
          }),
        ),
        ...pending.map((p) => sendOnce(p.cmid, p.text)),
      ]);
      expectLive(live);
      expectUnavailable('readiness', notReady, /^not ready: .*database/);
      expectUnavailable('read', read);
      sends.forEach((s, i) => expectUnavailable(`send ${i}`, s));
      // Still frozen: a second round gives up the same way (nothing left hanging behind the first).
      expectUnavailable('send again', await sendOnce(pending[0].cmid, pending[0].text));
      expectLive(await health());
    } finally {
      db.thaw();
    }
    await service.waitReady(15_000);
    expect({ pid: service.pid, running: service.running }).toEqual({ pid, running: true });
    await retry(pending);
    await sendAcked(3, 'after thaw');
    await expectExactlyOnce(service, a, cid, acks);
  });

  it('database killed and restarted: 503/1500 at once, readiness follows, recovers without restart, nothing lost', async () => {
    const pid = service.pid;
    await sendAcked(3, 'before kill');
    await db.kill();
    const pending = Array.from({ length: 5 }, (_, i) => ({
      cmid: `o-killed-${i}-${randomSuffix()}`,
      text: `database down ${i}`,
    }));
    const [live, notReady, ...sends] = await Promise.all([
      health(),
      ready(),
      ...pending.map((p) => sendOnce(p.cmid, p.text)),
    ]);
    expectLive(live);
    expectUnavailable('readiness', notReady, /^not ready: .*database/);
    sends.forEach((s, i) => expectUnavailable(`send ${i}`, s));
    // A token exchange needs the database too.
    expectUnavailable(
      'token',
      await outcome(
        service.request('POST', '/app/sdk/token', {
          headers: { Authorization: `Bearer ${FAULT_SECRETS.SDK_SECRET}` },
          body: { user_id: a.userId, nickname: 'Returning' },
          timeoutMs: HANG_MS,
        }),
      ),
    );

    await db.start();
    await service.waitReady(20_000);
    expect({ pid: service.pid, running: service.running }).toEqual({ pid, running: true });
    expect((await ready()).data).toEqual({ status: 'ready', database: 'up', redis: 'up' });
    await retry(pending);
    await sendAcked(3, 'after restart');
    await expectExactlyOnce(service, a, cid, acks);
  });

  it('started while the database is down: listens at once (liveness 200, readiness 503), keeps retrying, migrates and becomes ready once it starts', async () => {
    const lateUrl = await db.createDatabase(`im_faults_late_${randomSuffix()}`);
    await db.kill();
    const late = await lab.service({ DATABASE_URL: lateUrl, ...TIMEOUT_ENV });
    // It listens although the database never answers: start() resolves on the first liveness reply.
    await late.start(30_000);
    expectLive(await health(late));
    expectUnavailable('readiness', await ready(late), /^not ready: .*database/);
    // Well past five attempts at this backoff: still running, still not ready.
    await sleep(3000);
    expect({ running: late.running, exitCode: late.exitCode }).toEqual({ running: true, exitCode: null });
    expectLive(await health(late));
    expectUnavailable('readiness', await ready(late), /^not ready: .*database/);

    await db.start();
    await late.waitReady(20_000);
    expect(await ready(late)).toMatchObject({
      status: 200,
      code: 0,
      msg: 'ok',
      data: { status: 'ready', database: 'up', redis: 'disabled' },
    });
    // It migrated the empty database: the whole API works.
    const x = await issueUser(late, 'lx');
    const y = await issueUser(late, 'ly');
    await makeFriends(late, x, y);
    const sent = await sendUntilAcked(late, x, friendConversationId(y), `o-late-${randomSuffix()}`, 'late start');
    expect(sent.seq).toBe(1);
    await late.kill();

    // The first service, whose database was killed meanwhile, came back by itself.
    await service.waitReady(20_000);
    await sendAcked(1, 'after late start');
    await expectExactlyOnce(service, a, cid, acks);
  });

  it('Redis killed: rate-limited endpoints keep working (in-memory fallback), readiness 503 naming redis, metrics show it, logged once; back: up again', async () => {
    expect(await ready()).toMatchObject({ status: 200, data: { status: 'ready', database: 'up', redis: 'up' } });
    expect(metric(await metrics(), 'im_redis_up')).toBe(1);
    const fallbacksBefore = metric(await metrics(), 'im_redis_fallbacks_total') ?? 0;
    const killedAt = Date.now();
    await redis.kill();

    const replies = [];
    for (let i = 0; i < 10; i += 1) replies.push(await sendOnce(`o-noredis-${i}-${randomSuffix()}`, `no redis ${i}`));
    const clientError = await outcome(
      service.request('POST', '/app/sdk/client-errors', {
        token: a.token,
        body: clientErrorReport(a),
        timeoutMs: HANG_MS,
      }),
    );
    const stranger = await issueUser(service, 'os');
    const friendRequest = await outcome(
      service.request('POST', '/app/sdk/friends/requests', {
        token: a.token,
        body: { user_id: stranger.userId, request_id: `fr-${randomSuffix()}` },
        timeoutMs: HANG_MS,
      }),
    );
    // Recorded first, so that a failure below leaves the later checks of the conversation right.
    for (const r of replies) if (r.status === 200 && r.code === 0) acks.push(ackOf(r.data));
    for (const [what, seen] of [
      ...replies.map((r, i) => [`send ${i}`, r] as const),
      ['client error', clientError] as const,
      ['friend request', friendRequest] as const,
    ]) {
      expect({ what, status: seen.status, code: seen.code, msg: seen.msg, ms: seen.ms }).toEqual({
        what,
        status: 200,
        code: 0,
        msg: 'ok',
        ms: seen.ms,
      });
    }

    expectUnavailable('readiness', await ready(), /redis/i);
    const down = await metrics();
    expect({
      up: metric(down, 'im_redis_up'),
      fellBack: (metric(down, 'im_redis_fallbacks_total') ?? 0) > fallbacksBefore,
    }).toEqual({ up: 0, fellBack: true });

    const backAt = Date.now();
    await redis.start();
    await waitFor('readiness with redis up', 15_000, async () => {
      const r = await ready();
      return r.status === 200 ? r : undefined;
    });
    expect(await ready()).toMatchObject({ status: 200, data: { status: 'ready', database: 'up', redis: 'up' } });
    expect(metric(await metrics(), 'im_redis_up')).toBe(1);
    // The counters live in Redis again (this instance keeps nothing else there).
    ok(
      await service.request('POST', '/app/sdk/client-errors', { token: a.token, body: clientErrorReport(a) }),
      'client error after redis came back',
    );
    expect(await redis.dbsize()).toBeGreaterThan(0);
    await sendAcked(2, 'redis back');
    await expectExactlyOnce(service, a, cid, acks);

    // JSON logs are buffered until shutdown: stop the service to read them, then start it again.
    service.signal('SIGTERM');
    await service.exited(15_000);
    const redisLines = (from: number, to: number): string[] =>
      service
        .logEntries()
        .filter((e) => e.time >= from && e.time < to && /redis/i.test(e.line))
        .map((e) => e.line);
    const outage = redisLines(killedAt, backAt);
    const back = redisLines(backAt, Date.now());
    // Logged once by each component that uses Redis (rate limits, presence, the socket.io
    // adapter's two connections) for a dozen requests that fell back, not once per request;
    // its end logged too.
    const perComponent = new Map<string, number>();
    for (const line of outage) {
      const context = (JSON.parse(line) as { context?: string; msg?: string }).context ?? '';
      const role = /\((\w+)\)/.exec((JSON.parse(line) as { msg?: string }).msg ?? '')?.[1] ?? '';
      perComponent.set(`${context} ${role}`, (perComponent.get(`${context} ${role}`) ?? 0) + 1);
    }
    const loggedOnceEach = outage.length >= 1 && [...perComponent.values()].every((n) => n <= 2);
    expect({
      unhandled: /Unhandled error event/.test(service.log),
      outageLogged: loggedOnceEach,
      outage,
      endLogged: back.length >= 1,
      back,
    }).toEqual({
      unhandled: false,
      outageLogged: true,
      outage,
      endLogged: true,
      back,
    });
    await service.startReady();
  });

  it('Redis frozen: sends answer (REDIS_TIMEOUT_MS gives up, the in-memory fallback counts), readiness 503 naming redis; thawed: up again', async () => {
    const fallbacksBefore = metric(await metrics(), 'im_redis_fallbacks_total') ?? 0;
    redis.freeze();
    try {
      for (let i = 0; i < 5; i += 1) {
        const cmid = `o-frozenredis-${i}-${randomSuffix()}`;
        const seen = await sendOnce(cmid, `redis frozen ${i}`);
        if (seen.status === 200 && seen.code === 0) acks.push(ackOf(seen.data));
        expect({ i, status: seen.status, code: seen.code, msg: seen.msg, ms: seen.ms }).toEqual({
          i,
          status: 200,
          code: 0,
          msg: 'ok',
          ms: seen.ms,
        });
      }
      // The rate limits gave up on Redis and counted in memory: the limit, not a slow Redis, let them through.
      expect((metric(await metrics(), 'im_redis_fallbacks_total') ?? 0) > fallbacksBefore).toBe(true);
      expectUnavailable('readiness', await ready(), /redis/i);
    } finally {
      redis.thaw();
    }
    await waitFor('readiness with redis up', 15_000, async () => ((await ready()).status === 200 ? true : undefined));
    expect((await ready()).data).toEqual({ status: 'ready', database: 'up', redis: 'up' });
    await expectExactlyOnce(service, a, cid, acks);
  });
});

function clientErrorReport(user: FaultUser): Record<string, unknown> {
  return {
    event_id: uuid(),
    user_id: user.userId,
    username: null,
    device_id: `dev-${randomSuffix()}`,
    platform: 'android',
    severity: 'normal',
    error_code: 'net.timeout',
    message: 'Request timed out',
    stack_trace: null,
    operation: 'sync',
    build_id: null,
    conversation_id: null,
    message_id: null,
    trace_id: null,
    recovered: false,
    context: { screen: 'chat' },
  };
}
