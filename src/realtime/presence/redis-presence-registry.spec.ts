import { Logger } from '@nestjs/common';
import { spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { AddressInfo, createServer, connect, Server, Socket } from 'net';
import { PresenceUnavailableError } from './presence-registry';
import { presenceRegistryContract } from './presence-registry.contract';
import { RedisPresenceRegistry } from './redis-presence-registry';

const HOST = '127.0.0.1';
const PORT = 6379;
const URL = `redis://${HOST}:${PORT}`;
const T0 = 1_700_000_000_000;
const TTL = 60_000;

// Jest cannot await before declaring tests, so reachability is asked of a child process.
const probe = `require('net').connect(${PORT}, '${HOST}').on('connect', () => process.exit(0)).on('error', () => process.exit(1)); setTimeout(() => process.exit(1), 1500);`;
const reachable = spawnSync(process.execPath, ['-e', probe], { timeout: 3000 }).status === 0;
const inCi = Boolean(process.env.CI);
if (!reachable && !inCi)
  process.stderr.write(
    `RedisPresenceRegistry specs skipped: no Redis at ${HOST}:${PORT} (with CI set they fail instead)\n`,
  );

(reachable || inCi ? describe : describe.skip)('RedisPresenceRegistry', () => {
  const root = `test:presence:${randomBytes(6).toString('hex')}:`;
  let admin: Redis;
  let clusters = 0;

  beforeAll(() => {
    admin = new Redis(URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    const keys = await admin.keys(`${root}*`);
    if (keys.length) await admin.del(...keys);
    await admin.quit();
  });

  const fresh = async (prefix: string, ttlMs = TTL, options = {}): Promise<RedisPresenceRegistry> => {
    const registry = new RedisPresenceRegistry(URL, prefix, ttlMs, options);
    if (!(await registry.whenReady(2000))) throw new Error(`no Redis at ${HOST}:${PORT}`);
    return registry;
  };

  it(`finds Redis at ${HOST}:${PORT}`, () => {
    expect(reachable).toBe(true);
  });

  describe('contract', () => {
    presenceRegistryContract(async (ttlMs) => {
      const prefix = `${root}${++clusters}:`;
      return { instance: () => fresh(prefix, ttlMs) };
    });
  });

  it('leaves only the last-seen key behind, kept for the retention', async () => {
    const prefix = `${root}${++clusters}:`;
    const registry = await fresh(prefix);
    await registry.connected('1', 'c1', T0);
    await registry.connected('1', 'c2', T0);
    expect((await admin.keys(`${prefix}*`)).sort()).toEqual([`${prefix}c:1`, `${prefix}users`]);
    // The connections outlive their last expiry by a TTL even if no sweep ever runs again.
    expect(await admin.pttl(`${prefix}c:1`)).toBeGreaterThan(2 * TTL - 1000);
    expect(await admin.pttl(`${prefix}c:1`)).toBeLessThanOrEqual(2 * TTL);
    await registry.disconnected('1', 'c1', T0 + 1);
    await registry.disconnected('1', 'c2', T0 + 2);
    expect(await admin.keys(`${prefix}*`)).toEqual([`${prefix}s:1`]);
    expect(await admin.get(`${prefix}s:1`)).toBe(String(T0 + 2));
    expect(await admin.pttl(`${prefix}s:1`)).toBeGreaterThan(29 * 24 * 3600_000);
    await registry.close();
  });

  it('sweeps a user whose connections key already expired, at their last heartbeat', async () => {
    const prefix = `${root}${++clusters}:`;
    const registry = await fresh(prefix);
    await registry.connected('1', 'c1', T0);
    await admin.del(`${prefix}c:1`);
    expect((await registry.stateOf(['1'], T0 + TTL)).get('1')).toEqual({ online: false, lastSeenAt: T0 });
    expect(await registry.sweep(T0 + TTL)).toEqual([{ userId: '1', online: false, lastSeenAt: T0 }]);
    await registry.close();
  });

  it('sweeps in batches until every due user is done', async () => {
    const prefix = `${root}${++clusters}:`;
    const crashed = await fresh(prefix);
    const sweeper = await fresh(prefix, TTL, { sweepBatchSize: 7 });
    const users = Array.from({ length: 30 }, (_, i) => String(i + 1));
    await Promise.all(users.map((user) => crashed.connected(user, `c${user}`, T0)));
    await sweeper.connected('999', 'alive', T0 + 30_000);
    const swept = await sweeper.sweep(T0 + TTL);
    expect(swept.map((t) => t.userId).sort((a, b) => Number(a) - Number(b))).toEqual(users);
    expect((await sweeper.stateOf(['999'], T0 + TTL)).get('999')?.online).toBe(true);
    await Promise.all([crashed.close(), sweeper.close()]);
  });

  describe('when Redis fails', () => {
    let warn: jest.SpyInstance;
    let log: jest.SpyInstance;
    beforeEach(() => {
      warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    });
    afterEach(() => jest.restoreAllMocks());

    it('answers at once while unreachable (never waiting for the command timeout), logs once, and only stateOf rejects', async () => {
      // A command timeout far past the test's own: waiting for it instead of failing fast times the test out.
      const registry = new RedisPresenceRegistry('redis://127.0.0.1:1', `${root}down:`, TTL, {
        commandTimeoutMs: 600_000,
      });
      expect(await registry.connected('1', 'c1', T0)).toBeNull();
      expect(await registry.disconnected('1', 'c1', T0 + 1)).toBeNull();
      await expect(registry.refresh([{ userId: '1', connectionId: 'c1' }], T0)).resolves.toBeUndefined();
      expect(await registry.sweep(T0 + TTL)).toEqual([]);
      await expect(registry.stateOf(['1'], T0)).rejects.toBeInstanceOf(PresenceUnavailableError);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).not.toContain('127.0.0.1');
      await registry.close();
    }, 30_000);

    it('gives up after the command timeout when Redis accepts but never answers', async () => {
      const silent: Socket[] = [];
      const server = createServer((socket) => silent.push(socket));
      await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
      const client = new Redis({
        host: HOST,
        port: (server.address() as AddressInfo).port,
        lazyConnect: true,
        enableReadyCheck: false,
        disableClientInfo: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
      });
      await client.connect();
      const registry = new RedisPresenceRegistry(client, `${root}silent:`, TTL, { commandTimeoutMs: 200 });
      // The server never answers: only the command timeout can settle these.
      const [connected, state] = await Promise.all([
        registry.connected('1', 'c1', T0),
        registry.stateOf(['1'], T0).catch((error: unknown) => error),
      ]);
      expect(connected).toBeNull();
      expect(state).toBeInstanceOf(PresenceUnavailableError);
      expect(warn).toHaveBeenCalledTimes(1);
      // A client passed in belongs to the caller: close leaves it open.
      await registry.close();
      expect(client.status).toBe('ready');
      client.disconnect();
      silent.forEach((socket) => socket.destroy());
      await new Promise((resolve) => server.close(resolve));
    });

    it('heals after an outage: opened connections are written by the next refresh, closed ones swept', async () => {
      const proxy = await TcpProxy.start(PORT);
      const prefix = `${root}${++clusters}:`;
      const registry = new RedisPresenceRegistry(`redis://${HOST}:${proxy.port}`, prefix, TTL, {
        commandTimeoutMs: 300,
      });
      const other = await fresh(prefix);
      expect(await registry.whenReady(2000)).toBe(true);
      expect(await registry.connected('1', 'c1', T0)).toEqual({ userId: '1', online: true, lastSeenAt: null });

      await proxy.down();
      expect(await registry.connected('2', 'c2', T0 + 1)).toBeNull();
      expect(await registry.disconnected('1', 'c1', T0 + 2)).toBeNull();
      expect(warn).toHaveBeenCalledTimes(1);

      await proxy.up();
      expect(await registry.whenReady(5000)).toBe(true);
      await registry.refresh(
        [
          { userId: '2', connectionId: 'c2' },
          { userId: '1', connectionId: 'c1' },
        ],
        T0 + 3,
      );
      expect((await other.stateOf(['2'], T0 + 4)).get('2')).toEqual({ online: true, lastSeenAt: null });
      // The disconnect lost in the outage comes out of the sweep once its connection expires.
      expect(await other.sweep(T0 + TTL)).toEqual([{ userId: '1', online: false, lastSeenAt: T0 }]);
      expect(log).toHaveBeenCalledWith('Redis (presence) answers again');
      await Promise.all([registry.close(), other.close()]);
      await proxy.down();
    });
  });
});

/** A TCP relay to Redis that can be cut and restored on the same port. */
class TcpProxy {
  private server: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  private constructor(private readonly target: number) {}

  static async start(target: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    await proxy.up();
    return proxy;
  }

  async up(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target, HOST);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server.listen(this.port, HOST, resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    this.sockets.forEach((socket) => socket.destroy());
    await closed;
  }
}
