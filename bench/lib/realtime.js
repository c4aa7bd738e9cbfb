'use strict';

/**
 * The real-time section of `npm run bench` (BENCH_SECTIONS=realtime runs it alone), on MariaDB:
 *
 * 1. Fan-out: 1,000 sockets of 1,000 users (200 in one group, 800 as 400 one-to-one pairs);
 *    senders in a closed loop (HTTP send, then wait until every recipient's socket has the
 *    message). Deliveries/s received, send→receive latency at the receiving socket (from the
 *    start of the HTTP send), and the HTTP send's own latency, in the same window. Three
 *    scenarios: group and pair senders together (the headline), group only, pairs only.
 * 2. Baseline in the same run: a bare socket.io server (bench/lib/bare-socketio.js) with the
 *    same sockets, senders and envelopes (copied from what the service sent: same shapes, same
 *    sizes), driven by the same HTTP POST. Each scenario runs on the service, then on the bare
 *    server, so both see the same machine. Ratio = service ÷ bare deliveries/s.
 * 3. Resume: a user misses 1,000 events, reconnects with auth.position; io() → connection.ready.
 * 4. Memory: the service restarted, RSS with 0, half and all BENCH_RT_MEMORY_SOCKETS idle
 *    sockets; the same on the bare server for comparison.
 *
 * The sockets and senders run in one child process (realtime-clients.js), separate from the
 * servers; on a small machine they compete with the server for CPU, so every phase reports the
 * CPU of the server, the database, the clients and the rest of the machine.
 */

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server, RssSampler, readCpuSeconds, readSystemCpu, sleep } = require('./server');
const { seedRealtime, GROUP_SIZE } = require('./realtime-fixtures');
const {
  ensureFileLimit,
  assertPortsFree,
  ClientProcess,
  startBare,
  findDatabasePidFor,
  metric,
  settledRssMb,
} = require('./realtime-processes');
const { TARGETS, printPhase } = require('./realtime-report');

const PORTS = { service: 3903, bare: 3904 };
const SOCKET_PATH = '/socket.io';
const FANOUT_SOCKETS = 1000;
const PHASES = ['fanout', 'resume', 'memory'];

function intEnv(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    console.error(`${name} must be an integer >= ${min} (got "${raw}")`);
    process.exit(2);
  }
  return value;
}

/** BENCH_RT_* switches (see bench/run.js). */
function realtimeSettings() {
  const phases = process.env.BENCH_RT_PHASES
    ? process.env.BENCH_RT_PHASES.split(',')
        .map((p) => p.trim())
        .filter(Boolean)
    : PHASES;
  for (const phase of phases) {
    if (!PHASES.includes(phase)) {
      console.error(`BENCH_RT_PHASES: unknown phase "${phase}" (use ${PHASES.join(',')})`);
      process.exit(2);
    }
  }
  const rt = {
    phases,
    groupSenders: intEnv('BENCH_RT_GROUP_SENDERS', 4, 0),
    directSenders: intEnv('BENCH_RT_DIRECT_SENDERS', 16, 0),
    memorySockets: intEnv('BENCH_RT_MEMORY_SOCKETS', 5000, FANOUT_SOCKETS + 2),
    resumeEvents: intEnv('BENCH_RT_RESUME_EVENTS', 1000, 1),
    resumeAttempts: intEnv('BENCH_RT_RESUME_ATTEMPTS', 5, 1),
  };
  if (rt.groupSenders + rt.directSenders === 0) {
    console.error('BENCH_RT_GROUP_SENDERS and BENCH_RT_DIRECT_SENDERS cannot both be 0');
    process.exit(2);
  }
  return rt;
}

/** The fan-out scenarios: both kinds of sends together first (the headline), then each alone. */
function scenarios(rt) {
  const list = [];
  if (rt.groupSenders && rt.directSenders)
    list.push({ name: 'mixed', groupSenders: rt.groupSenders, directSenders: rt.directSenders });
  if (rt.groupSenders) list.push({ name: 'group', groupSenders: rt.groupSenders, directSenders: 0 });
  if (rt.directSenders) list.push({ name: 'direct', groupSenders: 0, directSenders: rt.directSenders });
  return list;
}

/** The socket.io the bare server loads, and whether the service's Nest adapter loads the same file. */
function socketIoVersions() {
  const bare = require.resolve('socket.io');
  let service = null;
  try {
    service = require.resolve('socket.io', { paths: [path.dirname(require.resolve('@nestjs/platform-socket.io'))] });
  } catch {
    /* the adapter is not installed */
  }
  return { version: require('socket.io/package.json').version, sameAsService: service === bare };
}

