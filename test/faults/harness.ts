// Fault-test harness: a private mariadbd and redis-server (own temporary data directory, own
// free loopback port) and the built service (`node dist/main.js`, production mode) as child
// processes that a test can freeze, kill and restart (processes.ts, servers.ts,
// service-process.ts), and the client side of the checks (client.ts). The machine's shared
// MariaDB (3306) and Redis (6379) are never touched: every address is 127.0.0.1 with a port
// asked of the kernel. A spec makes everything through one FaultLab and closes it in afterAll.
import { MariaDb, RedisServer } from './servers';
import { ServiceProcess } from './service-process';

export * from './client';
export * from './processes';
export * from './servers';
export * from './service-process';

/** Everything a spec started, stopped in afterAll whatever happened. */
export class FaultLab {
  private readonly closers: { name: string; close: () => Promise<void> }[] = [];

  track<T extends { close(): Promise<void> }>(name: string, thing: T): T {
    this.closers.push({ name, close: () => thing.close() });
    return thing;
  }

  async mariaDb(): Promise<MariaDb> {
    return this.track('mariadbd', await MariaDb.create());
  }

  async redis(): Promise<RedisServer> {
    return this.track('redis-server', await RedisServer.create());
  }

  async service(env: Record<string, string>): Promise<ServiceProcess> {
    return this.track('service', await ServiceProcess.create(env));
  }

  /** Services first (they hold connections), then the servers. */
  async close(): Promise<void> {
    const errors: string[] = [];
    for (const closer of this.closers.reverse()) {
      try {
        await closer.close();
      } catch (error) {
        errors.push(`${closer.name}: ${(error as Error).message}`);
      }
    }
    this.closers.length = 0;
    if (errors.length) throw new Error(`cleanup failed: ${errors.join('; ')}`);
  }
}
