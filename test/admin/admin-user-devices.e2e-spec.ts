// The user page's live connections (presence.devices): what each socket named in auth.device,
// its User-Agent in short, address (TRUST_PROXY as for HTTP), instance and start; refused
// handshakes for a malformed auth.device; with Redis, the connections of another instance.
import { io } from 'socket.io-client';
import { createClient } from '../../sdk/web/src/index';
import { SDK_VERSION } from '../../sdk/web/src/device';
import { hostProvider, testEnvironment } from '../sdk/sdk-harness';
import { adminSession, type AdminSession } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import { isolatedDatabase } from '../helpers/isolated-database';
import { RtClient, connect, listen, refusal, sleep } from '../helpers/realtime';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';

interface Device {
  platform: string | null;
  device_id: string | null;
  app_version: string | null;
  user_agent: string | null;
  connected_at: number;
  instance: string;
  address: string | null;
}
interface Presence {
  online: boolean | null;
  connections: number;
  instances: number;
  complete: boolean;
  devices: Device[];
  devices_truncated: boolean;
}

const presenceOf = async (viewer: AdminSession, userId: string): Promise<Presence> =>
  expectOk<{ presence: Presence }>(await viewer.get('/app/admin/users/overview', { user_id: userId })).presence;

/** Connects with headers a browser or a proxy would send (socket.io-client sends them on Node's websocket). */
function connectWith(url: string, auth: Record<string, unknown>, headers: Record<string, string>): Promise<RtClient> {
  const socket = io(url, {
    auth,
    extraHeaders: headers,
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  const client = new RtClient(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect_error', (error: Error) => reject(error));
    socket.once('connection.ready', () => resolve(client));
  });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await sleep(100);
  }
}

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('admin user page: live connections with their devices', () => {
  let t: TestApp;
  let viewer: AdminSession;
  let url: string;

  beforeAll(async () => {
    // Loopback is the proxy: X-Forwarded-For names the client, as for the HTTP endpoints.
    t = await startTestApp({ TRUST_PROXY: 'loopback' });
    viewer = await adminSession(t, 'viewer');
    url = await listen(t);
  });
  afterAll(() => t.close());

  it('lists each connection with platform, device, version, user agent, address, instance and start', async () => {
    const user = await issueUser(t);
    const before = Date.now();
    const clients: RtClient[] = [];
    try {
      clients.push(
        await connectWith(
          url,
          { token: user.token, device: { platform: 'ios', device_id: 'iphone-A1', app_version: '3.2.1' } },
          { 'X-Forwarded-For': '203.0.113.7' },
        ),
      );
      clients.push(
        await connectWith(
          url,
          { token: user.token, device: { platform: 'web', device_id: 'web-7f3a' } },
          { 'User-Agent': CHROME, 'X-Forwarded-For': '198.51.100.1, 198.51.100.23' },
        ),
      );
      clients.push(await connect(url, { auth: { token: user.token } }));
      const presence = await presenceOf(viewer, user.userId);
      expect(presence).toMatchObject({
        online: true,
        connections: 3,
        instances: 1,
        complete: true,
        devices_truncated: false,
      });
      expect(presence.devices).toHaveLength(3);
      for (const d of presence.devices) {
        expect(Object.keys(d).sort()).toEqual(
          ['address', 'app_version', 'connected_at', 'device_id', 'instance', 'platform', 'user_agent'].sort(),
        );
        expect(d.connected_at).toBeGreaterThanOrEqual(before - 1000);
        expect(d.instance).toMatch(/^.+:[0-9]+$/);
      }
      const byDevice = new Map(presence.devices.map((d) => [d.device_id, d]));
      expect(byDevice.get('iphone-A1')).toMatchObject({
        platform: 'ios',
        app_version: '3.2.1',
        address: '203.0.113.7',
      });
      // The right-most entry is the one the trusted proxy (loopback) added.
      expect(byDevice.get('web-7f3a')).toMatchObject({
        platform: 'web',
        app_version: null,
        user_agent: 'Chrome 131 on Windows',
        address: '198.51.100.23',
      });
      const unnamed = byDevice.get(null)!;
      expect(unnamed).toMatchObject({ platform: null, app_version: null });
      expect(unnamed.address).toMatch(/127\.0\.0\.1$/);
      // Newest first.
      const times = presence.devices.map((d) => d.connected_at);
      expect([...times].sort((a, b) => b - a)).toEqual(times);

      clients.shift()!.close();
      const after = await until(
        () => presenceOf(viewer, user.userId),
        (p) => p.connections === 2,
        'the closed connection to leave the list',
      );
      expect(after.devices.map((d) => d.device_id).sort()).toEqual([null, 'web-7f3a'].sort());
    } finally {
      for (const client of clients) client.close();
    }
  });

  it("shows the Web SDK's device: platform web, the client's device ID, the app's version or the SDK's", async () => {
    const user = await issueUser(t);
    const clients = [
      createClient({
        baseUrl: url,
        authProvider: hostProvider(t, () => user.userId).fn,
        environment: testEnvironment(),
        deviceId: 'web-e2e-app',
        appVersion: '4.1.0',
      }),
      createClient({
        baseUrl: url,
        authProvider: hostProvider(t, () => user.userId).fn,
        environment: testEnvironment(),
      }),
    ];
    try {
      for (const client of clients) await client.login();
      const presence = await presenceOf(viewer, user.userId);
      expect(presence.devices.map((d) => [d.platform, d.device_id, d.app_version]).sort()).toEqual(
        [
          ['web', 'web-e2e-app', '4.1.0'],
          ['web', clients[1].calls.deviceId, `web-sdk/${SDK_VERSION}`],
        ].sort(),
      );
    } finally {
      for (const client of clients) client.destroy();
    }
  });

  it.each([
    [{ platform: 'blackberry', device_id: 'd' }, 'auth.device.platform: must be one of android, ios, harmony, web'],
    [{ platform: 'android' }, 'auth.device.device_id:'],
    [{ platform: 'android', device_id: 'has space' }, 'auth.device.device_id:'],
    [{ platform: 'android', device_id: 'd', app_version: 'x'.repeat(33) }, 'auth.device.app_version:'],
    ['android', 'auth.device: must be an object'],
  ])('refuses auth.device %j with 1004 naming the field', async (device, msg) => {
    const user = await issueUser(t);
    const refused = await refusal(url, { auth: { token: user.token, device } });
    expect(refused.code).toBe(1004);
    expect(refused.msg).toContain(msg);
    expect((await presenceOf(viewer, user.userId)).connections).toBe(0);
  });

  it('refuses a device_id holding a token, without repeating it', async () => {
    const user = await issueUser(t);
    // A JWT short enough for the 128-character rule (the scrubber's finder knows the shape).
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy';
    const refused = await refusal(url, { auth: { token: user.token, device: { platform: 'web', device_id: jwt } } });
    expect(refused).toEqual({ code: 1004, msg: 'auth.device.device_id: must not contain a token or a secret' });
  });

  it('takes the socket peer as the address when no proxy is trusted (TRUST_PROXY unset), whatever X-Forwarded-For says', async () => {
    const plain = await startTestApp();
    try {
      const admin = await adminSession(plain, 'viewer');
      const user = await issueUser(plain);
      const client = await connectWith(
        await listen(plain),
        { token: user.token, device: { platform: 'web', device_id: 'forged' } },
        { 'X-Forwarded-For': '203.0.113.66' },
      );
      try {
        const [listed] = (await presenceOf(admin, user.userId)).devices;
        expect(listed.device_id).toBe('forged');
        expect(listed.address).toMatch(/127\.0\.0\.1$/);
      } finally {
        client.close();
      }
    } finally {
      await plain.close();
    }
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (redisUrl ? it : it.skip)('lists the connections held by another instance (TEST_REDIS_URL)', async () => {
    const apps: TestApp[] = [];
    const database = await isolatedDatabase();
    const clients: RtClient[] = [];
    try {
      apps.push(await startTestApp({ ...database.env, REDIS_URL: redisUrl! }));
      apps.push(await startTestApp({ ...database.env, MIGRATIONS_RUN: 'false', REDIS_URL: redisUrl! }));
      const [a, b] = apps;
      const admin = await adminSession(a, 'viewer');
      const user = await issueUser(a);
      clients.push(
        await connect(await listen(a), {
          auth: { token: user.token, device: { platform: 'android', device_id: 'on-a' } },
        }),
      );
      clients.push(
        await connect(await listen(b), { auth: { token: user.token, device: { platform: 'ios', device_id: 'on-b' } } }),
      );
      const presence = await presenceOf(admin, user.userId);
      // The isolated database's Redis prefix: other spec files' instances on the same Redis are not asked.
      expect(presence).toMatchObject({ instances: 2, connections: 2, complete: true, devices_truncated: false });
      expect(presence.devices.map((d) => [d.device_id, d.platform]).sort()).toEqual([
        ['on-a', 'android'],
        ['on-b', 'ios'],
      ]);
    } finally {
      for (const client of clients) client.close();
      for (const app of apps.reverse()) await app.close();
      await database.drop();
    }
  });
});