const round = (value, digits) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? null
    : Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Runs one fan-out phase (the client process warms up, then measures) and adds the CPU use of
 * the server, the database, the clients and the rest of the machine over the measured window.
 */
async function measureFanout({ client, serverPid, dbPid, scenario, settings, target, fixtures, tag }) {
  const phase = client.call('fanout', {
    target,
    group: fixtures.group,
    pairs: fixtures.pairs,
    groupSenders: scenario.groupSenders,
    directSenders: scenario.directSenders,
    warmupS: settings.warmup,
    durationS: settings.duration,
    tag,
  });
  let failed = null;
  phase.catch((error) => (failed = error));
  await sleep(settings.warmup * 1000);
  const sampler = new RssSampler(serverPid, 200);
  sampler.begin();
  const before = {
    server: readCpuSeconds(serverPid),
    db: dbPid ? readCpuSeconds(dbPid) : null,
    client: readCpuSeconds(client.pid),
    self: process.cpuUsage(),
    system: readSystemCpu(),
    at: process.hrtime.bigint(),
  };
  await sleep(settings.duration * 1000);
  const seconds = Number(process.hrtime.bigint() - before.at) / 1e9;
  const after = {
    server: readCpuSeconds(serverPid),
    db: dbPid ? readCpuSeconds(dbPid) : null,
    client: readCpuSeconds(client.pid),
    self: process.cpuUsage(before.self),
    system: readSystemCpu(),
  };
  const peak = sampler.end();
  if (failed) throw failed;
  const result = await phase;
  // The window on the monotonic clock, which --cpu-prof timestamps use too (to cut a profile to it).
  result.windowMonoNs = [String(before.at), String(before.at + BigInt(Math.round(seconds * 1e9)))];
  const pct = (a, b) => (a === null || b === null ? null : Math.round((100 * (b - a)) / seconds));
  result.cpu = {
    serverPct: pct(before.server, after.server),
    dbPct: pct(before.db, after.db),
    clientPct: pct(before.client, after.client),
  };
  if (before.system && after.system && result.cpu.serverPct !== null) {
    const selfPct = (100 * (after.self.user + after.self.system)) / 1e6 / seconds;
    const systemPct = (100 * (after.system.busy - before.system.busy)) / seconds;
    result.cpu.otherPct = Math.max(
      0,
      Math.round(systemPct - result.cpu.serverPct - (result.cpu.dbPct || 0) - (result.cpu.clientPct || 0) - selfPct),
    );
  }
  const delivered = result.deliveries.group + result.deliveries.direct;
  // Server CPU per delivery, sends included: the cost the deliveries/s of a saturated server follow.
  result.serverCpuUsPerDelivery =
    delivered && result.cpu.serverPct !== null
      ? round(((result.cpu.serverPct / 100) * result.seconds * 1e6) / delivered, 1)
      : null;
  result.serverPeakRssMb = round(peak, 1);
  return result;
}

function phaseProblems(name, r) {
  const problems = [];
  const missing = r.missing.group + r.missing.direct;
  if (r.httpErrors) problems.push(`${name}: ${r.httpErrors} HTTP send errors (${r.errorSamples[0]})`);
  if (missing)
    problems.push(
      `${name}: ${missing} deliveries never arrived (group ${r.missing.group}, direct ${r.missing.direct})`,
    );
  if (r.duplicates) problems.push(`${name}: ${r.duplicates} duplicate deliveries`);
  if (r.misrouted) problems.push(`${name}: ${r.misrouted} deliveries to a socket that may not see the message`);
  if (r.disconnectCount) problems.push(`${name}: ${r.disconnectCount} sockets disconnected (${r.disconnects[0]})`);
  return problems;
}

