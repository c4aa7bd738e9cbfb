import { QueryFailedError } from 'typeorm';
import { UsersRepository } from '../../src/users/users.repository';
import { TEST_SECRETS, TestApp, bearer, hostAuth, issueUser, randomUserId, startTestApp } from '../helpers/test-app';

interface LogEntry {
  level: number;
  msg: string;
  trace_id?: string;
  context?: string;
  err?: { stack?: string };
  code?: number;
}

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('logs (LOG_LEVEL=debug, JSON)', () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'debug', METRICS_TOKEN }, { logLines: lines });
  });
  afterAll(() => t.close());

  const entries = (): LogEntry[] => lines.map((line) => JSON.parse(line) as LogEntry);

  it('never carries a secret or a token, wherever the request put it', async () => {
    const user = await issueUser(t);
    await t.http
      .post('/app/sdk/sync')
      .set(...bearer(user.token))
      .set('X-Request-Id', TEST_SECRETS.SDK_SECRET)
      .send({ cursor: user.token });
    await t.http
      .get(`/app/sdk/unread?token=${user.token}&secret=${TEST_SECRETS.JWT_SECRET}`)
      .set(...bearer(user.token));
    await t.http
      .post('/app/sdk/token')
      .set('Authorization', `Bearer ${TEST_SECRETS.JWT_SECRET}`)
      .send({ user_id: randomUserId(), nickname: TEST_SECRETS.SDK_SECRET });
    await t.http
      .post('/app/sdk/token')
      .set(...hostAuth())
      .set('Content-Type', 'application/json')
      .send(`{"user_id": "${TEST_SECRETS.RTC_CALLBACK_SECRET}`);
    await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    await t.http
      .post('/app/sdk/rtc/room-callback')
      .set('SdkAppId', TEST_SECRETS.RTC_SDK_APP_ID)
      .set('Sign', TEST_SECRETS.RTC_CALLBACK_SECRET)
      .send('{}');
    const all = lines.join('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of [
      TEST_SECRETS.SDK_SECRET,
      TEST_SECRETS.JWT_SECRET,
      TEST_SECRETS.RTC_CALLBACK_SECRET,
      METRICS_TOKEN,
      user.token,
    ]) {
      expect(all).not.toContain(secret);
    }
    // Only paths are logged, never query strings or bodies.
    expect(entries().some((e) => JSON.stringify(e).includes('/app/sdk/unread?'))).toBe(false);
  });

  it("starts without warnings, with Nest's module and route lines at debug level", () => {
    const boot = entries().filter((entry) =>
      ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(entry.context ?? ''),
    );
    expect(boot.length).toBeGreaterThan(50);
    expect(boot.every((entry) => entry.level === 20)).toBe(true);
    // e.g. Swagger's "Duplicate DTO detected" for two request classes of one name
    expect(entries().filter((entry) => entry.level >= 40 && /DTO|deprecat/i.test(entry.msg))).toEqual([]);
  });

  it('writes one access line per request with its trace ID and envelope code', async () => {
    const before = lines.length;
    await t.http.post('/app/sdk/sync').set('X-Request-Id', 'trace-access-1').send({});
    const access = entries()
      .slice(before)
      .filter((e) => e.trace_id === 'trace-access-1');
    expect(access).toEqual([expect.objectContaining({ msg: 'request completed', code: 1101, level: 30 })]);
  });

  it('puts the trace ID on the lines written while handling the request, with the stack of a fault', async () => {
    const user = await issueUser(t);
    // A failing statement the service cannot have expected (not an outage, which is a 503).
    const failing = jest
      .spyOn(t.app.get(UsersRepository), 'findAuthState')
      .mockRejectedValue(new QueryFailedError('SELECT 1', [], new Error('syntax error')));
    const before = lines.length;
    try {
      const reply = await t.http
        .post('/app/sdk/sync')
        .set(...bearer(user.token))
        .set('X-Request-Id', 'trace-fault-1')
        .send({});
      expect(reply.status).toBe(500);
    } finally {
      failing.mockRestore();
    }
    const mine = entries()
      .slice(before)
      .filter((e) => e.trace_id === 'trace-fault-1');
    const fault = mine.find((e) => e.context === 'Exceptions');
    expect(fault).toEqual(expect.objectContaining({ level: 50, msg: 'POST /app/sdk/sync failed' }));
    expect(fault?.err?.stack).toEqual(expect.stringContaining('\n    at '));
    expect(mine.find((e) => e.msg.startsWith('request failed'))).toEqual(
      expect.objectContaining({ level: 50, code: 1500 }),
    );
  });
});

describe('/metrics behind METRICS_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN });
  });
  afterAll(() => t.close());

  it('answers only its own token (401 otherwise, never the SDK secret or an IM token)', async () => {
    const user = await issueUser(t);
    const refused = {
      status: 401,
      body: { code: 1102, msg: 'metrics token invalid: send Authorization: Bearer <METRICS_TOKEN>', data: null },
    };
    for (const authorization of [
      undefined,
      'Bearer wrong-token-0123456789',
      `Bearer ${TEST_SECRETS.SDK_SECRET}`,
      `Bearer ${user.token}`,
    ]) {
      const call = t.http.get('/metrics');
      const reply = authorization === undefined ? await call : await call.set('Authorization', authorization);
      expect({ status: reply.status, body: reply.body as unknown }).toEqual(refused);
    }
    const ok = await t.http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('im_http_requests_total');
  });
});
