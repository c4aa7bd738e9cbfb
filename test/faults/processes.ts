// Child processes of the fault tests: spawned with their output kept (memory and a log file),
// signalled (SIGSTOP, SIGCONT, SIGKILL) and killed by a watchdog if the test process dies first. Ports come
// from the kernel on 127.0.0.1 and are never the shared MariaDB's or Redis's.
import { ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, WriteStream } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
const SHARED_PORTS = new Set([3306, 6379]);

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((done, fail) => {
      const server = createServer();
      server.once('error', fail);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => done(typeof address === 'object' && address ? address.port : 0));
      });
    });
    if (port && !SHARED_PORTS.has(port)) return port;
  }
}

/** Thrown by a `waitFor` check when waiting longer cannot help (the process died). */
export class GaveUp extends Error {}

/** Polls `check` until it returns a value other than undefined, or fails naming `what`; other errors of `check` are retried. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined>,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof GaveUp) throw error;
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    await sleep(intervalMs);
  }
}

// ---------- child processes ----------

// Jest gives a test file its own copy of `process`, on which exit and signal handlers never run,
// so cleanup after a crash or a kill of the test process is a watchdog's job: a detached node
// process told every child PID and temporary directory over a pipe; when the pipe closes (the
// test process ended, however), it SIGKILLs the children still registered and removes the
// directories.
const WATCHDOG = `
const { rmSync } = require('node:fs');
const pids = new Set();
const dirs = new Set();
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\\n'); end >= 0; end = pending.indexOf('\\n')) {
    const [op, value] = JSON.parse(pending.slice(0, end));
    pending = pending.slice(end + 1);
    if (op === 'pid') pids.add(value); else if (op === 'unpid') pids.delete(value);
    else if (op === 'dir') dirs.add(value); else if (op === 'undir') dirs.delete(value);
  }
});
process.stdin.on('end', () => {
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL'); } catch {} }
  setTimeout(() => { for (const dir of dirs) rmSync(dir, { recursive: true, force: true }); process.exit(0); }, 500);
});
`;
let watchdog: ChildProcess | null = null;

function tellWatchdog(op: 'pid' | 'unpid' | 'dir' | 'undir', value: number | string): void {
  if (!watchdog) {
    watchdog = spawn(process.execPath, ['-e', WATCHDOG], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    // Neither the watchdog nor its pipe keeps the test process alive.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
    watchdog.stdin?.on('error', () => undefined);
  }
  watchdog.stdin?.write(`${JSON.stringify([op, value])}\n`);
}

/** One child process, its output kept in memory (the tail) and in a log file. */
export class Child {
  private process: ChildProcess | null = null;
  private exit: Promise<number | null> = Promise.resolve(null);
  private output = '';
  private logStream: WriteStream;
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;

  constructor(
    private readonly name: string,
    readonly logFile: string,
  ) {
    this.logStream = createWriteStream(logFile, { flags: 'a' });
  }

  get running(): boolean {
    return this.process !== null;
  }

  get pid(): number | null {
    return this.process?.pid ?? null;
  }

  /** Everything the process wrote since it was first started. */
  get log(): string {
    return this.output;
  }

  spawn(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): void {
    if (this.process) throw new Error(`${this.name} is already running`);
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.process = child;
    this.exitCode = null;
    this.exitSignal = null;
    if (child.pid) tellWatchdog('pid', child.pid);
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      this.output += text;
      if (this.output.length > 4_000_000) this.output = this.output.slice(-2_000_000);
      this.logStream.write(text);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exit = new Promise((done) => {
      child.once('error', (error) => {
        collect(Buffer.from(`[harness] ${this.name} failed to start: ${error.message}\n`));
      });
      child.once('close', (code, signal) => {
        if (child.pid) tellWatchdog('unpid', child.pid);
        if (this.process === child) this.process = null;
        this.exitCode = code;
        this.exitSignal = signal;
        done(code);
      });
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.process?.pid) throw new Error(`${this.name} is not running`);
    this.process.kill(signal);
  }

  /** Resolves with the exit code (null when ended by a signal), failing after `timeoutMs`. */
  async exited(timeoutMs: number): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`${this.name} did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exit, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL and wait: works on a frozen (SIGSTOP) process too. */
  async kill(): Promise<void> {
    if (!this.process) return;
    this.process.kill('SIGKILL');
    await this.exited(10_000);
  }

  tail(chars = 3000): string {
    return this.output.slice(-chars);
  }

  async close(): Promise<void> {
    await this.kill().catch(() => undefined);
    await new Promise<void>((done) => this.logStream.end(done));
  }
}

/** A temporary directory; whatever made it removes it in `close` (removeTempDir), or the exit hook does. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tellWatchdog('dir', dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tellWatchdog('undir', dir);
}