/** Fan-out on the service and the bare server, scenario by scenario (each on the service, then on bare). */
async function runFanout({ server, client, fixtures, rt, settings, dbPid, report }) {
  const sockets = Array.from({ length: FANOUT_SOCKETS }, (_, idx) => ({ idx, group: idx < GROUP_SIZE }));
  const svcTarget = { mode: 'service', baseUrl: server.baseUrl };
  const fanout = { connectMs: {}, scenarios: [] };
  const connected = await client.call('connect', {
    fleet: 'svc',
    url: server.baseUrl,
    path: SOCKET_PATH,
    mode: 'service',
    sockets,
  });
  if (connected.failureCount)
    throw new Error(
      `service: ${connected.failureCount} of ${FANOUT_SOCKETS} sockets not connected: ${connected.failures.join('; ')}`,
    );
  fanout.connectMs.service = connected.ms;
  const templates = await client.call('capture', { target: svcTarget, group: fixtures.group, pairs: fixtures.pairs });
  const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
  fanout.payloadBytes = {
    group: bytes(templates.group),
    directPeer: bytes(templates.directPeer),
    directSender: bytes(templates.directSender),
  };
  const bare = await startBare(PORTS.bare, SOCKET_PATH);
  try {
    const set = await fetch(`${bare.baseUrl}/templates`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(templates),
    });
    if (set.status !== 200) throw new Error(`bare socket.io server: POST /templates answered ${set.status}`);
    const bareConnected = await client.call('connect', {
      fleet: 'bare',
      url: bare.baseUrl,
      path: SOCKET_PATH,
      mode: 'bare',
      sockets,
    });
    if (bareConnected.failureCount)
      throw new Error(
        `bare: ${bareConnected.failureCount} sockets not connected: ${bareConnected.failures.join('; ')}`,
      );
    fanout.connectMs.bare = bareConnected.ms;
    console.log(
      `  ${FANOUT_SOCKETS} sockets on each: service in ${connected.ms} ms, bare socket.io in ${bareConnected.ms} ms; message.new ${fanout.payloadBytes.group} B (group), ${fanout.payloadBytes.directPeer} B (direct)`,
    );
    for (const scenario of scenarios(rt)) {
      const liveBefore = await metric(server.baseUrl, 'im_realtime_deliveries_total', 'via="live"');
      const service = await measureFanout({
        client,
        serverPid: server.pid,
        dbPid,
        scenario,
        settings,
        target: svcTarget,
        fixtures,
        tag: `s${scenario.name[0]}`,
      });
      const liveAfter = await metric(server.baseUrl, 'im_realtime_deliveries_total', 'via="live"');
      service.serverLiveDeliveries = liveBefore === null || liveAfter === null ? null : liveAfter - liveBefore;
      printPhase(`${scenario.name}, service`, service);
      const baseline = await measureFanout({
        client,
        serverPid: bare.pid,
        dbPid,
        scenario,
        settings,
        target: { mode: 'bare', baseUrl: bare.baseUrl },
        fixtures,
        tag: `b${scenario.name[0]}`,
      });
      printPhase(`${scenario.name}, bare socket.io`, baseline);
      report.problems.push(
        ...phaseProblems(`${scenario.name} service`, service),
        ...phaseProblems(`${scenario.name} bare`, baseline),
      );
      const ratio =
        baseline.deliveriesPerSecond > 0 ? round(service.deliveriesPerSecond / baseline.deliveriesPerSecond, 3) : null;
      const e2eOverHttpP99 =
        service.latency.all.p99 !== null && service.http.all.p99
          ? round(service.latency.all.p99 / service.http.all.p99, 2)
          : null;
      fanout.scenarios.push({ ...scenario, service, bare: baseline, ratio, e2eOverHttpP99 });
    }
    await client.call('disconnect', { fleet: 'bare' });
  } finally {
    await bare.stop();
  }
  await client.call('disconnect', { fleet: 'svc' });
  const headline = fanout.scenarios[0];
  fanout.headline = headline.name;
  fanout.ratio = headline.ratio;
  fanout.ratioMet = headline.ratio !== null && headline.ratio >= TARGETS.deliveryRatio;
  fanout.e2eOverHttpP99 = headline.e2eOverHttpP99;
  fanout.e2eMet = headline.e2eOverHttpP99 !== null && headline.e2eOverHttpP99 <= TARGETS.e2eP99OverHttpP99;
  return fanout;
}

