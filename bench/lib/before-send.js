'use strict';

/**
 * The cost of the before-send hook (issue 23): one-to-one sends with a hook that answers at
 * once, as a ratio to the same sends without one. Two servers of the same build run on one
 * database: "plain" has no hook, "hook" has WEBHOOK_BEFORE_SEND_URL pointing at a local
 * receiver (bench/lib/before-send-receiver.js, its own process). After a warm-up of each, they
 * are measured in alternation, round after round (the order flips each round), so a drift of
 * the machine (other jobs, the database growing) weighs on both sides alike.
 *
 * Environment (besides run.js's BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_DRIVERS):
 *   BENCH_HOOK_ROUNDS  measured runs per side (default 3)
 */

const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server } = require('./server');
const { runLoad, errorCount } = require('./load');
const { parallel, issueTokens, befriend, directConversationId } = require('./messaging');

const PORTS = { sqlite: { plain: 3911, hook: 3912 }, mysql: { plain: 3913, hook: 3914 } };
const PAIRS = 20;

function rounds() {
  const raw = process.env.BENCH_HOOK_ROUNDS;
  const value = raw === undefined || raw === '' ? 3 : Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`BENCH_HOOK_ROUNDS must be a positive integer (got "${raw}")`);
  return value;
}

function startReceiver(secret) {
  const child = fork(path.join(__dirname, 'before-send-receiver.js'), [], {
    env: { PATH: process.env.PATH, BEFORE_SEND_SECRET: secret },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`before-send receiver exited (code ${code})`)));
  });
  return {
    child,
    ready,
    counts: () =>
      new Promise((resolve) => {
        child.once('message', (message) => resolve(message.counts));
        child.send('counts');
      }),
    stop: () => child.connected && child.disconnect(),
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function sendCase(pairs, runId, side) {
  let counter = 0;
  return {
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/messages/send',
      setupRequest: (req, context) => {
        const n = ++counter;
        const pair = pairs[n % pairs.length];
        const [user, conversationId] = n % 2 ? [pair.a, pair.aConversation] : [pair.b, pair.bConversation];
        context.clientMessageId = `bh.${runId}.${side}.${n}`;
        context.text = `hook bench ${n}`;
        req.headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${user.token}` };
        req.body = JSON.stringify({
          conversation_id: conversationId,
          client_message_id: context.clientMessageId,
          type: 'text',
          content: { text: context.text },
        });
        context.sent = req.body;
        return req;
      },
    },
    verify: (data, context) => {
      const m = data && data.message;
      if (!m || m.client_message_id !== context.clientMessageId) return 'not the message sent';
      if (!m.content || m.content.text !== context.text) return 'content is not the text sent (a hook allows it as is)';
      return null;
    },
  };
}

/**
 * @param {object} options
 * @param {string} options.driver  sqlite or mysql
 * @param {object} options.settings  run.js's settings
 * @param {Function} options.prepareMysql  run.js's: drops and recreates the bench database
 * @param {Function} options.serverEnv  run.js's: the server environment for (port, databaseUrl, mediaDir, secrets)
 * @param {Set} options.liveServers  servers to kill on exit
 */
async function runBeforeSend({ driver, settings, prepareMysql, serverEnv, liveServers }) {
  const report = { driver, rounds: rounds(), durationS: settings.duration, connections: settings.connections };
  let databaseUrl;
  if (driver === 'mysql') {
    const prepared = await prepareMysql(settings.mysqlUrl);
    if (prepared.unreachable) return { ...report, skipped: prepared.unreachable };
    databaseUrl = settings.mysqlUrl;
    report.database = `MariaDB/MySQL ${prepared.version}`;
  }
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `im-bench-before-send-${driver}-`));
  if (driver === 'sqlite') {
    databaseUrl = `sqlite:${path.join(tempDir, 'bench.sqlite')}`;
    report.database = 'SQLite (temp file, WAL)';
  }
  const secrets = {
    sdkSecret: `sdk-${randomBytes(32).toString('base64url')}`,
    jwtSecret: `jwt-${randomBytes(32).toString('base64url')}`,
    rtcAppId: '1400000001',
    rtcSecret: `rtc-${randomBytes(24).toString('base64url')}`,
  };
  const hookSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const receiver = startReceiver(hookSecret);
  const servers = {};
  console.log(
    `\n== before-send hook, ${driver}: ${report.database}, ports ${PORTS[driver].plain} (plain) and ${PORTS[driver].hook} (hook) ==`,
  );
  try {
    const receiverPort = await receiver.ready;
    for (const side of ['plain', 'hook']) {
      const port = PORTS[driver][side];
      const env = serverEnv({ port, databaseUrl, mediaDir: path.join(tempDir, `media-${side}`), ...secrets });
      if (side === 'hook') {
        Object.assign(env, {
          WEBHOOK_BEFORE_SEND_URL: `http://127.0.0.1:${receiverPort}/before-send`,
          WEBHOOK_BEFORE_SEND_SECRET: hookSecret,
          WEBHOOK_BEFORE_SEND_ON_FAILURE: 'reject',
        });
      }
      const server = new Server({ name: `before-send-${side}`, port, env });
      liveServers.add(server);
      servers[side] = server;
      // One after the other: the first applies the migrations, the second finds nothing to do.
      server.start();
      await server.waitHealthy();
    }

    const runId = randomBytes(4).toString('hex');
    const users = await issueTokens(
      servers.plain.baseUrl,
      secrets.sdkSecret,
      Array.from({ length: PAIRS * 2 }, (_, i) => ({ userId: `bh-${runId}-${i}`, nickname: `Hook ${i}` })),
    );
    const pairs = Array.from({ length: PAIRS }, (_, i) => ({ a: users[2 * i], b: users[2 * i + 1] }));
    await parallel(pairs, 5, async (pair, i) => {
      await befriend(servers.plain.baseUrl, pair.a, pair.b, `bh-${runId}-${i}`);
      pair.aConversation = directConversationId(pair.b.userId);
      pair.bConversation = directConversationId(pair.a.userId);
    });

    const cases = { plain: sendCase(pairs, runId, 'plain'), hook: sendCase(pairs, runId, 'hook') };
    const measured = { plain: [], hook: [] };
    let hookRequests = 0;
    let errors = 0;
    const samples = [];
    const run = async (side, duration) => {
      const { result, stats } = await runLoad({
        url: servers[side].baseUrl,
        ...cases[side],
        duration,
        connections: settings.connections,
      });
      const failed = errorCount(result, stats);
      errors += failed;
      if (failed) samples.push(...stats.samples.slice(0, 2));
      if (side === 'hook') hookRequests += result.requests.total;
      return result;
    };
    if (settings.warmup > 0) for (const side of ['plain', 'hook']) await run(side, settings.warmup);
    for (let round = 0; round < report.rounds; round++) {
      for (const side of round % 2 ? ['hook', 'plain'] : ['plain', 'hook']) {
        const result = await run(side, settings.duration);
        measured[side].push({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
        process.stdout.write(
          `  round ${round + 1} ${side.padEnd(5)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms\n`,
        );
      }
    }
    const counts = await receiver.counts();
    const side = (runs) => ({
      rps: Math.round((runs.reduce((sum, r) => sum + r.rps, 0) / runs.length) * 10) / 10,
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      runs,
    });
    Object.assign(report, {
      plain: side(measured.plain),
      hook: side(measured.hook),
      receiver: counts,
      errors,
      samples,
    });
    report.ratio = Math.round((report.hook.rps / report.plain.rps) * 100) / 100;
    // Each round's two runs are neighbours in time: the median of their ratios shrugs off a
    // round disturbed by other jobs, which moves the means.
    report.medianRoundRatio =
      Math.round(median(measured.hook.map((h, i) => h.rps / measured.plain[i].rps)) * 100) / 100;
    // Every send of the hook side asked the host once (failed ones included), and nothing else did.
    report.callsMatch = counts.requests >= hookRequests && counts.badSignatures === 0;
    return report;
  } catch (error) {
    return { ...report, failed: error.message };
  } finally {
    for (const server of Object.values(servers)) {
      await server.stop();
      liveServers.delete(server);
    }
    receiver.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

function printBeforeSend(reports) {
  console.log('\n-- before-send hook: one-to-one sends with a hook answering at once, vs without --');
  for (const r of reports) {
    if (r.skipped) {
      console.log(`${r.driver}: skipped, ${r.skipped}`);
      continue;
    }
    if (r.failed) {
      console.log(`${r.driver}: FAILED ${r.failed}`);
      continue;
    }
    console.log(
      `${r.driver}: without ${r.plain.rps.toFixed(0)} req/s (p50 ${r.plain.p50} ms, p99 ${r.plain.p99} ms); ` +
        `with hook ${r.hook.rps.toFixed(0)} req/s (p50 ${r.hook.p50} ms, p99 ${r.hook.p99} ms); ratio ${r.ratio.toFixed(2)}, ` +
        `median of the rounds' ratios ${r.medianRoundRatio.toFixed(2)} ` +
        `(${r.rounds} alternated rounds of ${r.durationS}s, ${r.connections} connections); hook calls ${r.receiver.requests}, ` +
        `bad signatures ${r.receiver.badSignatures}${r.errors ? `; ERRORS ${r.errors}` : ''}${r.callsMatch ? '' : '; CALL COUNT MISMATCH'}`,
    );
    for (const sample of r.samples || []) console.log(`  [${sample.kind}] HTTP ${sample.status}: ${sample.body}`);
  }
}

/** True when a report's numbers cannot be trusted. */
function beforeSendInvalid(report) {
  return !report.skipped && Boolean(report.failed || report.errors || !report.callsMatch);
}

module.exports = { runBeforeSend, printBeforeSend, beforeSendInvalid };
