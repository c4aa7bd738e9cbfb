'use strict';

/**
 * Benchmark of the production build (run by `npm run bench`, after `npm run build`).
 *
 * For each database driver (SQLite, then MariaDB/MySQL when reachable) it starts
 * `node dist/main.js` on a fresh database, creates a pool of users and the messaging fixtures
 * (friend pairs, a 200-member group, a user with 1,000 conversations and a conversation of
 * 100,000 messages, the last two seeded directly in the database: bench/lib/messaging.js),
 * drives every case with autocannon (warm-up, then a measured run) and prints req/s, p50/p99
 * latency and the ratio to GET /health/ready (one SELECT 1) of the same run, with the issue's targets and the
 * server's peak RSS under load. On MariaDB it then EXPLAINs the statements of the messaging
 * paths (captured through the general log) and flags table scans.
 * Results go to bench/results/latest.json.
 *
 * Then the real-time section (bench/lib/realtime.js, MariaDB only, whatever BENCH_DRIVERS says):
 * socket.io fan-out from the service against a bare socket.io server in the same run, resume
 * of missed events, and RSS per idle socket.
 *
 * The calls cases (bench/lib/calls.js) run after the messaging cases on both drivers: the
 * one-to-one start + accept (+ hangup) cycle by a closed loop, and room callbacks that change
 * the participants of live group calls. Their fixtures are made only when a calls case is selected.
 *
 * The before-send section (bench/lib/before-send.js, each driver): one-to-one sends with a
 * before-send hook that answers at once, as a ratio to sends without one, in alternated runs.
 *
 * The webhooks section (bench/lib/webhooks.js, each driver): deliveries/s to a local receiver
 * (one endpoint seeded by WEBHOOK_ENDPOINTS) and the lag's percentiles under one-to-one and group
 * sends, events sent vs delivered, and the catch-up after the load.
 *
 * The push section (bench/lib/push.js, each driver): one-to-one sends to offline recipients with a
 * registered device against a service with providers (the fake FCM and APNs of test/push/fakes)
 * and without, in alternated rounds (the send's latency ratio); then notifications/s accepted by
 * the fakes and the delay from a send's reply to the fake's receipt, one-to-one and into a group.
 *
 * Environment:
 *   BENCH_SECTIONS     comma list of http,realtime,scrub,before-send,webhooks,push,analytics,console (default the first
 *                      six; analytics, bench/lib/analytics.js, seeds 10 million messages on MariaDB, and console,
 *                      bench/lib/console.js, the operator console's lists over 200,000 users, are asked for by name)
 *   BENCH_ANALYTICS_MESSAGES / BENCH_ANALYTICS_ROLLUP_S / BENCH_ANALYTICS_REQUESTS  the analytics section's seeded
 *                      messages (default 10,000,000), seconds the rollup job is timed (60) and requests per page (200)
 *   BENCH_CONSOLE_USERS / _GROUPS / _REPORTS / _CLIENT_ERRORS / _ERROR_GROUPS / _REQUESTS  the console section's seeded
 *                      rows (default 200,000 / 20,000 / 100,000 / 100,000 / 5,000) and requests per case (100)
 *   BENCH_DURATION     measured seconds per case (default 8)
 *   BENCH_WARMUP       warm-up seconds per case (default 2; 0 disables)
 *   BENCH_CONNECTIONS  concurrent connections (default 20)
 *   BENCH_DRIVERS      comma list of sqlite,mysql (default both)
 *   BENCH_CASES        comma list of case keys to run (default all; the two /health runs always run)
 *   BENCH_MYSQL_URL    default mysql://root@127.0.0.1:3306/im_bench (the database is dropped and recreated)
 *   BENCH_ENFORCE=1    exit 1 when a MariaDB target is missed (errors always exit 1)
 *   BENCH_KEEP_DB=1    keep the scratch directory (SQLite file, media) of each driver
 *   BENCH_SHOW_SQL=1   print every statement captured per messaging path
 *   BENCH_SERVER_LOG   append every server log line to this file (with BENCH_NODE_ARGS=--trace-gc: GC pauses)
 *   BENCH_RT_PHASES    real-time phases, comma list of fanout,resume,memory (default all)
 *   BENCH_RT_GROUP_SENDERS / BENCH_RT_DIRECT_SENDERS  concurrent senders into the group / the pairs (default 4 / 16)
 *   BENCH_RT_MEMORY_SOCKETS  idle sockets of the memory case (default 5000)
 *   BENCH_RT_RESUME_EVENTS / BENCH_RT_RESUME_ATTEMPTS  missed events and reconnections of the resume case (default 1000 / 5)
 *   BENCH_HOOK_ROUNDS  alternated measured runs per side of the before-send section (default 3)
 *   BENCH_WEBHOOKS_TIMELINE  file for the webhooks section's per-event created/received times (ms from the load's start)
 *   BENCH_PUSH_USERS / BENCH_PUSH_MESSAGES / BENCH_PUSH_GROUP_MESSAGES  the push section's offline recipients (default 200,
 *                      even: half FCM, half APNs), one-to-one sends (default 3000) and group sends (default 50)
 *   BENCH_PUSH_ROUNDS  alternated measured runs per side (providers / none) of the push section (default 3)
 *   BENCH_PUSH_RATE    sends/s of the push section's paced runs (default 100; the other runs go as fast as they can)
 *   BENCH_PUSH_TIMELINE  file to append the push section's per-notification send-reply and receipt times to
 *
 * The server gets a clean environment (only PATH, HOME, LANG, TZ, TMPDIR from the caller) and
 * every per-user rate limit (RATE_LIMITS) raised out of reach, see unlimitedRateLimits().
 *
 * Exit code: 0 when every driver that ran finished without request errors, 1 otherwise.
 */

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server, RssSampler, readRssMb, readCpuSeconds, readSystemCpu, findDatabasePid, ROOT } = require('./lib/server');
const { runLoad, errorCount } = require('./lib/load');
const { buildCases, TARGETS, P99_TARGETS_MS, RSS_TARGET_MB, POOL_SIZE } = require('./lib/cases');
const { prepareMessaging, explainMessaging } = require('./lib/messaging');
const { prepareCalls, callCases, CALL_CASE_KEYS } = require('./lib/calls');
const { runRealtime, ensureFileLimit } = require('./lib/realtime');
const { printRealtime, realtimeVerdict } = require('./lib/realtime-report');
const { runScrub, printScrub } = require('./lib/scrub');
const { runBeforeSend, printBeforeSend, beforeSendInvalid } = require('./lib/before-send');
const { runWebhooks, printWebhooks, webhooksInvalid } = require('./lib/webhooks');
const { runPush, printPush, pushInvalid } = require('./lib/push');
const { runAnalytics, printAnalytics, analyticsInvalid } = require('./lib/analytics');
const { runConsole, printConsole, consoleInvalid } = require('./lib/console');