async function runResume({ server, client, fixtures, rt, report }) {
  const pair = fixtures.resumePair;
  const resume = await client.call('resume', {
    url: server.baseUrl,
    path: SOCKET_PATH,
    baseUrl: server.baseUrl,
    sender: pair.a,
    receiver: pair.b,
    conversationId: pair.aConversation,
    events: rt.resumeEvents,
    attempts: rt.resumeAttempts,
  });
  const times = resume.attempts.map((a) => a.ms);
  const sorted = [...times].sort((a, b) => a - b);
  resume.firstMs = times[0];
  resume.medianMs = sorted[Math.floor((sorted.length - 1) / 2)];
  resume.maxMs = sorted[sorted.length - 1];
  resume.met = resume.medianMs <= TARGETS.resumeMs;
  const wrong = resume.attempts.filter(
    (a) =>
      !a.resumed ||
      a.replayed !== rt.resumeEvents ||
      a.received !== rt.resumeEvents ||
      a.unique !== rt.resumeEvents ||
      !a.ordered,
  );
  if (wrong.length)
    report.problems.push(
      `resume: ${wrong.length} attempt(s) did not replay exactly ${rt.resumeEvents} events once and in order: ${JSON.stringify(wrong[0])}`,
    );
  console.log(
    `  resume of ${rt.resumeEvents} missed events: io() → connection.ready ${times.join(', ')} ms (first replayed event after ${resume.attempts.map((a) => a.firstEventMs).join(', ')} ms); ` +
      `replayed ${resume.attempts.map((a) => a.replayed).join(', ')}`,
  );
  return resume;
}

/**
 * RSS of a server (the freshly restarted service, or the bare socket.io server) with 0, half
 * and all `total` idle sockets, each of its own user. A first round of 200 connections, closed
 * again, loads what the first connection loads, so the 0-socket figure is the state sockets
 * are added to. Each server also tells its used heap and its own count of sockets (the service
 * in /metrics, the bare server in /memory).
 */
async function measureMemory({ client, pid, baseUrl, mode, total }) {
  const open = async (fleet, from, to, width) => {
    const sockets = Array.from({ length: to - from }, (_, k) => ({ idx: from + k }));
    const done = await client.call('connect', {
      fleet,
      url: baseUrl,
      path: SOCKET_PATH,
      mode,
      sockets,
      listen: false,
      width,
    });
    if (done.failureCount)
      throw new Error(
        `memory (${mode}): ${done.failureCount} of ${sockets.length} sockets not connected: ${done.failures.join('; ')}`,
      );
    return done.ms;
  };
  await open(`warm-${mode}`, 0, 200, 50);
  await client.call('disconnect', { fleet: `warm-${mode}` });
  await sleep(3000);
  const steps = [];
  const step = async (sockets) => {
    let gauge;
    let heap;
    if (mode === 'service') {
      gauge = await metric(baseUrl, 'im_realtime_sockets');
      heap = await metric(baseUrl, 'im_nodejs_heap_size_used_bytes');
    } else {
      const usage = await (await fetch(`${baseUrl}/memory`, { signal: AbortSignal.timeout(5000) })).json();
      gauge = usage.sockets;
      heap = usage.heapUsed;
    }
    const rss = await settledRssMb(pid);
    steps.push({
      sockets,
      serverGauge: gauge,
      rssMb: round(rss, 1),
      heapUsedMb: heap === null ? null : round(heap / 1048576, 1),
    });
  };
  await step(0);
  const half = Math.floor(total / 2);
  let connectMs = 0;
  for (const [from, to] of [
    [0, half],
    [half, total],
  ]) {
    connectMs += await open(`idle-${mode}`, from, to, 100);
    await sleep(3000);
    await step(to);
  }
  const clientUsage = await client.call('usage');
  await client.call('disconnect', { fleet: `idle-${mode}` });
  const first = steps[0];
  const last = steps[steps.length - 1];
  const memory = {
    sockets: total,
    connectMs,
    steps,
    rssPerSocketKb: round(((last.rssMb - first.rssMb) * 1024) / total, 2),
    heapPerSocketKb:
      last.heapUsedMb === null || first.heapUsedMb === null
        ? null
        : round(((last.heapUsedMb - first.heapUsedMb) * 1024) / total, 2),
    clientRssMb: clientUsage.rssMb,
  };
  console.log(
    `  memory (${mode}): RSS ${steps.map((s) => `${s.rssMb} MB at ${s.sockets} (server counts ${s.serverGauge})`).join(', ')}; ` +
      `${memory.rssPerSocketKb} KB RSS${memory.heapPerSocketKb === null ? '' : `, ${memory.heapPerSocketKb} KB heap`} per socket`,
  );
  return memory;
}

async function runMemory({ server, client, rt }) {
  await server.restart();
  const service = await measureMemory({
    client,
    pid: server.pid,
    baseUrl: server.baseUrl,
    mode: 'service',
    total: rt.memorySockets,
  });
  const bare = await startBare(PORTS.bare, SOCKET_PATH);
  let baseline;
  try {
    baseline = await measureMemory({
      client,
      pid: bare.pid,
      baseUrl: bare.baseUrl,
      mode: 'bare',
      total: rt.memorySockets,
    });
  } finally {
    await bare.stop();
  }
  return {
    ...service,
    met: service.rssPerSocketKb !== null && service.rssPerSocketKb <= TARGETS.rssPerSocketKb,
    bare: baseline,
  };
}

