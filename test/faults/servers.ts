// A private mariadbd and redis-server for the fault tests: own temporary data directory, own free
// loopback port, started, frozen, killed and restarted by the tests. The machine's shared MariaDB
// (3306) and Redis (6379) are never touched.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Redis from 'ioredis';
import { createConnection } from 'mysql2/promise';
import { Child, GaveUp, freePort, removeTempDir, tempDir, waitFor } from './processes';

/** A private mariadbd: its own data directory, socket and port, root without a password on 127.0.0.1 only. */
export class MariaDb {
  readonly dir: string;
  readonly dataDir: string;
  private readonly child: Child;

  private constructor(readonly port: number) {
    this.dir = tempDir('im-faults-mariadb-');
    this.dataDir = join(this.dir, 'data');
    this.child = new Child(`mariadbd:${port}`, join(this.dir, 'mariadbd.log'));
  }

  /** Initialises a fresh data directory and starts the server. */
  static async create(): Promise<MariaDb> {
    const db = new MariaDb(await freePort());
    const install = spawnSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${db.dataDir}`,
        '--user=root',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (install.status !== 0) {
      await db.close();
      throw new Error(`mariadb-install-db failed (${install.status}): ${install.stderr || install.stdout}`);
    }
    try {
      await db.start();
    } catch (error) {
      await db.close();
      throw error;
    }
    return db;
  }

  get running(): boolean {
    return this.child.running;
  }

  url(database: string): string {
    return `mysql://root@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts mariadbd on the existing data directory (after a kill too: InnoDB recovers) and waits until it answers. */
  async start(): Promise<void> {
    this.child.spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${this.dataDir}`,
        `--port=${this.port}`,
        `--socket=${join(this.dir, 'mariadbd.sock')}`,
        `--pid-file=${join(this.dir, 'mariadbd.pid')}`,
        '--bind-address=127.0.0.1',
        '--skip-networking=0',
        '--skip-name-resolve',
        '--user=root',
        '--innodb-buffer-pool-size=64M',
        '--max-connections=300',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_bin',
      ],
      { ...process.env },
      this.dir,
    );
    await waitFor(`mariadbd on port ${this.port}`, 60_000, async () => {
      if (!this.child.running) throw new GaveUp(`mariadbd exited: ${this.child.tail()}`);
      await this.query('SELECT 1');
      return true;
    });
  }

  /** kill -9: InnoDB keeps every committed transaction. */
  async kill(): Promise<void> {
    await this.child.kill();
  }

  freeze(): void {
    this.child.signal('SIGSTOP');
  }

  thaw(): void {
    this.child.signal('SIGCONT');
  }

  async createDatabase(name: string): Promise<string> {
    await this.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    return this.url(name);
  }

  /** One statement on a fresh connection (so a frozen or killed server leaves nothing behind). */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = [], database?: string): Promise<T[]> {
    const connection = await createConnection({
      host: '127.0.0.1',
      port: this.port,
      user: 'root',
      database,
      connectTimeout: 2000,
    });
    try {
      const [rows] = await connection.query(sql, params);
      return rows as T[];
    } finally {
      await connection.end().catch(() => connection.destroy());
    }
  }

  tail(chars?: number): string {
    return this.child.tail(chars);
  }

  async close(): Promise<void> {
    // SIGKILL: a frozen server dies of it too.
    await this.child.close();
    removeTempDir(this.dir);
  }
}

// ---------- Redis ----------

/** A private redis-server without persistence. */
export class RedisServer {
  readonly dir: string;
  private readonly child: Child;

  private constructor(readonly port: number) {
    this.dir = tempDir('im-faults-redis-');
    this.child = new Child(`redis-server:${port}`, join(this.dir, 'redis.log'));
  }

  static async create(): Promise<RedisServer> {
    const redis = new RedisServer(await freePort());
    try {
      await redis.start();
    } catch (error) {
      await redis.close();
      throw error;
    }
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.running;
  }

  async start(): Promise<void> {
    this.child.spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
        '--daemonize',
        'no',
      ],
      { ...process.env },
      this.dir,
    );
    await waitFor(`redis-server on port ${this.port}`, 20_000, async () => {
      if (!this.child.running) throw new GaveUp(`redis-server exited: ${this.child.tail()}`);
      return (await this.command((r) => r.ping())) === 'PONG' ? true : undefined;
    });
  }

  async kill(): Promise<void> {
    await this.child.kill();
  }

  freeze(): void {
    this.child.signal('SIGSTOP');
  }

  thaw(): void {
    this.child.signal('SIGCONT');
  }

  /** How many keys the server holds. */
  dbsize(): Promise<number> {
    return this.command((r) => r.dbsize());
  }

  /** One command on a short-lived connection that never retries. */
  private async command<T>(run: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = new Redis({
      host: '127.0.0.1',
      port: this.port,
      lazyConnect: true,
      connectTimeout: 1000,
      commandTimeout: 1000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await run(redis);
    } finally {
      redis.disconnect();
    }
  }

  async close(): Promise<void> {
    await this.child.close();
    removeTempDir(this.dir);
  }
}