const RESULTS_DIR = path.join(__dirname, 'results');
const PORTS = { sqlite: 3901, mysql: 3902 };

function positiveNumberEnv(name, fallback, { allowZero = false } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    console.error(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number (got "${raw}")`);
    process.exit(2);
  }
  return value;
}

const settings = {
  duration: positiveNumberEnv('BENCH_DURATION', 8),
  warmup: positiveNumberEnv('BENCH_WARMUP', 2, { allowZero: true }),
  connections: Math.round(positiveNumberEnv('BENCH_CONNECTIONS', 20)),
  sections: (process.env.BENCH_SECTIONS || 'http,realtime,scrub,before-send,webhooks,push')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean),
  drivers: (process.env.BENCH_DRIVERS || 'sqlite,mysql')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean),
  cases: process.env.BENCH_CASES
    ? process.env.BENCH_CASES.split(',')
        .map((c) => c.trim())
        .filter(Boolean)
    : null,
  mysqlUrl: process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/im_bench',
  enforce: process.env.BENCH_ENFORCE === '1',
  keepDb: process.env.BENCH_KEEP_DB === '1',
};
for (const section of settings.sections) {
  if (!['http', 'realtime', 'scrub', 'before-send', 'webhooks', 'push', 'analytics', 'console'].includes(section)) {
    console.error(
      `BENCH_SECTIONS: unknown section "${section}" (use http, realtime, scrub, before-send, webhooks, push, analytics and/or console)`,
    );
    process.exit(2);
  }
}
for (const driver of settings.drivers) {
  if (!(driver in PORTS)) {
    console.error(`BENCH_DRIVERS: unknown driver "${driver}" (use sqlite and/or mysql)`);
    process.exit(2);
  }
}

/** Servers still running, killed on any exit path. */
const liveServers = new Set();
process.on('exit', () => {
  for (const server of liveServers) server.killNow();
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping server(s)`);
    for (const server of liveServers) server.killNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Refuses to start when something already listens on the port (it could answer /health for us). */
function assertPortFree(port) {
  const net = require('node:net');
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) =>
      reject(new Error(`port ${port} is not free (${error.code}); stop whatever listens there first`)),
    );
    probe.listen(port, () => probe.close(resolve));
  });
}

function pickEnv(names) {
  const picked = {};
  for (const name of names) if (process.env[name] !== undefined) picked[name] = process.env[name];
  return picked;
}

/**
 * The server limits requests per user (code 1005, RATE_LIMITS). The cases send far more per
 * user than any limit allows (the merged case is one user by definition), so every limit the
 * build knows is raised out of reach: the limiter still counts each request, it never refuses.
 * Null when the build has no rate limits.
 */
function unlimitedRateLimits() {
  try {
    const { RATE_LIMIT_NAMES: names } = require(path.join(ROOT, 'dist', 'config', 'messaging-config.js'));
    if (Array.isArray(names) && names.length) return names.map((name) => `${name}=1000000000/60s`).join(',');
  } catch {
    /* a build without rate limits */
  }
  return null;
}
const rateLimits = unlimitedRateLimits();

function secret(bytes) {
  return randomBytes(bytes).toString('base64url');
}

// ---------------------------------------------------------------------------------------------
// Databases

/** Drops and creates the bench database; returns null when the server is not reachable. */
async function prepareMysql(url) {
  const mysql = require('mysql2/promise');
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(database))
    throw new Error(`BENCH_MYSQL_URL: database name "${database}" must be letters, digits, _`);
  let connection;
  try {
    connection = await mysql.createConnection({
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 3306,
      user: decodeURIComponent(parsed.username || 'root'),
      password: decodeURIComponent(parsed.password),
      connectTimeout: 3000,
    });
  } catch (error) {
    return { unreachable: `${parsed.hostname}:${parsed.port || 3306} not reachable (${error.code || error.message})` };
  }
  try {
    const [[{ version }]] = await connection.query('SELECT VERSION() AS version');
    await connection.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    return { version, database };
  } finally {
    await connection.end();
  }
}

