// createHostAppAuth: the bundled host application's sign-in from the Web SDK, in Node (no
// cookie jar: the session ID travels in the PHPSID header as for native clients), and its
// authProvider logging a real SDK client in as the account's IM user.
import { randomInt } from 'node:crypto';
import { ImError, createClient, createHostAppAuth } from '../../sdk/web/src/index';
import { testEnvironment, until, useSdkApp } from './sdk-harness';

const phone = () => `+86139${String(randomInt(0, 1e8)).padStart(8, '0')}`;

describe('Web SDK: createHostAppAuth (sdk/web/src/host-app.ts)', () => {
  // Several codes to one number within a test: no least interval between them.
  const app = useSdkApp({ SMS_PHONE_INTERVAL_SECONDS: '0' });

  async function codeFor(
    auth: ReturnType<typeof createHostAppAuth>,
    number: string,
    purpose: 'signup' | 'login' | 'reset',
  ) {
    await expect(auth.sendCode(number, purpose)).resolves.toEqual({ expires_in: 300 });
    const inbox = await auth.devInbox(number);
    const item = inbox.items.find((i) => i.purpose === purpose);
    expect(item).toBeDefined();
    return item!.code;
  }

  it('signs up, reads me, logs an SDK client in through authProvider, logs out', async () => {
    const auth = createHostAppAuth({ baseUrl: app.base });
    const number = phone();
    const code = await codeFor(auth, number, 'signup');
    const signed = await auth.signup({ phone: number, code, password: 'correct horse 1', nickname: 'Host Ann' });
    expect(signed.account).toMatchObject({ phone: number, nickname: 'Host Ann' });
    expect(signed.account.user_id).toMatch(/^h_[0-9a-f]{24}$/);
    await expect(auth.me()).resolves.toEqual(signed);

    const client = createClient({ baseUrl: app.base, authProvider: auth.authProvider, environment: testEnvironment() });
    app.clients.push(client);
    const user = await client.login();
    expect(user.user_id).toBe(signed.account.user_id);
    await until(() => client.connected, 'connected');

    await expect(auth.logout()).resolves.toEqual({ done: true });
    const refused = await auth.me().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ImError);
    expect(refused).toMatchObject({ kind: 'auth', httpStatus: 401 });
    // No session: no IM credential either.
    await expect(auth.authProvider()).rejects.toMatchObject({ kind: 'auth' });
  });

  it('logs in with the password and with a code; a wrong password is an auth refusal', async () => {
    const auth = createHostAppAuth({ baseUrl: app.base });
    const number = phone();
    const code = await codeFor(auth, number, 'signup');
    const { account } = await auth.signup({ phone: number, code, password: 'first pass 11', nickname: 'Bo' });
    await auth.logout();

    const wrong = await auth.login(number, 'not the password').catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(ImError);
    expect(wrong).toMatchObject({ kind: 'auth', httpStatus: 401 });

    await expect(auth.login(number, 'first pass 11')).resolves.toMatchObject({ account: { user_id: account.user_id } });
    await expect(auth.changePassword('first pass 11', 'second pass 22')).resolves.toEqual({ done: true });
    await auth.logout();
    await expect(auth.login(number, 'first pass 11')).rejects.toMatchObject({ kind: 'auth' });

    const loginCode = await codeFor(auth, number, 'login');
    await expect(auth.loginWithCode(number, loginCode)).resolves.toMatchObject({
      account: { user_id: account.user_id },
    });

    const resetCode = await codeFor(auth, number, 'reset');
    await expect(
      auth.resetPassword({ phone: number, code: resetCode, new_password: 'third pass 33' }),
    ).resolves.toEqual({
      done: true,
    });
    // A reset ends every session, this one included.
    await expect(auth.me()).rejects.toMatchObject({ kind: 'auth' });
    await expect(auth.login(number, 'third pass 33')).resolves.toMatchObject({ account: { user_id: account.user_id } });
  });

  it('refuses a malformed phone with the field named, and an unreachable service as a network error', async () => {
    const auth = createHostAppAuth({ baseUrl: app.base });
    await expect(auth.sendCode('12345', 'signup')).rejects.toMatchObject({ kind: 'rejected', code: 1004 });
    const offline = createHostAppAuth({ baseUrl: 'http://127.0.0.1:9' });
    await expect(offline.me()).rejects.toMatchObject({ kind: 'network', code: 0 });
  });
});
