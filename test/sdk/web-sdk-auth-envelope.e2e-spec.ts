// The SDK README's login: the host backend forwards the /app/sdk/token reply as it comes, the
// whole `{code, msg, data}` envelope. The SDK takes its `data` (after the JWT guard, spec 5.2)
// at login and at every renewal, and turns a refusal (code != 0) into an ImError with the
// host's code and msg (spec 4.1 rule 3), at login or when a renewal meets it.
import { ImError } from '../../sdk/web/src/index';
import { TestApp, hostAuth, issueUser } from '../helpers/test-app';
import { sdkClient, until, useSdkApp } from './sdk-harness';

/**
 * The request that met the expired token renews and meets the provider's failure; unless the
 * server's `session.expired` (sent by its sweep at the same clock) made the connection renew
 * first and end the session, in which case the request belongs to a login that has ended and
 * is `stale`. Either way the session ends with the failure (checked by the caller).
 */
function expectRenewalFailure(error: unknown, failure: { kind: string; code: number; message: string }): void {
  expect(error).toBeInstanceOf(ImError);
  if ((error as ImError).kind === 'stale') expect(error).toMatchObject({ code: 1103 });
  else expect(error).toMatchObject(failure);
}

interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

describe('Web SDK: an auth provider that forwards the token reply envelope (sdk/web)', () => {
  const app = useSdkApp();
  let t: TestApp;
  beforeAll(() => ({ t } = app));

  /** The host backend's endpoint as the README shows it: the service's reply body, unchanged. */
  function forwardingHost(userId: string, secret: [string, string] = hostAuth()) {
    const replies: Envelope[] = [];
    const fn = async (): Promise<unknown> => {
      const response = await t.http
        .post('/app/sdk/token')
        .set(...secret)
        .send({ user_id: userId, nickname: 'Enveloped' });
      replies.push(response.body as Envelope);
      return response.body as unknown;
    };
    return { fn, replies };
  }

  it('logs in with the whole envelope, calls the service, and renews with it too', async () => {
    const user = await issueUser(t);
    const host = forwardingHost(user.userId);
    const { c, readies } = sdkClient(app.base, host.fn, app.clients);
    expect((await c.login()).user_id).toBe(user.userId);
    expect(host.replies[0]).toMatchObject({ code: 0, msg: 'ok', data: { user: { user_id: user.userId } } });
    await until(() => readies.length === 1, 'connection.ready');
    expect((await c.get<{ total: number }>('/app/sdk/unread')).total).toBe(0);
    // Past the token's expiry on the service's clock: 1103, one renewal through the envelope.
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    expect((await c.get<{ total: number }>('/app/sdk/unread')).total).toBe(0);
    expect(host.replies).toHaveLength(2);
    expect(c.currentUser?.user_id).toBe(user.userId);
  });

  it("refuses the login with the service's own code and msg when the forwarded reply is a refusal", async () => {
    const user = await issueUser(t);
    const host = forwardingHost(user.userId, ['Authorization', 'Bearer not-the-sdk-secret']);
    const { c } = sdkClient(app.base, host.fn, app.clients);
    const error = await c.login().catch((e: unknown) => e);
    const refusal = host.replies[0];
    expect(refusal.code).toBe(1001);
    expect(error).toBeInstanceOf(ImError);
    expect(error).toMatchObject({ kind: 'auth', code: refusal.code, message: refusal.msg });
    expect(c.currentUser).toBeNull();
  });

  it("ends the session with the host's code when a renewal answers a refusal envelope", async () => {
    const user = await issueUser(t);
    const host = forwardingHost(user.userId);
    let loggedOut = false;
    const provider = () =>
      loggedOut ? Promise.resolve({ code: 40101, msg: 'host session expired', data: null }) : host.fn();
    const { c, ended } = sdkClient(app.base, provider, app.clients);
    await c.login();
    loggedOut = true;
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    expectRenewalFailure(await c.get('/app/sdk/unread').catch((e: unknown) => e), {
      kind: 'auth',
      code: 40101,
      message: 'host session expired',
    });
    await until(() => ended.length === 1, 'the end of the session');
    expect(ended[0]).toMatchObject({ code: 40101, kind: 'auth' });
    expect(c.currentUser).toBeNull();
  });

  it('ends the session when a renewal meets a provider that throws; keeps it when fetch could not reach the host', async () => {
    const user = await issueUser(t);
    const host = forwardingHost(user.userId);
    let failure: Error | null = null;
    const provider = () => (failure ? Promise.reject(failure) : host.fn());
    const { c, ended } = sdkClient(app.base, provider, app.clients);
    await c.login();
    // The host backend is unreachable (fetch's TypeError): no verdict on the login, the session stays.
    failure = new TypeError('Failed to fetch');
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    await expect(c.get('/app/sdk/unread')).rejects.toMatchObject({ kind: 'network', code: 0, cause: failure });
    expect(c.currentUser?.user_id).toBe(user.userId);
    expect(ended).toEqual([]);
    // Back again: the next request renews and succeeds.
    failure = null;
    expect((await c.get<{ total: number }>('/app/sdk/unread')).total).toBe(0);
    // The provider itself fails (the host's session is gone, its own error): the session ends.
    failure = new Error('host session gone');
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    expectRenewalFailure(await c.get('/app/sdk/unread').catch((e: unknown) => e), {
      kind: 'auth',
      code: 0,
      message: 'the auth provider failed: host session gone',
    });
    await until(() => ended.length === 1, 'the end of the session');
    expect(ended[0]).toMatchObject({ code: 0, kind: 'auth' });
    expect(c.currentUser).toBeNull();
  });

  it('refuses an envelope with code 0 whose data lacks the token, as unusable', async () => {
    const user = await issueUser(t);
    const host = forwardingHost(user.userId);
    const incomplete = async () => {
      const envelope = (await host.fn()) as Envelope & { data: Record<string, unknown> };
      return { ...envelope, data: { ...envelope.data, token: undefined } };
    };
    const { c } = sdkClient(app.base, incomplete, app.clients);
    await expect(c.login()).rejects.toMatchObject({
      kind: 'auth',
      code: 0,
      message: "the auth provider's result is unusable: no token",
    });
    expect(c.currentUser).toBeNull();
  });
});