const COUNTED_TABLES = [
  'users',
  'client_errors',
  'client_error_submissions',
  'reports',
  'rtc_room_events',
  'conversations',
  'conversation_members',
  'messages',
  'outbox_events',
  'outbox_recipients',
  'calls',
  'call_participants',
];

/** Row counts after the run, a sanity check that writes really happened. */
async function rowCounts(driver, target) {
  const counts = {};
  try {
    if (driver === 'sqlite') {
      const Database = require('better-sqlite3');
      const db = new Database(target, { readonly: true, fileMustExist: true });
      try {
        for (const table of COUNTED_TABLES) counts[table] = db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get().n;
      } finally {
        db.close();
      }
    } else {
      const mysql = require('mysql2/promise');
      const connection = await mysql.createConnection({ uri: target, connectTimeout: 3000 });
      try {
        for (const table of COUNTED_TABLES)
          counts[table] = Number((await connection.query(`SELECT COUNT(*) AS n FROM ${table}`))[0][0].n);
      } finally {
        await connection.end();
      }
    }
  } catch (error) {
    counts.error = error.message;
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------
// Fixtures

async function postJson(baseUrl, urlPath, headers, body) {
  const response = await fetch(baseUrl + urlPath, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`POST ${urlPath}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (response.status !== 200 || json.code !== 0)
    throw new Error(`POST ${urlPath}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return json.data;
}

/** Creates POOL_SIZE users (10 at a time) and keeps their IM tokens. */
async function createPool(baseUrl, runId, sdkSecret) {
  const pool = new Array(POOL_SIZE);
  let nextIndex = 0;
  async function worker() {
    while (nextIndex < POOL_SIZE) {
      const i = nextIndex++;
      const userId = `bx-${runId}-${i}`;
      const nickname = `Bench User ${i}`;
      const data = await postJson(
        baseUrl,
        '/app/sdk/token',
        { Authorization: `Bearer ${sdkSecret}` },
        { user_id: userId, nickname },
      );
      if (!data || !data.user || data.user.user_id !== userId || typeof data.token !== 'string')
        throw new Error(`token for ${userId}: unexpected reply`);
      pool[i] = { userId, nickname, token: data.token };
    }
  }
  await Promise.all(Array.from({ length: 10 }, worker));
  return pool;
}

/** The server's environment: only these settings (see the header), every rate limit out of reach. */
function serverEnv({ port, databaseUrl, mediaDir, sdkSecret, jwtSecret, rtcAppId, rtcSecret }) {
  const env = {
    ...pickEnv(['PATH', 'HOME', 'LANG', 'TZ', 'TMPDIR']),
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    MIGRATIONS_RUN: 'true',
    SDK_SECRET: sdkSecret,
    JWT_SECRET: jwtSecret,
    RTC_SDK_APP_ID: rtcAppId,
    RTC_CALLBACK_SECRET: rtcSecret,
    RTC_SECRET_KEY: `rtckey-${secret(32)}`,
    // The bench connects thousands of sockets and reconnects some users many times a minute.
    REALTIME_CONNECTS_PER_MINUTE: '100000',
    REALTIME_MAX_SOCKETS_PER_USER: '10000',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    MEDIA_DIR: mediaDir,
  };
  if (rateLimits) env.RATE_LIMITS = rateLimits;
  return env;
}

/** The real-time section's server: fresh secrets, its own scratch media directory. */
function realtimeServerEnv(port, databaseUrl, mediaDir) {
  return serverEnv({
    port,
    databaseUrl,
    mediaDir,
    sdkSecret: `sdk-${secret(32)}`,
    jwtSecret: `jwt-${secret(32)}`,
    rtcAppId: '1400000001',
    rtcSecret: `rtc-${secret(24)}`,
  });
}

// ---------------------------------------------------------------------------------------------
// One driver

async function benchDriver(driver) {
  const report = { driver, cases: {}, peakRssMb: null };
  const sdkSecret = `sdk-${secret(32)}`;
  const jwtSecret = `jwt-${secret(32)}`;
  const rtcAppId = '1400000001';
  const rtcSecret = `rtc-${secret(24)}`;
  const runId = randomBytes(4).toString('hex');

  let databaseUrl;
  let countTarget;
  if (driver === 'mysql') {
    const prepared = await prepareMysql(settings.mysqlUrl);
    if (prepared.unreachable) {
      console.log(`\n== mysql: skipped, ${prepared.unreachable} ==`);
      return { driver, skipped: prepared.unreachable };
    }
    databaseUrl = settings.mysqlUrl;
    countTarget = settings.mysqlUrl;
    report.database = `MariaDB/MySQL ${prepared.version}, database ${prepared.database} (dropped and recreated)`;
  }
  // Per-run scratch directory: the SQLite file and anything the server writes to disk (media).
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `im-bench-${driver}-`));
  if (driver === 'sqlite') {
    const file = path.join(tempDir, 'bench.sqlite');
    databaseUrl = `sqlite:${file}`;
    countTarget = file;
    report.database = 'SQLite (temp file, WAL)';
  }

  // A clean environment: nothing from the caller's shell (REDIS_URL, CAPABILITIES_CLOSED, ...)
  // changes what is measured.
  const env = serverEnv({
    port: PORTS[driver],
    databaseUrl,
    mediaDir: path.join(tempDir, 'media'),
    sdkSecret,
    jwtSecret,
    rtcAppId,
    rtcSecret,
  });

  console.log(`\n== ${driver}: ${report.database}, port ${PORTS[driver]} ==`);
  const server = new Server({ name: driver, port: PORTS[driver], env });
  liveServers.add(server);
  try {
    await assertPortFree(PORTS[driver]);
    server.start();
    const started = Date.now();
    await server.waitHealthy();
    report.startupMs = Date.now() - started;
    report.idleRssMb = round(readRssMb(server.pid), 1);
    console.log(
      `server pid ${server.pid} healthy after ${report.startupMs} ms (migrations included), idle RSS ${fmt(report.idleRssMb, 1)} MB`,
    );

    const pool = await createPool(server.baseUrl, runId, sdkSecret);
    console.log(`created ${pool.length} users with IM tokens`);
    const fixturesStarted = Date.now();
    const messaging = await prepareMessaging({
      baseUrl: server.baseUrl,
      driver,
      dbTarget: countTarget,
      runId,
      sdkSecret,
      pool,
    });
    report.messagingFixtures = { ...messaging.summary, totalMs: Date.now() - fixturesStarted };
    const f = messaging.summary;
    console.log(
      `messaging fixtures in ${fmt(report.messagingFixtures.totalMs / 1000, 1)} s: ${f.friendPairs} friend pairs, a group of ${f.groupMembers}, ` +
        `a user with ${f.hubConversations} conversations and a conversation of ${f.historyMessages} messages (both seeded in the database)`,
    );

    const callsWanted = !settings.cases || CALL_CASE_KEYS.some((key) => settings.cases.includes(key));
    const calls = callsWanted
      ? await prepareCalls({
          baseUrl: server.baseUrl,
          driver,
          dbTarget: countTarget,
          runId,
          sdkSecret,
          rtcAppId,
          rtcSecret,
          connections: settings.connections,
          cases: settings.cases,
        })
      : null;
    if (calls) {
      report.callsFixtures = calls.summary;
      console.log(
        `calls fixtures in ${fmt(calls.summary.totalMs / 1000, 1)} s: ${calls.summary.friendPairs} friend pairs, ${calls.summary.groupCalls} ongoing group calls (${calls.summary.toggledMembers} members toggled)`,
      );
    }

    const sampler = new RssSampler(server.pid, 200);
    const dbHost = driver === 'mysql' ? new URL(settings.mysqlUrl).hostname : null;
    const dbPid = dbHost && ['127.0.0.1', 'localhost', '::1'].includes(dbHost) ? findDatabasePid() : null;
    report.cpuCores = os.cpus().length;
    const allCases = buildCases({
      runId,
      sdkSecret,
      rtcAppId,
      rtcSecret,
      pool,
      messaging,
      driver,
      dbTarget: countTarget,
    });
    allCases.splice(allCases.length - 1, 0, ...callCases(calls)); // before health_2
    const unknownCases = (settings.cases || []).filter((key) => !allCases.some(([k]) => k === key));
    if (unknownCases.length)
      throw new Error(
        `BENCH_CASES: unknown case(s) ${unknownCases.join(', ')} (known: ${allCases.map(([k]) => k).join(', ')})`,
      );
    const cases = allCases.filter(
      ([key]) => !settings.cases || key.startsWith('health_') || settings.cases.includes(key),
    );
    for (const [key, spec] of cases) {
      process.stdout.write(`  ${spec.label.padEnd(40)} `);
      const logMark = server.lineCount;
      sampler.begin();
      let warmupErrors = 0;
      let warmupSamples = [];
      // A case with its own driver (the calls cases) has `run`, with runLoad's options and reply.
      const load = spec.run || runLoad;
      if (settings.warmup > 0) {
        const warm = await load({
          url: server.baseUrl,
          ...spec,
          duration: settings.warmup,
          connections: spec.connections || settings.connections,
        });
        warmupErrors = errorCount(warm.result, warm.stats);
        warmupSamples = warm.stats.samples;
      }
      const serverCpuBefore = readCpuSeconds(server.pid);
      const dbCpuBefore = dbPid ? readCpuSeconds(dbPid) : null;
      const systemCpuBefore = readSystemCpu();
      const loaderCpuBefore = process.cpuUsage();
      const wallBefore = process.hrtime.bigint();
      const { result, stats } = await load({
        url: server.baseUrl,
        ...spec,
        duration: settings.duration,
        connections: spec.connections || settings.connections,
      });
      const wallSeconds = Number(process.hrtime.bigint() - wallBefore) / 1e9;
      const loaderCpu = process.cpuUsage(loaderCpuBefore);
      const serverCpuAfter = readCpuSeconds(server.pid);
      const dbCpuAfter = dbPid ? readCpuSeconds(dbPid) : null;
      const systemCpuAfter = readSystemCpu();
      const casePeak = sampler.end();
      if (server.exit)
        throw new Error(
          `server exited during ${key} (code ${server.exit.code}, signal ${server.exit.signal}):\n  ${server.tail(20).join('\n  ')}`,
        );

      const errors = errorCount(result, stats);
      const entry = {
        label: spec.label,
        rps: round(result.requests.average, 1),
        p50: result.latency.p50,
        p99: result.latency.p99,
        latencyMean: round(result.latency.average, 2),
        requests: result.requests.total,
        durationS: result.duration,
        connections: spec.connections || settings.connections,
        errors,
        errorDetail: {
          transport: result.errors - result.timeouts,
          timeouts: result.timeouts,
          non2xx: stats.non2xx,
          nonZeroCode: stats.badCode,
          badShape: stats.badShape,
        },
        deepChecked: stats.deepChecked,
        warmupErrors,
        peakRssMb: round(casePeak, 1),
        // Share of one core used during the measured run (100 = one core busy all the time).
        serverCpuPct:
          serverCpuBefore === null || serverCpuAfter === null
            ? null
            : round((100 * (serverCpuAfter - serverCpuBefore)) / wallSeconds, 0),
        loaderCpuPct: round((100 * (loaderCpu.user + loaderCpu.system)) / 1e6 / wallSeconds, 0),
        dbCpuPct:
          dbCpuBefore === null || dbCpuAfter === null
            ? null
            : round((100 * (dbCpuAfter - dbCpuBefore)) / wallSeconds, 0),
      };
      if (result.detail) entry.detail = result.detail;
      if (systemCpuBefore && systemCpuAfter && entry.serverCpuPct !== null) {
        // CPU used by everything else on the machine (other jobs), in % of one core.
        const systemPct = (100 * (systemCpuAfter.busy - systemCpuBefore.busy)) / wallSeconds;
        entry.otherCpuPct = Math.max(
          0,
          round(systemPct - entry.serverCpuPct - entry.loaderCpuPct - (entry.dbCpuPct || 0), 0),
        );
      }
      if (errors || warmupErrors) {
        entry.errorSamples = [...stats.samples, ...warmupSamples].slice(0, 5);
        const serverLines = server.linesSince(logMark).filter((line) => /error|warn|exception/i.test(line));
        if (serverLines.length) entry.serverLog = serverLines.slice(0, 10);
      }
      report.cases[key] = entry;
      console.log(
        `${fmt(entry.rps, 0).padStart(7)} req/s  p50 ${fmt(entry.p50, 0).padStart(3)} ms  p99 ${fmt(entry.p99, 0).padStart(4)} ms  ` +
          `cpu: server ${fmt(entry.serverCpuPct, 0)}% loader ${fmt(entry.loaderCpuPct, 0)}%${entry.dbCpuPct != null ? ` db ${entry.dbCpuPct}%` : ''} other ${fmt(entry.otherCpuPct, 0)}%  ${entry.requests} requests${errors || warmupErrors ? `  ERRORS ${errors} (+${warmupErrors} in warm-up)` : ''}`,
      );
      if (entry.detail) console.log(`    ${entry.detail.summary}`);
    }
    report.peakRssMb = round(sampler.peak, 1);
    report.rssSamples = sampler.samples;
    if (driver === 'mysql') {
      try {
        // MariaDB fills a prepared statement's parameters into the general log only when the log
        // was on as the statement was prepared: the probes run on a restarted server, whose new
        // connections prepare sync's statement again while the log is on.
        await server.restart();
        report.explain = await explainMessaging({
          baseUrl: server.baseUrl,
          mysqlUrl: settings.mysqlUrl,
          messaging,
          runId,
        });
      } catch (error) {
        report.explain = { error: error.message };
      }
    }
    report.rowCounts = await rowCounts(driver, countTarget);
    computeRatios(report);
    return report;
  } catch (error) {
    report.failed = error.message;
    return report;
  } finally {
    await server.stop();
    liveServers.delete(server);
    if (!settings.keepDb) fs.rmSync(tempDir, { recursive: true, force: true });
    else console.log(`scratch directory kept: ${tempDir}`);
  }
}

function computeRatios(report) {
  const h1 = report.cases.health_1;
  const h2 = report.cases.health_2;
  const baseline = (h1.rps + h2.rps) / 2;
  report.healthBaselineRps = round(baseline, 1);
  for (const [key, entry] of Object.entries(report.cases)) {
    entry.ratio = baseline > 0 ? round(entry.rps / baseline, 3) : null;
    if (entry.detail && entry.detail.allRequestsRps !== undefined)
      entry.detail.allRequestsRatio = baseline > 0 ? round(entry.detail.allRequestsRps / baseline, 3) : null;
    if (key in TARGETS) {
      entry.target = TARGETS[key];
      entry.met = entry.ratio !== null && entry.ratio >= TARGETS[key];
    }
    if (key in P99_TARGETS_MS) {
      entry.targetP99Ms = P99_TARGETS_MS[key];
      entry.met = entry.p99 !== null && entry.p99 !== undefined && entry.p99 < P99_TARGETS_MS[key];
    }
  }
  report.rssTargetMb = RSS_TARGET_MB;
  report.rssMet = report.peakRssMb !== null && report.peakRssMb <= RSS_TARGET_MB;
}

// ---------------------------------------------------------------------------------------------
// Output

function round(value, digits) {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function pct(value) {
  return value === null || value === undefined ? 'n/a' : `${value}%`;
}

function fmt(value, digits) {
  return value === null || value === undefined ? 'n/a' : value.toFixed(digits);
}

function table(headers, rows, alignRight) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells.map((c, i) => (alignRight[i] ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

function targetText(c) {
  if (c.target !== undefined) return `>= ${c.target.toFixed(2)}`;
  if (c.targetP99Ms !== undefined) return `p99 < ${c.targetP99Ms} ms`;
  return '';
}

/** The EXPLAIN of the messaging paths' statements: the three named queries in full, then every scan. */
function printExplain(explain) {
  console.log(
    '\nEXPLAIN of the messaging paths (statements captured from the general log during one request per path):',
  );
  if (explain.error) {
    console.log(`  could not run: ${explain.error}`);
    return;
  }
  const planRows = (s) =>
    s.plan.map(
      (r) =>
        `    ${r.type === 'ALL' ? 'SCAN ' : '     '}table=${r.table} type=${r.type} key=${r.key} rows=${r.rows}${r.rRows !== undefined ? ` r_rows=${r.rRows}` : ''}${r.extra ? ` extra="${r.extra}"` : ''}`,
    );
  // The select list is long and says nothing about the plan: shown as "…".
  const short = (sql) => {
    const text = sql.replace(/^\s*SELECT\s+(?:(?!\bFROM\b)[\s\S])*?\s+FROM\s+/i, 'SELECT … FROM ').replace(/\s+/g, ' ');
    return text.length > 400 ? `${text.slice(0, 400)}…` : text;
  };
  const names = {
    homeList: 'home list (conversation_members, ORDER BY pinned, last_activity_at, conversation_id)',
    messageWindow: 'message window (messages, seq range, ORDER BY seq DESC LIMIT 50)',
    sendMemberUpdate: 'one-to-one send: UPDATE of both members (conversation_id)',
    groupSendMemberUpdate: "group send: UPDATE of the sender's member row only",
  };
  for (const [key, title] of Object.entries(names)) {
    const s = explain.named[key];
    console.log(`  ${title}:`);
    if (!s) {
      console.log('    NOT CAPTURED');
      continue;
    }
    console.log(`    ${short(s.sql)}`);
    for (const line of planRows(s)) console.log(line);
  }
  console.log('  statements per request (round trips to the database):');
  for (const [p, entry] of Object.entries(explain.perRequest || {})) {
    console.log(
      `    ${p.padEnd(22)} ${String(entry.total).padStart(3)}  (${Object.entries(entry.byKind)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')})`,
    );
    // BENCH_SHOW_SQL=1 lists each path's statements, to see which round trips a change saved.
    if (process.env.BENCH_SHOW_SQL === '1')
      for (const sql of entry.sql || []) console.log(`        ${sql.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  const byPath = new Map();
  for (const s of explain.statements) byPath.set(s.path, (byPath.get(s.path) || 0) + 1);
  console.log(
    `  ${explain.statements.length} SELECT/UPDATE/DELETE statements explained (${[...byPath].map(([p, n]) => `${p}: ${n}`).join(', ')}); ${explain.captured} statements captured in all`,
  );
  const accesses = new Map();
  for (const s of explain.statements) {
    for (const r of s.plan) {
      const k = `${r.table} ${r.type} ${r.key}`;
      accesses.set(k, (accesses.get(k) || 0) + 1);
    }
  }
  console.log(`  access types: ${[...accesses].map(([k, n]) => `${k} x${n}`).join('; ')}`);
  const scans = explain.statements.filter((s) => s.scan);
  if (!scans.length) {
    console.log('  no row with type ALL (no table scan).');
    return;
  }
  console.log(`  TABLE SCANS (type ALL) in ${scans.length} statement(s):`);
  for (const s of scans) {
    console.log(`   [${s.path}] ${short(s.sql)}`);
    for (const line of planRows(s)) console.log(line);
  }
}

function printReport(report) {
  const title = report.driver === 'mysql' ? 'mysql (MariaDB)' : report.driver;
  if (report.skipped) {
    console.log(`\n### ${title}: skipped (${report.skipped})`);
    return;
  }
  console.log(`\n### ${title}: ${report.database}`);
  if (report.failed) {
    console.log(`FAILED: ${report.failed}`);
    if (!Object.keys(report.cases).length) return;
  }
  const targetsApply = report.driver === 'mysql';
  const rows = Object.entries(report.cases).map(([key, c]) => [
    key,
    fmt(c.rps, 0),
    fmt(c.p50, 0),
    fmt(c.p99, 0),
    key.startsWith('health') ? '(baseline)' : fmt(c.ratio, 2),
    targetText(c),
    c.met === undefined ? '' : c.met ? 'yes' : targetsApply ? 'NO' : 'no',
    String(c.errors + c.warmupErrors),
    pct(c.serverCpuPct),
    ...(report.driver === 'mysql' ? [pct(c.dbCpuPct)] : []),
    pct(c.otherCpuPct),
  ]);
  const headers = [
    'case',
    'req/s',
    'p50 ms',
    'p99 ms',
    'ratio',
    'target',
    'met?',
    'errors',
    'server cpu',
    ...(report.driver === 'mysql' ? ['db cpu'] : []),
    'other cpu',
  ];
  console.log(
    table(
      headers,
      rows,
      headers.map((h, i) => i !== 0 && h !== 'target' && h !== 'met?'),
    ),
  );
  const disturbed = Object.entries(report.cases)
    .filter(([, c]) => c.otherCpuPct > 25)
    .map(([key, c]) => `${key} ${c.otherCpuPct}%`);
  if (disturbed.length) {
    console.log(
      `WARNING: other processes were busy during ${disturbed.join(', ')} (% of one core, ${report.cpuCores} cores); those numbers are disturbed.`,
    );
  }
  const h1 = report.cases.health_1;
  const h2 = report.cases.health_2;
  if (h1 && h2)
    console.log(
      `/health baseline: ${fmt(report.healthBaselineRps, 0)} req/s (mean of first run ${fmt(h1.rps, 0)} and last run ${fmt(h2.rps, 0)})`,
    );
  if (report.peakRssMb !== undefined)
    console.log(
      `peak server RSS under load: ${fmt(report.peakRssMb, 1)} MB (target <= ${RSS_TARGET_MB} MB: ${report.rssMet ? 'met' : targetsApply ? 'NOT MET' : 'not met'}; idle after start ${fmt(report.idleRssMb, 1)} MB; ${report.rssSamples} samples every 200 ms)`,
    );
  if (!targetsApply) console.log('(the ratio and RSS targets are set for MariaDB; shown here for comparison)');
  for (const [key, c] of Object.entries(report.cases)) {
    if (!c.detail) continue;
    const all =
      c.detail.allRequestsRatio !== undefined ? ` (ratio of all three: ${fmt(c.detail.allRequestsRatio, 2)})` : '';
    console.log(`${key}: ${c.detail.summary}${all}`);
  }
  if (report.rowCounts)
    console.log(
      `rows after run: ${Object.entries(report.rowCounts)
        .map(([t, n]) => `${t}=${n}`)
        .join(', ')}`,
    );
  const connectionsOverridden = Object.entries(report.cases)
    .filter(([, c]) => c.connections !== settings.connections)
    .map(([key, c]) => `${key} ${c.connections}`);
  if (connectionsOverridden.length)
    console.log(`connections per case differ from ${settings.connections}: ${connectionsOverridden.join(', ')}`);
  if (report.explain) printExplain(report.explain);
  for (const [key, c] of Object.entries(report.cases)) {
    if (!c.errors && !c.warmupErrors) continue;
    console.log(
      `\n${key}: ${c.errors} errors in the measured run (${JSON.stringify(c.errorDetail)}), ${c.warmupErrors} in warm-up. Samples:`,
    );
    for (const sample of c.errorSamples || []) {
      console.log(`  [${sample.kind}] HTTP ${sample.status}: ${sample.body}`);
      if (sample.sent) console.log(`      sent: ${sample.sent.slice(0, 400)}`);
    }
    for (const line of c.serverLog || []) console.log(`  server: ${line}`);
  }
}

/** CPU the machine uses over `ms` (% of one core), before anything of ours runs. */
async function machineBusyPct(ms) {
  const before = readSystemCpu();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = readSystemCpu();
  return before && after ? (100 * (after.busy - before.busy)) / (ms / 1000) : null;
}

async function main() {
  if (settings.sections.includes('realtime')) ensureFileLimit();
  const cpus = os.cpus();
  console.log(
    `IM SDK benchmark: ${settings.duration}s measured + ${settings.warmup}s warm-up per case, ${settings.connections} connections, ` +
      `sections ${settings.sections.join(',')}, drivers ${settings.drivers.join(',')}; node ${process.version}, ${cpus.length} x ${cpus[0] ? cpus[0].model.trim() : 'cpu'}`,
  );
  if (rateLimits) console.log(`per-user rate limits raised for the bench: RATE_LIMITS=${rateLimits}`);
  const busyAtStart = await machineBusyPct(1000);
  if (busyAtStart !== null && busyAtStart > 25) {
    console.log(
      `note: other processes are using ${Math.round(busyAtStart)}% of a core right now (${cpus.length} cores); results will be noisy. See the "other cpu" column.`,
    );
  }
  const output = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus.length,
    cpuModel: cpus[0] ? cpus[0].model.trim() : null,
    platform: `${os.platform()} ${os.release()}`,
    duration: settings.duration,
    warmup: settings.warmup,
    connections: settings.connections,
    rateLimits,
    busyCpuPctAtStart: busyAtStart === null ? null : Math.round(busyAtStart),
    targets: { ratios: TARGETS, p99Ms: P99_TARGETS_MS, rssMb: RSS_TARGET_MB, noTableScans: true, appliesTo: 'mysql' },
    drivers: {},
  };

  const reports = [];
  for (const driver of settings.sections.includes('http') ? settings.drivers : []) {
    let report;
    try {
      report = await benchDriver(driver);
    } catch (error) {
      report = { driver, cases: {}, failed: error.message };
    }
    reports.push(report);
    const { driver: _name, ...rest } = report;
    output.drivers[driver] = rest;
  }

  let realtime = null;
  if (settings.sections.includes('realtime')) {
    try {
      realtime = await runRealtime({ settings, prepareMysql, serverEnv: realtimeServerEnv, liveServers });
    } catch (error) {
      realtime = { failed: error.message, problems: [] };
    }
    output.realtime = realtime;
  }

  const beforeSend = [];
  for (const driver of settings.sections.includes('before-send') ? settings.drivers : []) {
    beforeSend.push(await runBeforeSend({ driver, settings, prepareMysql, serverEnv, liveServers }));
  }
  if (beforeSend.length) output.beforeSend = beforeSend;

  const webhooks = [];
  for (const driver of settings.sections.includes('webhooks') ? settings.drivers : []) {
    webhooks.push(await runWebhooks({ driver, settings, prepareMysql, serverEnv, liveServers }));
  }
  if (webhooks.length) output.webhooks = webhooks;

  const pushReports = [];
  for (const driver of settings.sections.includes('push') ? settings.drivers : []) {
    pushReports.push(await runPush({ driver, settings, prepareMysql, serverEnv, liveServers }));
  }
  if (pushReports.length) output.push = pushReports;

  const analyticsReports = [];
  for (const driver of settings.sections.includes('analytics') ? settings.drivers : []) {
    analyticsReports.push(await runAnalytics({ driver, settings, prepareMysql, serverEnv, liveServers }));
  }
  if (analyticsReports.length) output.analytics = analyticsReports;

  const consoleReports = [];
  for (const driver of settings.sections.includes('console') ? settings.drivers : []) {
    consoleReports.push(await runConsole({ driver, settings, prepareMysql, serverEnv, liveServers }));
  }
  if (consoleReports.length) output.console = consoleReports;

  let scrub = null;
  if (settings.sections.includes('scrub')) {
    scrub = runScrub(ROOT);
    output.scrub = scrub;
  }

  console.log('\n================ results ================');
  for (const report of reports) printReport(report);
  if (realtime) printRealtime(realtime, table);
  if (beforeSend.length) printBeforeSend(beforeSend);
  if (webhooks.length) printWebhooks(webhooks, table);
  if (pushReports.length) printPush(pushReports, table);
  if (analyticsReports.length) printAnalytics(analyticsReports);
  if (consoleReports.length) printConsole(consoleReports);
  if (scrub) printScrub(scrub);

  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, 'latest.json');
  fs.writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
  console.log(`\nwritten ${path.relative(process.cwd(), file) || file}`);

  let exitCode = 0;
  for (const report of reports) {
    if (report.skipped) continue;
    const errors = Object.values(report.cases).reduce((sum, c) => sum + c.errors + c.warmupErrors, 0);
    if (report.failed || errors) {
      console.log(
        `${report.driver}: ${report.failed ? 'run failed' : `${errors} request errors`}; the numbers are not valid.`,
      );
      exitCode = 1;
    }
    if (report.driver === 'mysql' && !report.failed) {
      const missed = Object.entries(report.cases)
        .filter(([, c]) => c.met === false)
        .map(([key]) => key);
      if (!report.rssMet) missed.push('rss');
      const explain = report.explain;
      if (explain && explain.error) missed.push('explain (not run)');
      else if (explain) {
        if (explain.scans > 0) missed.push(`explain (${explain.scans} statements with table scans)`);
        const uncaptured = Object.entries(explain.named)
          .filter(([, s]) => !s)
          .map(([key]) => key);
        if (uncaptured.length) missed.push(`explain (not captured: ${uncaptured.join(', ')})`);
      }
      console.log(missed.length ? `MariaDB targets missed: ${missed.join(', ')}` : 'MariaDB targets: all met');
      if (missed.length && settings.enforce) exitCode = 1;
    }
  }
  if (realtime) {
    const verdict = realtimeVerdict(realtime);
    if (verdict.invalid) {
      console.log('realtime: run failed or deliveries were wrong; the numbers are not valid.');
      exitCode = 1;
    }
    if (!realtime.skipped && !realtime.failed)
      console.log(
        verdict.missed.length ? `realtime targets missed: ${verdict.missed.join(', ')}` : 'realtime targets: all met',
      );
    if (verdict.missed.length && settings.enforce) exitCode = 1;
  }
  for (const report of beforeSend) {
    if (!beforeSendInvalid(report)) continue;
    console.log(`before-send (${report.driver}): run failed or requests failed; the numbers are not valid.`);
    exitCode = 1;
  }
  for (const report of webhooks) {
    if (!webhooksInvalid(report)) continue;
    console.log(
      `webhooks (${report.driver}): run failed, sends failed or events were lost; the numbers are not valid.`,
    );
    exitCode = 1;
  }
  if (analyticsInvalid(analyticsReports)) {
    console.log('analytics: the rolled-up sums disagree with the messages the job passed; the numbers are not valid.');
    exitCode = 1;
  }
  if (consoleInvalid(consoleReports)) {
    console.log('console: a run failed or a request was refused; the numbers are not valid.');
    exitCode = 1;
  }
  for (const report of pushReports) {
    if (!pushInvalid(report)) continue;
    console.log(
      `push (${report.driver}): run failed, sends failed or notifications were lost, duplicated or rejected; the numbers are not valid.`,
    );
    exitCode = 1;
  }
  for (const report of pushReports) {
    if (report.skipped || report.failed) continue;
    const missed = [
      ['as fast as it goes', report.onOff.max],
      [`paced at ${report.onOff.rate}/s`, report.onOff.paced],
    ].filter(([, c]) => !c.met);
    if (!missed.length) continue;
    console.log(
      `push (${report.driver}): push on changes the send's p50 by more than ${Math.round((report.onOff.targetRatio - 1) * 100)}% (${missed.map(([mode]) => mode).join(', ')})`,
    );
    if (settings.enforce) exitCode = 1;
  }
  if (scrub && !scrub.met && settings.enforce) exitCode = 1;
  process.exitCode = exitCode;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
