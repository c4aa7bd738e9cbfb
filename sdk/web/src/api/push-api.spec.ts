import type { Socket } from 'socket.io-client';
import type { PushRegistrationReply, PushSettingsReply } from '../../../../src/contract/index.js';
import { createClient } from '../client.js';
import type { ImClient } from '../client-types.js';
import { ImError } from '../errors.js';
import type { SdkEventMap } from '../events.js';
import { MemoryStateStore } from '../state-store.js';
import { PushApi } from './push-api.js';
import type { ApiTransport } from './transport.js';

jest.setTimeout(30_000);

const jwt = (claims: object) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');
const EXP = 2000000000;
const FCM = { provider: 'fcm', token: 'fcm-token:APA91b-one', platform: 'android' } as const;
const VOIP = { provider: 'apns_voip', token: 'ab'.repeat(32), platform: 'ios' } as const;

/** Polls `check` until it holds (the client answers after awaits and timers of its own). */
async function until<T>(check: () => T | undefined | null | false, what: string): Promise<T> {
  for (let i = 0; i < 2000; i++) {
    const value = check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The service's side of one socket.io connection: the test makes it ready, sends events, drops it. */
class FakeSocket {
  connected = false;
  readonly sent: Array<[string, unknown]> = [];
  private any: ((name: string, payload: unknown) => void) | null = null;
  private readonly handlers = new Map<string, (arg: unknown) => void>();
  private events = 0;

  constructor(readonly auth: { token: string }) {}

  onAny(listener: (name: string, payload: unknown) => void): this {
    this.any = listener;
    return this;
  }
  on(name: string, listener: (arg: unknown) => void): this {
    this.handlers.set(name, listener);
    return this;
  }
  emit(name: string, payload: unknown): this {
    this.sent.push([name, payload]);
    return this;
  }
  removeAllListeners(): this {
    this.any = null;
    this.handlers.clear();
    return this;
  }
  disconnect(): this {
    this.connected = false;
    return this;
  }

  ready(): void {
    this.connected = true;
    this.any?.('connection.ready', { event_id: 'ready', position: '0', server_time: 0, resumed: false, replayed: 0 });
  }
  serverEvent(type: string, data: unknown): void {
    this.events += 1;
    this.any?.(type, { event_id: `${this.auth.token}-${this.events}`, type, position: null, created_at: 0, data });
  }
  drop(reason: string): void {
    this.connected = false;
    this.handlers.get('disconnect')?.(reason);
  }
}

interface Sent {
  method: string;
  path: string;
  authorization: string;
  contentType: string | undefined;
  body: unknown;
}

type Answer = { status: number; code: number; msg?: string; data?: unknown } | 'unreachable';

const registered = (provider: string, platform: string, deviceId: string): PushRegistrationReply =>
  ({ device_id: deviceId, provider, platform, registered_at: 1 }) as PushRegistrationReply;

/**
 * A client with a fake fetch and fake sockets. Push requests are recorded and answered from
 * `answers` (by path, first in first out) or with success; the stores' recovery requests are
 * answered 1202 (capability closed), which they keep to themselves.
 */
function harness(options: { deviceId?: string } = {}) {
  const tokens: string[] = [];
  const sockets: FakeSocket[] = [];
  const requests: Sent[] = [];
  const answers = new Map<string, Answer[]>();
  const failed: Array<SdkEventMap['push.failed']> = [];
  const fakeFetch = async (input: Parameters<typeof fetch>[0], init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const headers = init.headers as Record<string, string>;
    if (!url.pathname.startsWith('/app/sdk/push/'))
      return Response.json({ code: 1202, msg: 'capability closed', data: null });
    const body = typeof init.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
    requests.push({
      method: init.method ?? 'GET',
      path: url.pathname,
      authorization: headers.Authorization,
      contentType: headers['Content-Type'],
      body,
    });
    const answer = answers.get(url.pathname)?.shift();
    if (answer === 'unreachable') throw new TypeError('fetch failed');
    if (answer)
      return Response.json(
        { code: answer.code, msg: answer.msg ?? 'ok', data: answer.data ?? null },
        { status: answer.status },
      );
    const data =
      url.pathname === '/app/sdk/push/register'
        ? registered(String(body?.provider), String(body?.platform), String(body?.device_id))
        : url.pathname === '/app/sdk/push/unregister'
          ? { removed: 1 }
          : null;
    return Response.json({ code: 0, msg: 'ok', data });
  };
  const client: ImClient = createClient({
    baseUrl: 'http://127.0.0.1:1',
    authProvider: async () => {
      const token = jwt({ user_id: 'u_1', exp: EXP, n: tokens.length });
      tokens.push(token);
      return { user: { user_id: 'u_1', nickname: 'One' }, token, expire_at: EXP };
    },
    deviceId: options.deviceId,
    environment: {
      onForeground: () => () => undefined,
      onOnline: () => () => undefined,
      fetch: fakeFetch as typeof fetch,
      connect: (_uri, socketOptions) => {
        const socket = new FakeSocket(socketOptions.auth as { token: string });
        sockets.push(socket);
        return socket as unknown as Socket;
      },
      storage: new MemoryStateStore(),
    },
  });
  client.on('push.failed', (event) => failed.push(event));

  const socket = (): FakeSocket => sockets[sockets.length - 1];
  const registers = () => requests.filter((r) => r.path === '/app/sdk/push/register');

  return {
    client,
    tokens,
    sockets,
    requests,
    answers,
    failed,
    registers,
    socket,
    async login(): Promise<void> {
      const count = sockets.length;
      const loggingIn = client.login();
      await until(() => sockets.length > count, 'the first socket');
      socket().ready();
      await loggingIn;
    },
    /**
     * What the service does when the user's tokens are revoked: `session.revoked` (1102), which
     * the SDK answers by renewing, then the disconnect; the SDK reconnects with the new token.
     */
    async revokeAndReconnect(): Promise<FakeSocket> {
      const old = socket();
      const count = sockets.length;
      old.serverEvent('session.revoked', { code: 1102 });
      await until(() => old.sent.some(([name]) => name === 'auth.renew'), 'the renewal');
      old.drop('io server disconnect');
      const next = await until(() => sockets.length > count && socket(), 'the reconnect');
      expect(next.auth.token).toBe(tokens[tokens.length - 1]);
      next.ready();
      return next;
    },
    /** A network blip: the connection drops and comes back with the same credential. */
    async reconnect(): Promise<FakeSocket> {
      const count = sockets.length;
      socket().drop('transport close');
      const next = await until(() => sockets.length > count && socket(), 'the reconnect');
      next.ready();
      return next;
    },
  };
}

describe('client.push', () => {
  let h: ReturnType<typeof harness>;
  afterEach(() => h.client.destroy());

  describe('wire', () => {
    it('registers with the client device ID, the fields given and nothing else', async () => {
      h = harness({ deviceId: 'shell-install-1' });
      await h.login();

      const reply = await h.client.push.register({
        ...FCM,
        package_name: 'com.example.chat',
        app_version: '3.2.1',
        locale: 'zh-CN',
      });
      await h.client.push.register(VOIP);

      expect(reply).toEqual(registered('fcm', 'android', 'shell-install-1'));
      expect(h.requests).toEqual([
        {
          method: 'POST',
          path: '/app/sdk/push/register',
          authorization: `Bearer ${h.tokens[0]}`,
          contentType: 'application/json',
          body: {
            device_id: 'shell-install-1',
            provider: 'fcm',
            token: FCM.token,
            platform: 'android',
            package_name: 'com.example.chat',
            app_version: '3.2.1',
            locale: 'zh-CN',
          },
        },
        expect.objectContaining({
          body: { device_id: 'shell-install-1', provider: 'apns_voip', token: VOIP.token, platform: 'ios' },
        }),
      ]);
    });

    it('unregisters one provider or the whole device', async () => {
      h = harness({ deviceId: 'shell-install-1' });
      await h.login();

      expect(await h.client.push.unregister('fcm')).toEqual({ removed: 1 });
      h.answers.set('/app/sdk/push/unregister', [{ status: 200, code: 0, data: { removed: 0 } }]);
      expect(await h.client.push.unregister()).toEqual({ removed: 0 });

      expect(h.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        ['POST', '/app/sdk/push/unregister', { device_id: 'shell-install-1', provider: 'fcm' }],
        ['POST', '/app/sdk/push/unregister', { device_id: 'shell-install-1' }],
      ]);
    });

    it('reads and sets the preview level and quiet hours', async () => {
      h = harness();
      await h.login();
      const settings: PushSettingsReply = {
        preview: 'sender',
        effective_preview: 'sender',
        quiet_hours: { start: '22:00', end: '07:30', timezone: 'Asia/Shanghai' },
        devices: [],
      };
      h.answers.set('/app/sdk/push/settings', [
        { status: 200, code: 0, data: settings },
        { status: 200, code: 0, data: settings },
        { status: 200, code: 0, data: { ...settings, preview: null, effective_preview: 'full', quiet_hours: null } },
      ]);

      expect(await h.client.push.getSettings()).toEqual(settings);
      expect(
        await h.client.push.setSettings({
          preview: 'sender',
          quiet_hours: { start: '22:00', end: '07:30', timezone: 'Asia/Shanghai' },
        }),
      ).toEqual(settings);
      expect((await h.client.push.setSettings({ preview: null, quiet_hours: null })).effective_preview).toBe('full');

      expect(h.requests.map((r) => [r.method, r.path, r.body])).toEqual([
        ['GET', '/app/sdk/push/settings', undefined],
        [
          'POST',
          '/app/sdk/push/settings',
          { preview: 'sender', quiet_hours: { start: '22:00', end: '07:30', timezone: 'Asia/Shanghai' } },
        ],
        ['POST', '/app/sdk/push/settings', { preview: null, quiet_hours: null }],
      ]);
    });
  });

  describe('device ID', () => {
    it('is the one calls send: the one given, else a random web- ID fit for the service', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);

      const deviceId = h.client.push.deviceId;
      expect(deviceId).toBe(h.client.calls.deviceId);
      expect(deviceId).toMatch(/^web-[A-Za-z0-9._:-]{1,60}$/);
      expect(h.registers()[0].body).toMatchObject({ device_id: deviceId });
      h.client.destroy();

      h = harness({ deviceId: 'shell-install-2' });
      expect(h.client.push.deviceId).toBe('shell-install-2');
      expect(h.client.calls.deviceId).toBe('shell-install-2');
    });
  });

  describe('errors', () => {
    it("rejects with an ImError carrying the envelope's code and msg", async () => {
      h = harness();
      await h.login();
      h.answers.set('/app/sdk/push/register', [
        { status: 400, code: 1004, msg: 'provider: huawei is not configured on this service' },
      ]);
      h.answers.set('/app/sdk/push/settings', [
        { status: 400, code: 1004, msg: 'quiet_hours.timezone: must be an IANA time zone such as "Asia/Shanghai"' },
      ]);

      const refused = await h.client.push
        .register({ provider: 'huawei', token: 'huawei-token-1', platform: 'android' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ImError);
      expect(refused).toMatchObject({
        kind: 'rejected',
        code: 1004,
        httpStatus: 400,
        message: 'provider: huawei is not configured on this service',
      });
      await expect(
        h.client.push.setSettings({
          preview: 'none',
          quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' },
        }),
      ).rejects.toMatchObject({ kind: 'rejected', code: 1004, message: expect.stringContaining('quiet_hours') });
    });

    it('refuses before login without sending anything', async () => {
      h = harness();
      await expect(h.client.push.register(FCM)).rejects.toMatchObject({ kind: 'invalid' });
      await expect(h.client.push.getSettings()).rejects.toMatchObject({ kind: 'invalid' });
      expect(h.requests).toEqual([]);
    });

    it('a network failure is kind network, code 0', async () => {
      h = harness();
      await h.login();
      h.answers.set('/app/sdk/push/register', ['unreachable']);
      await expect(h.client.push.register(FCM)).rejects.toMatchObject({ kind: 'network', code: 0 });
    });
  });

  describe('registering again after a new credential', () => {
    it('sends each registration again once the connection is back with the renewed token', async () => {
      h = harness({ deviceId: 'shell-install-1' });
      await h.login();
      await h.client.push.register({ ...FCM, locale: 'en-GB' });
      await h.client.push.register(VOIP);

      await h.revokeAndReconnect();
      await until(() => h.registers().length === 4, 'two registrations sent again');

      const again = h.registers().slice(2);
      expect(again.map((r) => r.authorization)).toEqual([`Bearer ${h.tokens[1]}`, `Bearer ${h.tokens[1]}`]);
      expect(again.map((r) => r.body)).toEqual([
        { device_id: 'shell-install-1', ...FCM, locale: 'en-GB' },
        { device_id: 'shell-install-1', ...VOIP },
      ]);
      expect(h.failed).toEqual([]);
    });

    it('does not send them again after a reconnect under the same credential', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);

      await h.reconnect();
      // Push writes go one after another: this one is sent after anything the reconnect queued.
      await h.client.push.register(VOIP);

      expect(h.registers().map((r) => (r.body as { provider: string }).provider)).toEqual(['fcm', 'apns_voip']);
    });

    it('sends the latest token of a provider, not the one it replaced', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);
      await h.client.push.register({ ...FCM, token: 'fcm-token:APA91b-two' });

      await h.revokeAndReconnect();
      await until(() => h.registers().length === 3, 'the registration sent again');

      expect(h.registers()[2].body).toMatchObject({ provider: 'fcm', token: 'fcm-token:APA91b-two' });
    });

    it('forgets what was unregistered, and a registration the service refused', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);
      await h.client.push.register(VOIP);
      h.answers.set('/app/sdk/push/register', [{ status: 400, code: 1004, msg: 'token: not a registration token' }]);
      await expect(h.client.push.register({ ...FCM, provider: 'xiaomi' })).rejects.toMatchObject({ code: 1004 });
      await h.client.push.unregister('fcm');

      await h.revokeAndReconnect();
      await until(() => h.registers().length === 4, 'the registration sent again');
      await h.client.push.register({ provider: 'huawei', token: 'huawei-token-1', platform: 'harmony' });

      expect(h.registers().map((r) => (r.body as { provider: string }).provider)).toEqual([
        'fcm',
        'apns_voip',
        'xiaomi',
        'apns_voip',
        'huawei',
      ]);
    });

    it('tells the app when the service refuses it, and does not try that one again', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);
      h.answers.set('/app/sdk/push/register', [
        { status: 400, code: 1004, msg: 'provider: fcm is not configured on this service' },
      ]);

      await h.revokeAndReconnect();
      await until(() => h.failed.length === 1, 'push.failed');
      expect(h.failed).toEqual([
        { provider: 'fcm', code: 1004, kind: 'rejected', message: 'provider: fcm is not configured on this service' },
      ]);

      await h.revokeAndReconnect();
      await h.client.push.register(VOIP);
      expect(h.registers().map((r) => (r.body as { provider: string }).provider)).toEqual(['fcm', 'fcm', 'apns_voip']);
      expect(h.failed).toHaveLength(1);
    });

    it('tries again at the next connection when the service could not be reached', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);
      h.answers.set('/app/sdk/push/register', ['unreachable']);

      await h.revokeAndReconnect();
      await until(() => h.failed.length === 1, 'push.failed');
      expect(h.failed[0]).toMatchObject({ provider: 'fcm', kind: 'network', code: 0 });

      await h.reconnect();
      await until(() => h.registers().length === 3, 'the registration sent again');
      expect(h.registers()[2].body).toMatchObject(FCM);
      expect(h.failed).toHaveLength(1);
    });

    it('forgets every registration at logout', async () => {
      h = harness();
      await h.login();
      await h.client.push.register(FCM);

      h.client.logout();
      await h.login();
      await h.revokeAndReconnect();
      await h.client.push.register(VOIP);

      expect(h.registers().map((r) => (r.body as { provider: string }).provider)).toEqual(['fcm', 'apns_voip']);
    });
  });
});

