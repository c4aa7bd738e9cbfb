'use strict';

/**
 * Starts the production build (`node dist/main.js`) as a child process, waits for it to be
 * healthy, samples its resident memory and stops it again.
 */

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
// BENCH_MAIN runs another build (for alternated comparisons of two builds).
const MAIN = process.env.BENCH_MAIN ? path.resolve(process.env.BENCH_MAIN) : path.join(ROOT, 'dist', 'main.js');
// The readiness path of the build under test (BENCH_READY_PATH=/health for builds before /health/ready).
const READY_PATH = process.env.BENCH_READY_PATH || '/health/ready';
const LOG_LINES_KEPT = 400;

class Server {
  constructor({ name, port, env }) {
    this.name = name;
    this.port = port;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.env = env;
    this.child = null;
    this.exit = null; // { code, signal } once the process is gone
    this.logLines = []; // ring buffer of the last LOG_LINES_KEPT lines (stdout and stderr)
    this.lineCount = 0; // total lines seen, so callers can ask for "lines since mark"
    this.exited = null;
  }

  start() {
    if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} not found: run "npm run build" first (npm run bench does).`);
    // The server runs with the node flags of `npm run start:prod`, plus any in BENCH_NODE_ARGS.
    const prodScript = require(path.join(ROOT, 'package.json')).scripts['start:prod'] || '';
    const prodFlags = prodScript.split(/\s+/).filter((word) => word.startsWith('--'));
    const nodeArgs = [...prodFlags, ...(process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean)];
    this.child = spawn(process.execPath, [...nodeArgs, MAIN], {
      cwd: ROOT,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) this.pushLine(line);
      });
      stream.on('end', () => {
        if (pending) this.pushLine(pending);
      });
    }
    return this;
  }

  pushLine(line) {
    // Nest colours its log lines; strip ANSI escapes so samples stay readable.
    // eslint-disable-next-line no-control-regex
    const clean = line.replace(/\u001b\[[0-9;]*m/g, '');
    // BENCH_SERVER_LOG=file keeps every line (with node flags like --trace-gc in BENCH_NODE_ARGS).
    if (process.env.BENCH_SERVER_LOG) fs.appendFileSync(process.env.BENCH_SERVER_LOG, `${clean}\n`);
    this.logLines.push(clean);
    this.lineCount++;
    if (this.logLines.length > LOG_LINES_KEPT) this.logLines.shift();
  }

  get pid() {
    return this.child ? this.child.pid : null;
  }

  /** Lines logged since `mark` (a previous value of lineCount), as far as still kept. */
  linesSince(mark) {
    const count = Math.min(this.lineCount - mark, this.logLines.length);
    return count > 0 ? this.logLines.slice(-count) : [];
  }

  tail(count = 30) {
    return this.logLines.slice(-count);
  }

  /** Polls the readiness path until it answers {code:0}; fails early if the process exits. */
  async waitHealthy(timeoutMs = 90_000) {
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    while (Date.now() < deadline) {
      if (this.exit) {
        throw new Error(
          `server exited (code ${this.exit.code}, signal ${this.exit.signal}) before becoming healthy. Last log lines:\n  ${this.tail(20).join('\n  ')}`,
        );
      }
      try {
        const response = await fetch(`${this.baseUrl}${READY_PATH}`, { signal: AbortSignal.timeout(2000) });
        const text = await response.text();
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON yet */
        }
        if (response.status === 200 && json && json.code === 0) return json;
        last = `HTTP ${response.status} ${text.slice(0, 200)}`;
      } catch (error) {
        last = error.cause ? error.cause.code || error.cause.message : error.message;
      }
      await sleep(100);
    }
    throw new Error(
      `server did not become healthy within ${timeoutMs / 1000}s (last: ${last}). Last log lines:\n  ${this.tail(20).join('\n  ')}`,
    );
  }

  /** SIGTERM, then SIGKILL after `graceMs`. Safe to call more than once. */
  async stop(graceMs = 5000) {
    if (!this.child || this.exit) return this.exit;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.exit) this.child.kill('SIGKILL');
    }, graceMs);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }

  /** Stops the process and starts it again (same port and environment); resolves when healthy. */
  async restart() {
    await this.stop();
    this.exit = null;
    this.start();
    await this.waitHealthy();
  }

  /** Last-resort synchronous kill (process 'exit' handler). */
  killNow() {
    if (this.child && !this.exit) {
      try {
        this.child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
}

/** VmRSS of a process in MB, or null when /proc is not available. */
function readRssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples VmRSS every `intervalMs` between begin() and end(); end() returns the window's peak. */
class RssSampler {
  constructor(pid, intervalMs = 200) {
    this.pid = pid;
    this.intervalMs = intervalMs;
    this.timer = null;
    this.windowPeak = null;
    this.peak = null; // over all windows
    this.samples = 0;
  }

  sample() {
    const rss = readRssMb(this.pid);
    if (rss === null) return;
    this.samples++;
    if (this.windowPeak === null || rss > this.windowPeak) this.windowPeak = rss;
    if (this.peak === null || rss > this.peak) this.peak = rss;
  }

  begin() {
    this.windowPeak = null;
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  end() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sample();
    return this.windowPeak;
  }
}

/**
 * CPU seconds (user + system) used so far by a process, from /proc/<pid>/stat; null when
 * unavailable. Assumes the usual 100 clock ticks per second.
 */
function readCpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; fields after its closing ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Busy and total CPU seconds of the whole machine (all cores), from /proc/stat; null when unavailable. */
function readSystemCpu() {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const total = user + nice + system + idle + iowait + irq + softirq + (steal || 0);
    return { busy: (total - idle - iowait) / 100, total: total / 100 };
  } catch {
    return null;
  }
}

/** PID of a local MariaDB/MySQL server process, found by name in /proc (read only); null if none. */
function findDatabasePid() {
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^[0-9]+$/.test(entry)) continue;
      try {
        const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
        if (comm === 'mariadbd' || comm === 'mysqld') return Number(entry);
      } catch {
        /* process gone */
      }
    }
  } catch {
    /* no /proc */
  }
  return null;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

module.exports = {
  READY_PATH,
  Server,
  RssSampler,
  readRssMb,
  readCpuSeconds,
  readSystemCpu,
  findDatabasePid,
  sleep,
  ROOT,
};
