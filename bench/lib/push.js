'use strict';

/**
 * Offline push (issue 24) under the send benchmark's load. The providers are the test suite's
 * fake FCM and fake APNs (bench/lib/push-fakes.js, their own process), every recipient has one
 * registered device (half FCM Android, half APNs iOS) and never connects, so every message to
 * them is a notification. The service runs with the push settings' defaults (PUSH_CONCURRENCY,
 * PUSH_POLL_MS, ...). Two parts:
 *
 * Cost of push on the send (alternated rounds, like the before-send section): two servers of
 * the same build, each on a database of its own, "on" with both providers configured and "off"
 * with none (its dispatcher does not run). The same one-to-one sends, sender -> offline
 * recipient with a device, against each in turn; the order flips each round. The off side's
 * devices were registered while it ran with the providers (registration refuses a provider the
 * service lacks), then it was restarted without them. After each "on" run the bench waits until
 * the fakes have that run's notifications, so no push work spills into the next "off" run.
 * Each round runs each side twice: as fast as BENCH_CONNECTIONS go (closed loop: the server is
 * saturated, so push's CPU shows as lost throughput and longer waits) and paced at
 * BENCH_PUSH_RATE sends/s (a load both sides sustain: what a send's latency becomes). Reported
 * per mode: each side's sends/s, the send's HTTP latency p50/p95/p99 (every reply's response
 * time), CPU ms per send of the server, the fakes and the database (counted until the run's
 * notifications are in), the ratios on/off and the median of the rounds' ratios; the target is
 * p50 on/off < 1.05.
 *
 * Notification throughput (on the "on" server afterwards, its own users): BENCH_PUSH_USERS
 * offline recipients, each a friend of one of 20 senders and all in one group with them. First
 * BENCH_PUSH_MESSAGES one-to-one sends (one notification each), then BENCH_PUSH_GROUP_MESSAGES
 * sends into the group (one notification per recipient each), by autocannon as fast as it goes.
 * Reported per phase: sends/s, notifications/s accepted by the fakes in steady state (the
 * arrivals between the 10th and the 90th percentile of arrival time), and apart while the sends
 * ran and after them (a dispatcher starved by the sends catches up then), the delay from the send's
 * acknowledgement to the fake's receipt (p50/p95/p99/max), missing and duplicate notifications,
 * the catch-up after the last send, CPU of the server (and database) over the phase, and the
 * service's own push metrics (provider request time, event-to-acceptance delay).
 * Server, fakes and bench read the same clock (one machine): the delay needs no correction.
 *
 * Environment (besides run.js's BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_DRIVERS):
 *   BENCH_PUSH_USERS           offline recipients of the throughput part (default 200, even)
 *   BENCH_PUSH_MESSAGES        one-to-one sends of the throughput part (default 3000)
 *   BENCH_PUSH_GROUP_MESSAGES  group sends of the throughput part (default 50)
 *   BENCH_PUSH_ROUNDS          alternated measured runs per side of the on/off part (default 3)
 *   BENCH_PUSH_RATE            sends/s of the on/off part's paced runs (default 100)
 *   BENCH_PUSH_TIMELINE        file to append the throughput part's per-notification times to:
 *                              driver, phase, send reply and receipt (ms from the phase's start)
 */

const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server, readCpuSeconds, readSystemCpu, findDatabasePid } = require('./server');
const { runLoad, errorCount } = require('./load');
const { callJson, parallel, issueTokens, befriend, directConversationId } = require('./messaging');

const PORTS = { sqlite: { on: 3917, off: 3918 }, mysql: { on: 3919, off: 3920 } };
const PAIRS = 20;
const SENDERS = 20;
const DRAIN_TIMEOUT_MS = 180_000;
const DUPLICATE_GRACE_MS = 1_000;
const LATENCY_TARGET_RATIO = 1.05;
const BUNDLE_ID = 'com.example.chat';

function integerEnv(name, fallback, { even = false } = {}) {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || (even && value % 2))
    throw new Error(`${name} must be a positive${even ? ' even' : ''} integer (got "${raw}")`);
  return value;
}

