'use strict';

/**
 * The processes of the real-time benchmark besides the service (bench/lib/server.js): the
 * client process (realtime-clients.js) with its IPC calls, the bare socket.io baseline
 * (bare-socketio.js), the open-file limit both need, and reading the service's /metrics.
 */

const { execFileSync, fork, spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { readRssMb, sleep, ROOT } = require('./server');

/** Child processes started here, killed on any exit path. */
const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Each socket is a file descriptor in the server and in the client process. Node raises its own
 * soft limit to the hard one at start, so only the hard limit can be too low: then the bench
 * starts itself again under a shell that raises it (which needs the privilege to). Call before
 * anything else starts.
 */
function ensureFileLimit(need) {
  let soft;
  try {
    soft = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  } catch {
    return;
  }
  if (soft === 'unlimited' || Number(soft) >= need) return;
  if (process.env.BENCH_RT_FILE_LIMIT_RAISED === '1') {
    console.log(
      `note: the open-file limit is ${soft}, below the ${need} the real-time section needs; its memory case will fail. Raise it with "ulimit -n ${need}".`,
    );
    return;
  }
  console.log(
    `open-file limit ${soft} < ${need}: the bench starts again under "ulimit -n ${need}" for the real-time section`,
  );
  const script = `ulimit -n ${need} 2>/dev/null || echo "could not raise the open-file limit to ${need}" >&2; exec "$@"`;
  const result = spawnSync(
    'sh',
    ['-c', script, 'sh', process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_RT_FILE_LIMIT_RAISED: '1' },
    },
  );
  process.exit(result.status === null ? 1 : result.status);
}

/** Refuses to start when something already listens on a port (it could answer for us). */
async function assertPortsFree(ports) {
  for (const port of ports) {
    await new Promise((resolve, reject) => {
      const probe = net.createServer();
      probe.once('error', (error) =>
        reject(new Error(`port ${port} is not free (${error.code}); stop whatever listens there first`)),
      );
      probe.listen(port, () => probe.close(resolve));
    });
  }
}

async function stopChild(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (signal) child.kill(signal);
  else child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The client process (realtime-clients.js) and its IPC calls. */
class ClientProcess {
  constructor() {
    this.child = fork(path.join(__dirname, 'realtime-clients.js'), [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(this.child);
    this.calls = new Map();
    this.seq = 0;
    this.child.on('message', ({ id, ok, result, error }) => {
      const call = this.calls.get(id);
      if (!call) return;
      this.calls.delete(id);
      if (ok) call.resolve(result);
      else call.reject(new Error(error));
    });
    this.child.on('exit', (code, signal) => {
      children.delete(this.child);
      for (const call of this.calls.values())
        call.reject(new Error(`client process exited (code ${code}, signal ${signal})`));
      this.calls.clear();
    });
  }

  get pid() {
    return this.child.pid;
  }

  call(cmd, args = {}) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.child.send({ id, cmd, ...args });
    });
  }

  stop() {
    return stopChild(this.child, null);
  }
}

/**
 * The bare socket.io baseline as a child process, with the node flags the service runs with
 * (those of `npm run start:prod`, plus BENCH_NODE_ARGS): the same heap and young-generation
 * sizes, and a --cpu-prof there profiles both.
 */
async function startBare(port, socketPath) {
  const prodScript = require(path.join(ROOT, 'package.json')).scripts['start:prod'] || '';
  const nodeArgs = [
    ...prodScript.split(/\s+/).filter((word) => word.startsWith('--')),
    ...(process.env.BENCH_NODE_ARGS || '').split(' ').filter(Boolean),
  ];
  const child = spawn(process.execPath, [...nodeArgs, path.join(__dirname, 'bare-socketio.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, BARE_PORT: String(port), BARE_PATH: socketPath },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bare socket.io server exited (code ${child.exitCode})`);
    try {
      if ((await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(1000) })).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error('bare socket.io server did not answer /health within 20 s');
    await sleep(100);
  }
  return { pid: child.pid, baseUrl, stop: () => stopChild(child, 'SIGTERM') };
}

/**
 * PID of the local MariaDB/MySQL server that listens on `port`: the one started with
 * --port=<port>, else one started without --port when the port is the default 3306 (other
 * jobs on the machine may run their own servers on other ports). Null when none is found.
 */
function findDatabasePidFor(port) {
  let fallback = null;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm !== 'mariadbd' && comm !== 'mysqld') continue;
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const flag = args.find((arg) => arg.startsWith('--port='));
      if (flag && Number(flag.slice('--port='.length)) === port) return Number(entry);
      if (!flag && port === 3306) fallback = Number(entry);
    } catch {
      /* process gone, or /proc unreadable */
    }
  }
  return fallback;
}

/** A value of the service's /metrics (summed over the series matching `labels`), or null. */
async function metric(baseUrl, name, labels = '') {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    let sum = null;
    for (const line of text.split('\n')) {
      if (!line.startsWith(name)) continue;
      const rest = line.slice(name.length);
      if (!(rest.startsWith(' ') || rest.startsWith(`{${labels}`))) continue;
      sum = (sum || 0) + Number(rest.slice(rest.lastIndexOf(' ') + 1));
    }
    return sum;
  } catch {
    return null;
  }
}

/** RSS once the process is quiet: the median of 11 samples 200 ms apart, in MB. */
async function settledRssMb(pid) {
  const samples = [];
  for (let i = 0; i < 11; i++) {
    samples.push(readRssMb(pid));
    await sleep(200);
  }
  samples.sort((a, b) => a - b);
  return samples[5];
}

module.exports = {
  ensureFileLimit,
  assertPortsFree,
  ClientProcess,
  startBare,
  findDatabasePidFor,
  metric,
  settledRssMb,
};