/**
 * @param {object} ctx
 * @param {object} ctx.settings      run.js settings (duration, warmup, mysqlUrl)
 * @param {Function} ctx.prepareMysql run.js: drops and recreates the bench database
 * @param {Function} ctx.serverEnv   run.js: the service's clean environment for (port, databaseUrl, mediaDir)
 * @param {Set} ctx.liveServers      run.js: servers killed on exit
 */
async function runRealtime({ settings, prepareMysql, serverEnv, liveServers }) {
  const rt = realtimeSettings();
  const report = {
    settings: {
      ...rt,
      fanoutSockets: FANOUT_SOCKETS,
      groupSize: GROUP_SIZE,
      pairs: (FANOUT_SOCKETS - GROUP_SIZE) / 2,
      warmupS: settings.warmup,
      durationS: settings.duration,
    },
    targets: TARGETS,
    socketIo: socketIoVersions(),
    problems: [],
  };
  const prepared = await prepareMysql(settings.mysqlUrl);
  if (prepared.unreachable) {
    console.log(`\n== realtime: skipped, ${prepared.unreachable} ==`);
    return { ...report, skipped: prepared.unreachable };
  }
  report.database = `MariaDB/MySQL ${prepared.version}, database ${prepared.database} (dropped and recreated)`;
  console.log(`\n== realtime: ${report.database}, service port ${PORTS.service}, bare socket.io port ${PORTS.bare} ==`);

  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'im-bench-realtime-'));
  const server = new Server({
    name: 'realtime',
    port: PORTS.service,
    env: serverEnv(PORTS.service, settings.mysqlUrl, mediaDir),
  });
  liveServers.add(server);
  let client = null;
  try {
    await assertPortsFree([PORTS.service, PORTS.bare]);
    server.start();
    const started = Date.now();
    await server.waitHealthy();
    report.startupMs = Date.now() - started;
    client = new ClientProcess();
    console.log(
      `service pid ${server.pid} healthy after ${report.startupMs} ms; sockets and senders in their own process (pid ${client.pid})`,
    );
    const runId = crypto.randomBytes(4).toString('hex');
    const fixtures = await seedRealtime({
      baseUrl: server.baseUrl,
      sdkSecret: server.env.SDK_SECRET,
      runId,
      users: rt.memorySockets,
      fanoutUsers: FANOUT_SOCKETS,
    });
    report.fixtures = {
      users: fixtures.users.length,
      groupMembers: fixtures.group.members.length,
      pairs: fixtures.pairs.length,
      timingsMs: fixtures.timingsMs,
    };
    console.log(
      `fixtures: ${fixtures.users.length} users with tokens, a group of ${fixtures.group.members.length}, ${fixtures.pairs.length} + 1 friend pairs (${JSON.stringify(fixtures.timingsMs)})`,
    );
    await client.call('init', { users: fixtures.users });
    const dbUrl = new URL(settings.mysqlUrl);
    const dbPid = ['127.0.0.1', 'localhost', '::1'].includes(dbUrl.hostname)
      ? findDatabasePidFor(Number(dbUrl.port || 3306))
      : null;
    const ctx = { server, client, fixtures, rt, settings, dbPid, report };
    if (rt.phases.includes('fanout')) report.fanout = await runFanout(ctx);
    if (rt.phases.includes('resume')) report.resume = await runResume(ctx);
    if (rt.phases.includes('memory')) report.memory = await runMemory(ctx);
    if (server.exit)
      throw new Error(
        `service exited (code ${server.exit.code}, signal ${server.exit.signal}):\n  ${server.tail(20).join('\n  ')}`,
      );
  } catch (error) {
    report.failed = error.message;
  } finally {
    if (client) await client.stop();
    await server.stop();
    liveServers.delete(server);
    fs.rmSync(mediaDir, { recursive: true, force: true });
  }
  return report;
}

/** Before anything starts: room for the memory case's sockets in this process's children. */
function ensureRealtimeFileLimit() {
  // The fan-out holds the service's and the bare server's sockets at once in the client process.
  ensureFileLimit(Math.max(realtimeSettings().memorySockets, 2 * FANOUT_SOCKETS) + 1000);
}

module.exports = { runRealtime, ensureFileLimit: ensureRealtimeFileLimit, PORTS };