describe('PushApi', () => {
  /** A transport whose answers the test releases one by one. */
  function heldTransport() {
    const posts: Array<{ path: string; body: unknown; release: () => void }> = [];
    const transport = {
      post: (path: string, body: unknown) =>
        new Promise((resolve) => posts.push({ path, body, release: () => resolve({ removed: 0 }) })),
    } as unknown as ApiTransport;
    return { transport, posts };
  }

  it('sends one write at a time, in the order the app made them', async () => {
    const { transport, posts } = heldTransport();
    const push = new PushApi(transport, 'device-1', { failed: () => undefined });

    const first = push.register(FCM);
    const second = push.register({ ...FCM, token: 'fcm-token:APA91b-two' });
    const third = push.unregister('fcm');
    await until(() => posts.length === 1, 'the first request');
    await new Promise((resolve) => setImmediate(resolve));
    expect(posts).toHaveLength(1);

    posts[0].release();
    await first;
    await until(() => posts.length === 2, 'the second request');
    posts[1].release();
    await second;
    await until(() => posts.length === 3, 'the third request');
    posts[2].release();
    await third;

    expect(posts.map((p) => [p.path, (p.body as { token?: string }).token])).toEqual([
      ['/app/sdk/push/register', FCM.token],
      ['/app/sdk/push/register', 'fcm-token:APA91b-two'],
      ['/app/sdk/push/unregister', undefined],
    ]);
  });

  it('does not remember a registration answered after reset (a logout during the request)', async () => {
    const { transport, posts } = heldTransport();
    const push = new PushApi(transport, 'device-1', { failed: () => undefined });

    const pending = push.register(FCM);
    await until(() => posts.length === 1, 'the request');
    push.reset();
    posts[0].release();
    await pending;

    push.renewed();
    push.reconnected();
    const fence = push.unregister('apns');
    await until(() => posts.length === 2, 'the unregistration');
    posts[1].release();
    await fence;
    expect(posts.map((p) => p.path)).toEqual(['/app/sdk/push/register', '/app/sdk/push/unregister']);
  });
});