function pushSettings() {
  return {
    users: integerEnv('BENCH_PUSH_USERS', 200, { even: true }),
    messages: integerEnv('BENCH_PUSH_MESSAGES', 3000),
    groupMessages: integerEnv('BENCH_PUSH_GROUP_MESSAGES', 50),
    rounds: integerEnv('BENCH_PUSH_ROUNDS', 3),
    rate: integerEnv('BENCH_PUSH_RATE', 100),
  };
}

function startFakes(dir) {
  const child = fork(path.join(__dirname, 'push-fakes.js'), [], {
    env: { PATH: process.env.PATH, PUSH_FAKES_DIR: dir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.env));
    child.once('exit', (code) => reject(new Error(`push fakes exited (code ${code})`)));
  });
  // One question at a time: each answer is the next message carrying `key`.
  const ask = (message, key) =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`push fakes exited (code ${code})`));
      const onMessage = (answer) => {
        if (!(key in answer)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(answer[key]);
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.send(message);
    });
  return {
    ready,
    pid: () => child.pid,
    waitFor: (keys, perKey, timeoutMs) => ask({ cmd: 'waitFor', keys, perKey, timeoutMs }, 'waited'),
    dump: () => ask({ cmd: 'dump' }, 'dump'),
    stop: () => child.connected && child.disconnect(),
  };
}

