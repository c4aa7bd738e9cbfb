import { AuthSession, providerFailure } from './auth-session.js';
import { ImError } from './errors.js';

const jwt = (claims: object) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');
const token = jwt({ user_id: 'u_1', exp: 2000000000 });
const data = { user: { user_id: 'u_1', nickname: 'One' }, token, expire_at: 2000000000 };

function session(provider: () => Promise<unknown>): AuthSession {
  return new AuthSession({
    provider,
    renewAheadMs: 60_000,
    now: () => 1_000_000_000_000,
    onIdentityChanged: () => undefined,
    onRenewed: () => undefined,
  });
}

async function failure(promise: Promise<unknown>): Promise<ImError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ImError)) throw new Error(`expected an ImError, got ${String(error)}`);
  return error;
}

describe('AuthSession: an auth provider that throws or rejects', () => {
  it('rejects login() with an ImError of kind auth, code 0, and the original error as cause', async () => {
    const thrown = new Error('host said no');
    const error = await failure(
      session(() => {
        throw thrown;
      }).login(),
    );
    expect(error).toMatchObject({ kind: 'auth', code: 0, message: 'the auth provider failed: host said no' });
    expect(error.cause).toBe(thrown);
  });

  it('treats a rejection the same way, and a value that is not an Error too', async () => {
    expect(await failure(session(() => Promise.reject(new RangeError('bad'))).login())).toMatchObject({
      kind: 'auth',
      message: 'the auth provider failed: bad',
    });
    const error = await failure(session(() => Promise.reject('plain text')).login());
    expect(error).toMatchObject({ kind: 'auth', code: 0, message: 'the auth provider failed: plain text' });
    expect(error.cause).toBe('plain text');
  });

  it("gives kind network for fetch's TypeError: the host backend could not be reached", async () => {
    const offline = new TypeError('Failed to fetch');
    const error = await failure(session(() => Promise.reject(offline)).login());
    expect(error).toMatchObject({ kind: 'network', code: 0, message: 'the auth provider failed: Failed to fetch' });
    expect(error.cause).toBe(offline);
  });

  it('passes an ImError the provider threw through unchanged', async () => {
    const own = new ImError('disabled', 1003, 'user disabled by the host');
    expect(await failure(session(() => Promise.reject(own)).login())).toBe(own);
  });

  it('never puts a token into the message', async () => {
    const leaky = new Error('unexpected reply {"token":"eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyX2lkIjoidSJ9.c2lnbmF0dXJl"}');
    const error = await failure(session(() => Promise.reject(leaky)).login());
    expect(error.message).toBe('the auth provider failed: unexpected reply {"token":"[token]"}');
    expect(providerFailure(new Error(`renewal of ${token} failed`), token).message).toBe(
      'the auth provider failed: renewal of [token] failed',
    );
  });

  it('during renewal: auth for a thrown Error (the client ends the session), network for a TypeError', async () => {
    let fail: unknown = null;
    const s = session(async () => {
      if (fail) throw fail;
      return data;
    });
    await s.login();
    fail = new Error('host session gone');
    expect(await failure(s.renew())).toMatchObject({ kind: 'auth', code: 0, cause: fail });
    fail = new TypeError('Failed to fetch');
    expect(await failure(s.renew())).toMatchObject({ kind: 'network', code: 0, cause: fail });
    // The credential is kept: a later renewal that succeeds goes on with the same user.
    fail = null;
    expect((await s.renew()).user.user_id).toBe('u_1');
  });
});

describe('AuthSession: renewal ahead of expiry', () => {
  const T0 = 1_000_000_000_000;

  it('renews a token shorter-lived than renewAheadMs once, at half its life, not on every use', async () => {
    let clock = T0;
    let calls = 0;
    const shortLived = () => {
      calls += 1;
      const exp = Math.floor(clock / 1000) + 60; // TOKEN_TTL_SECONDS=60, the service's smallest
      return Promise.resolve({ user: data.user, token: jwt({ user_id: 'u_1', exp }), expire_at: exp });
    };
    const s = new AuthSession({
      provider: shortLived,
      renewAheadMs: 60_000,
      now: () => clock,
      onIdentityChanged: () => undefined,
      onRenewed: () => undefined,
    });
    await s.login();
    expect(calls).toBe(1);
    for (const at of [0, 1_000, 10_000, 29_000]) {
      clock = T0 + at;
      await s.token();
    }
    expect(calls).toBe(1);
    clock = T0 + 31_000;
    await s.token();
    expect(calls).toBe(2);
    clock = T0 + 40_000;
    await s.token();
    expect(calls).toBe(2);
    s.stop();
  });

  it('answers a call before any login as invalid, and one after the session stopped as stale', async () => {
    const s = session(() => Promise.resolve(data));
    expect(await failure(s.token())).toMatchObject({ kind: 'invalid', code: 0 });
    await s.login();
    s.stop();
    expect(await failure(s.token())).toMatchObject({ kind: 'stale', code: 0 });
  });
});
