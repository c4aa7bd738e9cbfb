// The built service (`node dist/main.js`, NODE_ENV=production) as a child process of a fault
// test, and a plain HTTP client for it (one connection per request, so a killed process shows
// as a network error on exactly the requests it had in flight).
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Child, GaveUp, ROOT, freePort, removeTempDir, tempDir, waitFor } from './processes';

export const SERVICE_ENTRY = join(ROOT, 'dist', 'main.js');

/** Valid production secrets (test values only). */
export const FAULT_SECRETS = {
  SDK_SECRET: 'fault-sdk-secret-0123456789abcdef-0123456789',
  JWT_SECRET: 'fault-jwt-secret-0123456789abcdef-0123456789',
  RTC_SDK_APP_ID: '1400765432',
  RTC_CALLBACK_SECRET: 'fault-callback-secret-0123456789',
  RTC_SECRET_KEY: 'fa017c0de5ec4e7b1a2c3d4e5f607182fa017c0de5ec4e7b1a2c3d4e5f607182',
};

export interface HttpReply {
  status: number;
  /** The parsed JSON body ({} when it is not JSON). */
  body: { code?: number; msg?: string; data?: unknown } & Record<string, unknown>;
  text: string;
  headers: Record<string, string | string[] | undefined>;
  /** Time from sending the request to the end of the reply. */
  ms: number;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  query?: Record<string, string>;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** The built service, as production runs it, in a child process. */
export class ServiceProcess {
  readonly dir: string;
  private readonly child: Child;

  private constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {
    this.dir = tempDir('im-faults-service-');
    this.child = new Child(`service:${port}`, join(this.dir, 'service.log'));
  }

  /**
   * Prepares (does not start) a service on a free port. `env` adds to a production
   * configuration: valid secrets, generous rate limits, JSON logs.
   */
  static async create(env: Record<string, string>): Promise<ServiceProcess> {
    if (!existsSync(SERVICE_ENTRY))
      throw new Error(`${SERVICE_ENTRY} is missing: run \`npx nest build\` first (test/run-tests.js does)`);
    const port = await freePort();
    return new ServiceProcess(port, env);
  }

  get running(): boolean {
    return this.child.running;
  }

  get pid(): number | null {
    return this.child.pid;
  }

  get exitCode(): number | null {
    return this.child.exitCode;
  }

  get exitSignal(): NodeJS.Signals | null {
    return this.child.exitSignal;
  }

  get log(): string {
    return this.child.log;
  }

  /** The JSON log lines (production format) with their time; other output is left out. */
  logEntries(): { time: number; line: string }[] {
    const entries: { time: number; line: string }[] = [];
    for (const line of this.child.log.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const time = Date.parse(String((JSON.parse(line) as { time?: unknown }).time));
        if (Number.isFinite(time)) entries.push({ time, line });
      } catch {
        // a partial line
      }
    }
    return entries;
  }

  tail(chars?: number): string {
    return this.child.tail(chars);
  }

  /** Spawns `node dist/main.js`; resolves once it answers HTTP (any reply to GET /health). */
  async start(listenTimeoutMs = 30_000): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      PORT: String(this.port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${this.port}`,
      MEDIA_DIR: join(this.dir, 'media'),
      DEV_SECRETS_FILE: join(this.dir, 'dev-secrets.json'),
      RATE_LIMITS:
        'send=100000/1s,friend_request=100000/60s,report=100000/60s,client_error=100000/60s,media_upload=100000/60s',
      ...FAULT_SECRETS,
      ...this.env,
    };
    this.child.spawn(process.execPath, [SERVICE_ENTRY], env, ROOT);
    await waitFor(`the service on port ${this.port} to listen`, listenTimeoutMs, async () => {
      if (!this.child.running)
        throw new GaveUp(`the service exited (${this.child.exitCode ?? this.child.exitSignal}): ${this.child.tail()}`);
      await this.request('GET', '/health', { timeoutMs: 1000 });
      return true;
    });
  }

  /** Waits until GET /health/ready answers 200. */
  async waitReady(timeoutMs = 60_000): Promise<HttpReply> {
    return waitFor(
      `the service on port ${this.port} to be ready`,
      timeoutMs,
      async () => {
        if (!this.child.running)
          throw new GaveUp(
            `the service exited (${this.child.exitCode ?? this.child.exitSignal}): ${this.child.tail()}`,
          );
        const reply = await this.request('GET', '/health/ready', { timeoutMs: 5000 });
        return reply.status === 200 ? reply : undefined;
      },
      150,
    );
  }

  async startReady(timeoutMs = 60_000): Promise<void> {
    await this.start();
    await this.waitReady(timeoutMs);
  }

  /** kill -9 */
  async kill(): Promise<void> {
    await this.child.kill();
  }

  signal(signal: NodeJS.Signals): void {
    this.child.signal(signal);
  }

  exited(timeoutMs: number): Promise<number | null> {
    return this.child.exited(timeoutMs);
  }

  /** One HTTP request on its own connection; rejects on a network error or after `timeoutMs`. */
  request(method: string, path: string, options: RequestOptions = {}): Promise<HttpReply> {
    const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const headers: Record<string, string> = { Accept: 'application/json', Connection: 'close', ...options.headers };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const timeoutMs = options.timeoutMs ?? 15_000;
    const started = Date.now();
    return new Promise<HttpReply>((done, fail) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: this.port, method, path: `${path}${query}`, headers, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => {
            clearTimeout(timer);
            fail(error);
          });
          res.on('end', () => {
            clearTimeout(timer);
            const text = Buffer.concat(chunks).toString('utf8');
            let body: HttpReply['body'] = {};
            try {
              body = JSON.parse(text) as HttpReply['body'];
            } catch {
              body = {};
            }
            done({ status: res.statusCode ?? 0, body, text, headers: res.headers, ms: Date.now() - started });
          });
        },
      );
      const timer = setTimeout(
        () => req.destroy(new Error(`${method} ${path}: no reply within ${timeoutMs} ms`)),
        timeoutMs,
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        fail(this.explain(error));
      });
      req.end(payload);
    });
  }

  /** A network error, with the process's state when it is not running (the code is kept). */
  private explain(error: NodeJS.ErrnoException): NodeJS.ErrnoException {
    if (this.child.running) return error;
    const explained: NodeJS.ErrnoException = new Error(
      `${error.message} (the service is not running: exit ${this.child.exitCode ?? this.child.exitSignal}; log tail: ${this.child.tail(1500)})`,
    );
    explained.code = error.code;
    return explained;
  }

  async close(): Promise<void> {
    await this.child.close();
    removeTempDir(this.dir);
  }
}