/** Nearest-rank percentiles of a list of milliseconds. */
function distribution(values) {
  if (values.length === 0) return { count: 0, p50: null, p95: null, p99: null, max: null };
  const sorted = Float64Array.from(values).sort();
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const r = (v) => Math.round(v * 100) / 100;
  return {
    count: sorted.length,
    p50: r(rank(50)),
    p95: r(rank(95)),
    p99: r(rank(99)),
    max: r(sorted[sorted.length - 1]),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const round2 = (value) => Math.round(value * 100) / 100;

/** Notifications/s between the 10th and the 90th percentile of arrival time (ramp-up and tail left out). */
function steadyRate(times) {
  if (times.length < 20) return null;
  const sorted = Float64Array.from(times).sort();
  const lo = Math.floor(sorted.length * 0.1);
  const hi = Math.ceil(sorted.length * 0.9) - 1;
  const spanS = (sorted[hi] - sorted[lo]) / 1000;
  return spanS > 0 ? Math.round(((hi - lo) / spanS) * 10) / 10 : null;
}

const EVENT_ID_KEY = '"event_id":"';

/**
 * Sends from `routes` in turn ({user, conversationId}); notes each acknowledged send's event ID
 * and when its reply arrived.
 */
function sendCase(routes, tag, acks) {
  const runTag = `${tag}.${randomBytes(3).toString('hex')}`;
  let counter = 0;
  return {
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/messages/send',
      setupRequest: (req, context) => {
        const n = ++counter;
        const route = routes[n % routes.length];
        context.clientMessageId = `bp.${runTag}.${n}`;
        req.headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${route.user.token}` };
        req.body = JSON.stringify({
          conversation_id: route.conversationId,
          client_message_id: context.clientMessageId,
          type: 'text',
          content: { text: `push bench ${n}` },
        });
        context.sent = req.body;
        return req;
      },
    },
    afterResponse: (status, body) => {
      if (!acks || status !== 200 || !body.startsWith('{"code":0,')) return;
      const at = body.indexOf(EVENT_ID_KEY);
      if (at === -1) return;
      const start = at + EVENT_ID_KEY.length;
      acks.set(body.slice(start, body.indexOf('"', start)), Date.now());
    },
    verify: (data, context) => {
      const m = data && data.message;
      if (!m || m.client_message_id !== context.clientMessageId) return 'not the message sent';
      if (typeof data.event_id !== 'string' || !data.event_id) return 'no event_id (a new message has an event)';
      return null;
    },
  };
}

/** One device per user: even indexes an Android phone on FCM, odd ones an iPhone on APNs. */
function device(i, runId) {
  return i % 2 === 0
    ? {
        device_id: `bp-pixel-${runId}-${i}`,
        provider: 'fcm',
        // The shape FakeFcm.deviceToken() makes (the fake refuses other shapes).
        token: `${randomBytes(16).toString('base64url')}:APA91b${randomBytes(100).toString('base64url')}`,
        platform: 'android',
      }
    : {
        device_id: `bp-iphone-${runId}-${i}`,
        provider: 'apns',
        token: randomBytes(32).toString('hex'),
        platform: 'ios',
        package_name: BUNDLE_ID,
      };
}

async function registerDevices(baseUrl, users, runId) {
  await parallel(users, 5, async (user, i) => {
    await callJson(baseUrl, 'POST', '/app/sdk/push/register', user.token, device(i, runId));
  });
}

/** The on/off part's pairs: a sender and an offline recipient with a device; only the sender sends. */
async function preparePairs(baseUrl, sdkSecret, runId) {
  const users = await issueTokens(
    baseUrl,
    sdkSecret,
    Array.from({ length: PAIRS * 2 }, (_, i) => ({ userId: `bp-${runId}-${i}`, nickname: `Push ${i}` })),
  );
  const pairs = Array.from({ length: PAIRS }, (_, i) => ({ sender: users[2 * i], recipient: users[2 * i + 1] }));
  await parallel(pairs, 5, (pair, i) => befriend(baseUrl, pair.sender, pair.recipient, `bp-${runId}-${i}`));
  await registerDevices(
    baseUrl,
    pairs.map((pair) => pair.recipient),
    runId,
  );
  return pairs.map((pair) => ({ user: pair.sender, conversationId: directConversationId(pair.recipient.userId) }));
}

/** The throughput part's users: recipients with a device, each a friend of one sender, all in one group. */
async function prepareAudience(baseUrl, sdkSecret, runId, users) {
  const senders = await issueTokens(
    baseUrl,
    sdkSecret,
    Array.from({ length: SENDERS }, (_, i) => ({ userId: `bps-${runId}-${i}`, nickname: `Sender ${i}` })),
  );
  const recipients = await issueTokens(
    baseUrl,
    sdkSecret,
    Array.from({ length: users }, (_, i) => ({ userId: `bpr-${runId}-${i}`, nickname: `Recipient ${i}` })),
  );
  const direct = recipients.map((recipient, i) => ({
    user: senders[i % SENDERS],
    recipient,
    conversationId: directConversationId(recipient.userId),
  }));
  await parallel(direct, 5, (route, i) => befriend(baseUrl, route.user, route.recipient, `bpf-${runId}-${i}`));
  const groupId = `bp${runId}`;
  const members = [...senders.slice(1), ...recipients].map((u) => u.userId);
  // Creation names at most 200 members; the rest are added 100 at a time (members/add's limit).
  await callJson(baseUrl, 'POST', '/app/sdk/groups/create', senders[0].token, {
    group_id: groupId,
    name: 'Push bench group',
    member_ids: members.slice(0, 200),
  });
  for (let at = 200; at < members.length; at += 100) {
    await callJson(baseUrl, 'POST', '/app/sdk/groups/members/add', senders[0].token, {
      group_id: groupId,
      user_ids: members.slice(at, at + 100),
    });
  }
  // Registered last: the fixtures' own events (friend requests, the group) find no device.
  await registerDevices(baseUrl, recipients, runId);
  return {
    direct,
    group: senders.map((user) => ({ user, conversationId: `group_${groupId}` })),
    recipients: recipients.length,
  };
}

/** The service's push counters: provider requests (count, seconds) and event-to-acceptance delay (count, seconds), per provider. */
async function pushMetrics(baseUrl) {
  try {
    const text = await (await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    const values = {};
    for (const line of text.split('\n')) {
      const m = /^(im_push_[a-z_]+)(?:\{([^}]*)\})? ([0-9.e+-]+)$/.exec(line);
      if (m) values[`${m[1]}${m[2] ? `{${m[2]}}` : ''}`] = Number(m[3]);
    }
    const out = { skipped: {} };
    for (const provider of ['fcm', 'apns']) {
      const get = (name) => values[`${name}{provider="${provider}"}`] ?? 0;
      out[provider] = {
        requests: get('im_push_send_seconds_count'),
        requestSeconds: get('im_push_send_seconds_sum'),
        accepted: get('im_push_delay_seconds_count'),
        delaySeconds: get('im_push_delay_seconds_sum'),
      };
    }
    for (const [key, value] of Object.entries(values)) {
      const reason = key.startsWith('im_push_skipped_total{') && /reason="([^"]+)"/.exec(key);
      if (reason) out.skipped[reason[1]] = value;
    }
    return out;
  } catch (error) {
    return { error: error.message };
  }
}

/** What the service counted between two scrapes: requests, their mean time, the mean event-to-acceptance delay. */
function metricsDelta(before, after) {
  if (before.error || after.error) return { error: before.error || after.error };
  const mean = (seconds, count) => (count > 0 ? Math.round((seconds / count) * 10000) / 10 : null);
  const out = { skipped: {} };
  for (const provider of ['fcm', 'apns']) {
    const b = before[provider];
    const a = after[provider];
    const requests = a.requests - b.requests;
    out[provider] = {
      requests,
      requestMeanMs: mean(a.requestSeconds - b.requestSeconds, requests),
      delayMeanMs: mean(a.delaySeconds - b.delaySeconds, a.accepted - b.accepted),
    };
  }
  for (const [reason, value] of Object.entries(after.skipped)) {
    const delta = value - (before.skipped[reason] || 0);
    if (delta) out.skipped[reason] = delta;
  }
  return out;
}

/**
 * @param {object} options
 * @param {string} options.driver  sqlite or mysql
 * @param {object} options.settings  run.js's settings
 * @param {Function} options.prepareMysql  run.js's: drops and recreates the bench database
 * @param {Function} options.serverEnv  run.js's: the server environment for (port, databaseUrl, mediaDir, secrets)
 * @param {Set} options.liveServers  servers to kill on exit
 */
async function runPush({ driver, settings, prepareMysql, serverEnv, liveServers }) {
  const own = pushSettings();
  const report = { driver, ...own, durationS: settings.duration, connections: settings.connections };
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `im-bench-push-${driver}-`));
  const databaseUrls = {};
  if (driver === 'mysql') {
    // The off side gets a database of its own: the on side's dispatcher would read its outbox too.
    const offUrl = new URL(settings.mysqlUrl);
    offUrl.pathname = `${offUrl.pathname.replace(/\/$/, '')}_push_off`;
    for (const [side, url] of [
      ['on', settings.mysqlUrl],
      ['off', offUrl.toString()],
    ]) {
      const prepared = await prepareMysql(url);
      if (prepared.unreachable) {
        fs.rmSync(tempDir, { recursive: true, force: true });
        return { ...report, skipped: prepared.unreachable };
      }
      databaseUrls[side] = url;
      report.database = `MariaDB/MySQL ${prepared.version}`;
    }
  } else {
    for (const side of ['on', 'off']) databaseUrls[side] = `sqlite:${path.join(tempDir, `bench-${side}.sqlite`)}`;
    report.database = 'SQLite (temp file per server, WAL)';
  }
  const secrets = {
    sdkSecret: `sdk-${randomBytes(32).toString('base64url')}`,
    jwtSecret: `jwt-${randomBytes(32).toString('base64url')}`,
    rtcAppId: '1400000001',
    rtcSecret: `rtc-${randomBytes(24).toString('base64url')}`,
  };
  const fakes = startFakes(tempDir);
  const servers = {};
  const stopServer = async (side) => {
    if (!servers[side]) return;
    await servers[side].stop();
    liveServers.delete(servers[side]);
    delete servers[side];
  };
  const startServer = async (side, withProviders, providerEnv) => {
    const port = PORTS[driver][side];
    const env = serverEnv({
      port,
      databaseUrl: databaseUrls[side],
      mediaDir: path.join(tempDir, `media-${side}`),
      ...secrets,
    });
    if (withProviders) Object.assign(env, providerEnv);
    const server = new Server({ name: `push-${side}`, port, env });
    liveServers.add(server);
    servers[side] = server;
    server.start();
    await server.waitHealthy();
    return server;
  };
  console.log(
    `\n== push, ${driver}: ${report.database}, ports ${PORTS[driver].on} (providers) and ${PORTS[driver].off} (none) ==`,
  );
  let errors = 0;
  const samples = [];
  const load = async (server, routes, acks, { duration, amount, overallRate, connections, latencies }) => {
    const { result, stats } = await runLoad({
      url: server.baseUrl,
      ...sendCase(routes, server.name, acks),
      onLatency: latencies ? (ms) => latencies.push(ms) : undefined,
      duration,
      amount,
      overallRate,
      connections,
    });
    const failed = errorCount(result, stats);
    errors += failed;
    if (failed) samples.push(...stats.samples.slice(0, 2));
    return result;
  };
  /** Waits until the fakes have every notification of `acks` (perKey each); throws after the timeout. */
  const drained = async (acks, perKey, label) => {
    const waited = await fakes.waitFor([...acks.keys()], perKey, DRAIN_TIMEOUT_MS);
    if (waited.missing)
      throw new Error(`${label}: ${waited.missing} notifications missing after ${DRAIN_TIMEOUT_MS / 1000}s`);
    return waited;
  };
  try {
    const providerEnv = await fakes.ready;
    const runId = randomBytes(4).toString('hex');

    // ---- the send with push on vs off
    await startServer('on', true, providerEnv);
    const onRoutes = await preparePairs(servers.on.baseUrl, secrets.sdkSecret, `${runId}on`);
    // The off side's devices need a service that has the providers (registration checks).
    await startServer('off', true, providerEnv);
    const offRoutes = await preparePairs(servers.off.baseUrl, secrets.sdkSecret, `${runId}off`);
    await stopServer('off');
    await startServer('off', false, providerEnv);
    const routes = { on: onRoutes, off: offRoutes };
    const measured = { max: { on: [], off: [] }, paced: { on: [], off: [] } };
    const dbPid = driver === 'mysql' ? findDatabasePid() : null;
    /**
     * One run of one side; "max" as fast as the connections go, "paced" at BENCH_PUSH_RATE
     * sends/s. CPU is counted until the run's notifications are in (the push work it caused).
     */
    const run = async (side, mode, duration) => {
      const server = servers[side];
      const latencies = [];
      const acks = side === 'on' ? new Map() : null;
      const cpuBefore = [server.pid, fakes.pid(), dbPid].map((pid) => pid && readCpuSeconds(pid));
      const systemBefore = readSystemCpu();
      const loaderBefore = process.cpuUsage();
      const started = Date.now();
      const result = await load(server, routes[side], acks, {
        duration,
        connections: settings.connections,
        overallRate: mode === 'paced' ? own.rate : undefined,
        latencies,
      });
      let notifications = null;
      if (acks) {
        const end = Date.now();
        const waited = await drained(acks, 1, 'push on/off');
        const mine = (await fakes.dump()).arrivals.filter(([key]) => acks.has(key));
        notifications = {
          sent: acks.size,
          received: mine.length,
          // While the sends ran, per second of the run; the rest came after it.
          duringRunPerS: round2(mine.filter(([, , at]) => at <= end).length / ((end - started) / 1000)),
          catchUpMs: waited.lastAt === null ? null : Math.max(0, waited.lastAt - end),
          delayMs: distribution(mine.map(([key, , at]) => at - acks.get(key))),
        };
      }
      const sends = result.requests.total;
      const used = [server.pid, fakes.pid(), dbPid].map((pid, i) => {
        const after = pid && readCpuSeconds(pid);
        return cpuBefore[i] === null || !after ? null : after - cpuBefore[i];
      });
      const perSend = (seconds) => (seconds === null || !sends ? null : round2((1000 * seconds) / sends));
      const systemAfter = readSystemCpu();
      const loader = process.cpuUsage(loaderBefore);
      const wallS = (Date.now() - started) / 1000;
      // CPU of everything else on the machine (other jobs), in % of one core.
      const otherCpuPct =
        systemBefore && systemAfter
          ? Math.max(
              0,
              Math.round(
                (100 *
                  (systemAfter.busy -
                    systemBefore.busy -
                    used.reduce((sum, v) => sum + (v || 0), 0) -
                    (loader.user + loader.system) / 1e6)) /
                  wallS,
              ),
            )
          : null;
      return {
        rps: round2(result.requests.average),
        ...distribution(latencies),
        cpuMsPerSend: { server: perSend(used[0]), fakes: perSend(used[1]), db: perSend(used[2]) },
        otherCpuPct,
        notifications,
      };
    };
    if (settings.warmup > 0)
      for (const side of ['on', 'off']) for (const mode of ['max', 'paced']) await run(side, mode, settings.warmup);
    for (let round = 0; round < own.rounds; round++) {
      for (const side of round % 2 ? ['off', 'on'] : ['on', 'off']) {
        for (const mode of ['max', 'paced']) {
          const r = await run(side, mode, settings.duration);
          measured[mode][side].push(r);
          process.stdout.write(
            `  round ${round + 1} push ${side.padEnd(3)} ${mode.padEnd(5)} ${r.rps.toFixed(0).padStart(6)} sends/s  p50 ${r.p50} ms  p95 ${r.p95} ms  p99 ${r.p99} ms  cpu ms/send server ${r.cpuMsPerSend.server}${r.cpuMsPerSend.db === null ? '' : ` db ${r.cpuMsPerSend.db}`}  other cpu ${r.otherCpuPct}%\n`,
          );
        }
      }
    }
    const sideReport = (runs) => ({
      rps: round2(runs.reduce((sum, r) => sum + r.rps, 0) / runs.length),
      p50: median(runs.map((r) => r.p50)),
      p95: median(runs.map((r) => r.p95)),
      p99: median(runs.map((r) => r.p99)),
      cpuMsPerSend: Object.fromEntries(
        ['server', 'fakes', 'db'].map((k) => [
          k,
          runs[0].cpuMsPerSend[k] === null ? null : median(runs.map((r) => r.cpuMsPerSend[k])),
        ]),
      ),
      notifications: runs[0].notifications && {
        sent: runs.reduce((sum, r) => sum + r.notifications.sent, 0),
        received: runs.reduce((sum, r) => sum + r.notifications.received, 0),
        duringRunPerS: median(runs.map((r) => r.notifications.duringRunPerS)),
        catchUpMsMax: Math.max(...runs.map((r) => r.notifications.catchUpMs ?? 0)),
        delayMs: Object.fromEntries(
          ['p50', 'p95', 'p99', 'max'].map((k) => [k, median(runs.map((r) => r.notifications.delayMs[k]))]),
        ),
      },
      runs,
    });
    const compare = (mode) => {
      const on = sideReport(measured[mode].on);
      const off = sideReport(measured[mode].off);
      const roundRatio = (field) =>
        round2(median(measured[mode].on.map((r, i) => r[field] / measured[mode].off[i][field])));
      // Each round's two runs are neighbours in time: the median of their ratios shrugs off a
      // round disturbed by other jobs.
      const medianRoundRatio = { p50: roundRatio('p50'), p95: roundRatio('p95'), rps: roundRatio('rps') };
      return {
        on,
        off,
        ratio: { p50: round2(on.p50 / off.p50), p95: round2(on.p95 / off.p95), rps: round2(on.rps / off.rps) },
        medianRoundRatio,
        met: medianRoundRatio.p50 < LATENCY_TARGET_RATIO,
      };
    };
    report.onOff = {
      targetRatio: LATENCY_TARGET_RATIO,
      rate: own.rate,
      max: compare('max'),
      paced: compare('paced'),
    };
    await stopServer('off');

    // ---- notification throughput
    const server = servers.on;
    const audience = await prepareAudience(server.baseUrl, secrets.sdkSecret, runId, own.users);
    await new Promise((resolve) => setTimeout(resolve, DUPLICATE_GRACE_MS));
    await fakes.dump();
    const phase = async (name, routes, amount, perKey) => {
      const acks = new Map();
      const metricsBefore = await pushMetrics(server.baseUrl);
      const cpuBefore = { server: readCpuSeconds(server.pid), db: dbPid && readCpuSeconds(dbPid) };
      const loadStart = Date.now();
      const result = await load(server, routes, acks, {
        duration: settings.duration,
        amount,
        connections: Math.min(settings.connections, amount),
      });
      const loadEnd = Date.now();
      const waited = await drained(acks, perKey, name);
      const end = Date.now();
      const cpuPct = (pid, before) => {
        const after = pid && readCpuSeconds(pid);
        return before === null || !after ? null : Math.round((100 * (after - before)) / ((end - loadStart) / 1000));
      };
      const cpu = { serverPct: cpuPct(server.pid, cpuBefore.server), dbPct: cpuPct(dbPid, cpuBefore.db) };
      await new Promise((resolve) => setTimeout(resolve, DUPLICATE_GRACE_MS));
      const { counts, arrivals } = await fakes.dump();
      const mine = arrivals.filter(([key]) => acks.has(key));
      if (process.env.BENCH_PUSH_TIMELINE) {
        // Per notification: the phase, its send's reply and its receipt, ms from the load's start (for a plot).
        fs.appendFileSync(
          process.env.BENCH_PUSH_TIMELINE,
          mine.map(([key, , at]) => `${driver}\t${name}\t${acks.get(key) - loadStart}\t${at - loadStart}\n`).join(''),
        );
      }
      const times = mine.map(([, , at]) => at);
      const first = times.length ? times.reduce((a, b) => Math.min(a, b)) : null;
      const last = times.length ? times.reduce((a, b) => Math.max(a, b)) : null;
      const out = {
        sends: acks.size,
        sendsPerS: round2(result.requests.average),
        sendP50Ms: result.latency.p50,
        sendP99Ms: result.latency.p99,
        loadS: round2((loadEnd - loadStart) / 1000),
        expected: acks.size * perKey,
        received: mine.length,
        byProvider: {
          fcm: mine.filter(([, provider]) => provider === 'fcm').length,
          apns: mine.filter(([, provider]) => provider === 'apns').length,
        },
        duplicates: counts.duplicates,
        rejected: counts.rejected,
        notificationsPerS: steadyRate(times),
        // While the sends ran (per second of the load), and the backlog worked off after it.
        duringLoadPerS: round2(times.filter((at) => at <= loadEnd).length / ((loadEnd - loadStart) / 1000)),
        afterLoadPerS:
          last !== null && last > loadEnd
            ? round2(times.filter((at) => at > loadEnd).length / ((last - loadEnd) / 1000))
            : null,
        // First to last arrival, ramp-up and tail included.
        overallPerS: first !== null && last > first ? round2(mine.length / ((last - first) / 1000)) : null,
        delayMs: distribution(mine.map(([key, , at]) => at - acks.get(key))),
        catchUpMs: waited.lastAt === null ? null : Math.max(0, waited.lastAt - loadEnd),
        cpu,
        metrics: metricsDelta(metricsBefore, await pushMetrics(server.baseUrl)),
      };
      process.stdout.write(
        `  ${name}: ${out.sends} sends at ${out.sendsPerS.toFixed(0)}/s, ${out.received}/${out.expected} notifications, ` +
          `${out.notificationsPerS} notifications/s (10-90%), ${out.duringLoadPerS}/s during the sends, ${out.afterLoadPerS ?? '-'}/s after, delay p50 ${out.delayMs.p50} p95 ${out.delayMs.p95} p99 ${out.delayMs.p99} ms\n`,
      );
      return out;
    };
    report.direct = await phase('one-to-one', audience.direct, own.messages, 1);
    report.group = await phase('group', audience.group, own.groupMessages, audience.recipients);
    report.groupMembers = audience.recipients + SENDERS;
    report.errors = errors;
    report.samples = samples;
    return report;
  } catch (error) {
    return { ...report, failed: error.message, errors, samples };
  } finally {
    for (const side of Object.keys(servers)) await stopServer(side);
    fakes.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

function printPush(reports, table) {
  console.log('\n-- push: one-to-one sends with providers (fake FCM + APNs) vs without, alternated rounds --');
  for (const r of reports) {
    if (r.skipped || r.failed) {
      console.log(`${r.driver}: ${r.skipped ? `skipped, ${r.skipped}` : `FAILED ${r.failed}`}`);
      for (const sample of r.samples || []) console.log(`  [${sample.kind}] HTTP ${sample.status}: ${sample.body}`);
      continue;
    }
    const o = r.onOff;
    for (const [mode, c] of [
      ['as fast as it goes', o.max],
      [`paced at ${o.rate} sends/s`, o.paced],
    ]) {
      const side = (s) =>
        `${s.rps.toFixed(0)} sends/s, p50 ${s.p50} ms, p95 ${s.p95} ms, p99 ${s.p99} ms, server cpu ${s.cpuMsPerSend.server} ms/send` +
        (s.cpuMsPerSend.db === null ? '' : `, db cpu ${s.cpuMsPerSend.db} ms/send`);
      console.log(
        `${r.driver}, ${mode}: off ${side(c.off)}; on ${side(c.on)} (fakes ${c.on.cpuMsPerSend.fakes} ms/send)\n` +
          `  on/off: p50 ${c.ratio.p50.toFixed(2)}, p95 ${c.ratio.p95.toFixed(2)}, sends/s ${c.ratio.rps.toFixed(2)}; ` +
          `median of the rounds' ratios p50 ${c.medianRoundRatio.p50.toFixed(2)}, p95 ${c.medianRoundRatio.p95.toFixed(2)}, ` +
          `sends/s ${c.medianRoundRatio.rps.toFixed(2)} (target p50 < ${o.targetRatio.toFixed(2)}: ${c.met ? 'met' : 'NOT MET'})`,
      );
      const n = c.on.notifications;
      console.log(
        `  notifications of the "on" runs: ${n.received}/${n.sent}, ${n.duringRunPerS} /s while the sends ran, ` +
          `delay from the send's reply p50 ${n.delayMs.p50} ms, p95 ${n.delayMs.p95} ms, p99 ${n.delayMs.p99} ms, max ${n.delayMs.max} ms ` +
          `(medians of the runs); longest catch-up after a run ${(n.catchUpMsMax / 1000).toFixed(1)}s`,
      );
    }
    const disturbed = [o.max, o.paced]
      .flatMap((c) => [...c.on.runs, ...c.off.runs])
      .filter((run) => run.otherCpuPct > 25);
    if (disturbed.length)
      console.log(
        `  WARNING: other processes were busy during ${disturbed.length} runs (up to ${Math.max(...disturbed.map((run) => run.otherCpuPct))}% of one core); those numbers are disturbed.`,
      );
    console.log(`  ${r.rounds} rounds of ${r.durationS}s per side and mode, ${r.connections} connections`);
  }
  console.log(
    '\n-- push: notifications to the fakes (offline recipients, one device each, half FCM half APNs; delay = fake receipt - send reply) --',
  );
  const rows = [];
  for (const r of reports) {
    if (r.skipped || r.failed) continue;
    for (const [name, p] of [
      ['one-to-one', r.direct],
      [`group of ${r.groupMembers}`, r.group],
    ]) {
      const d = p.delayMs;
      rows.push([
        r.driver,
        name,
        String(p.sends),
        p.sendsPerS.toFixed(0),
        `${p.received}/${p.expected}`,
        p.notificationsPerS === null ? '-' : p.notificationsPerS.toFixed(0),
        p.duringLoadPerS.toFixed(0),
        p.afterLoadPerS === null ? '-' : p.afterLoadPerS.toFixed(0),
        d.count ? `${d.p50} / ${d.p95} / ${d.p99} / ${d.max}` : '-',
        p.catchUpMs === null ? '-' : (p.catchUpMs / 1000).toFixed(1),
        String(p.duplicates),
        `${p.cpu.serverPct ?? '-'}${p.cpu.dbPct === null ? '' : ` / ${p.cpu.dbPct}`}`,
        p.metrics.fcm ? `${p.metrics.fcm.requestMeanMs ?? '-'} / ${p.metrics.apns.requestMeanMs ?? '-'}` : '-',
      ]);
    }
  }
  if (rows.length) {
    console.log(
      table(
        [
          'driver',
          'phase',
          'sends',
          'sends/s',
          'received',
          'notif/s 10-90%',
          'in load',
          'after',
          'delay p50/p95/p99/max ms',
          'catch-up s',
          'dup',
          'cpu % srv / db',
          'provider req ms fcm / apns',
        ],
        rows,
        [false, false, true, true, true, true, true, true, true, true, true, true, true],
      ),
    );
  }
  for (const r of reports) {
    if (r.skipped || r.failed) continue;
    const notes = [];
    if (r.errors) notes.push(`${r.errors} send errors`);
    for (const p of [r.direct, r.group]) if (p.rejected) notes.push(`${p.rejected} provider requests rejected`);
    if (notes.length) console.log(`${r.driver}: ${notes.join(', ')}`);
    for (const sample of r.samples || []) console.log(`  [${sample.kind}] HTTP ${sample.status}: ${sample.body}`);
  }
}

/** True when a report's numbers cannot be trusted: a failure, a send error, a lost, duplicated or rejected notification. */
function pushInvalid(report) {
  if (report.skipped) return false;
  if (report.failed || report.errors) return true;
  const o = report.onOff;
  if ([o.max, o.paced].some((c) => c.on.notifications.received !== c.on.notifications.sent)) return true;
  return [report.direct, report.group].some((p) => p.received !== p.expected || p.duplicates || p.rejected);
}

module.exports = { runPush, printPush, pushInvalid };
