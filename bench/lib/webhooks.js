'use strict';

/**
 * Webhook delivery under the send benchmark's load (issue 23). One server, started with
 * WEBHOOK_ENDPOINTS seeding one endpoint (every type) at a local receiver
 * (bench/lib/webhook-receiver.js, its own process: verifies each signature with the
 * `standardwebhooks` package, answers 204 at once, records when each event arrived). After the
 * fixtures' events (and a warm-up's) have arrived, autocannon drives sends for the measured
 * duration, one-to-one and into a 200-member group in turn; every send reply names its event.
 * Then the bench waits until the receiver has every one of those events and reports:
 *   - deliveries/s while the load ran (any event received in the window) and sends/s;
 *   - events sent vs delivered (missing ones are lost), duplicates, arrivals out of position order;
 *   - lag per event = receive time - the event's created_at (p50/p99/max), for the events that
 *     arrived during the load and for all of the load's events (those worked off afterwards too);
 *   - catch-up: from the end of the load until the receiver had the last event of the load.
 * Server and receiver read the same clock (one machine), so the lag needs no clock correction.
 */

const { fork } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server, readCpuSeconds, findDatabasePid } = require('./server');
const { runLoad, errorCount } = require('./load');
const { callJson, parallel, issueTokens, befriend, directConversationId, GROUP_SIZE } = require('./messaging');

const PORTS = { sqlite: 3915, mysql: 3916 };
const PAIRS = 20;
const GROUP_SENDERS = 20;
const DRAIN_TIMEOUT_MS = 180_000;
const DUPLICATE_GRACE_MS = 1_000;

function startReceiver(secret) {
  const child = fork(path.join(__dirname, 'webhook-receiver.js'), [], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = new Promise((resolve, reject) => {
    child.once('message', (message) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`webhook receiver exited (code ${code})`)));
  });
  // One question at a time: each answer is the next message carrying `key`.
  const ask = (message, key) =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`webhook receiver exited (code ${code})`));
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
    waitFor: (ids, timeoutMs) => ask({ cmd: 'waitFor', ids, timeoutMs }, 'waited'),
    dump: () => ask({ cmd: 'dump' }, 'dump'),
    stop: () => child.connected && child.disconnect(),
  };
}

/** Nearest-rank percentiles of a list of milliseconds. */
function distribution(values) {
  if (values.length === 0) return { count: 0, p50: null, p99: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { count: sorted.length, p50: rank(50), p99: rank(99), max: sorted[sorted.length - 1] };
}

const EVENT_ID_KEY = '"event_id":"';

/** Sends alternating between the friend pairs (both ways) and the group's senders; keeps each reply's event ID. */
function sendCase(fixtures, runId, eventIds) {
  // Each run its own client_message_ids: a repeated one is an idempotent replay (no new event).
  const runTag = randomBytes(3).toString('hex');
  let counter = 0;
  return {
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/messages/send',
      setupRequest: (req, context) => {
        const n = ++counter;
        let user;
        let conversationId;
        if (n % 2) {
          const pair = fixtures.pairs[(n >> 1) % fixtures.pairs.length];
          [user, conversationId] = n % 4 === 1 ? [pair.a, pair.aConversation] : [pair.b, pair.bConversation];
        } else {
          user = fixtures.group.senders[(n >> 1) % fixtures.group.senders.length];
          conversationId = fixtures.group.conversationId;
        }
        context.clientMessageId = `bw.${runId}.${runTag}.${n}`;
        context.text = `webhook bench ${n}`;
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
    afterResponse: (status, body) => {
      if (status !== 200 || !body.startsWith('{"code":0,')) return;
      const at = body.indexOf(EVENT_ID_KEY);
      if (at === -1) return;
      const start = at + EVENT_ID_KEY.length;
      eventIds.push(body.slice(start, body.indexOf('"', start)));
    },
    verify: (data, context) => {
      const m = data && data.message;
      if (!m || m.client_message_id !== context.clientMessageId) return 'not the message sent';
      if (typeof data.event_id !== 'string' || !data.event_id) return 'no event_id (a new message has an event)';
      return null;
    },
  };
}

async function prepareFixtures(baseUrl, sdkSecret, runId) {
  const users = await issueTokens(
    baseUrl,
    sdkSecret,
    Array.from({ length: GROUP_SIZE }, (_, i) => ({ userId: `bw-${runId}-${i}`, nickname: `Webhook ${i}` })),
  );
  const pairs = Array.from({ length: PAIRS }, (_, i) => ({ a: users[2 * i], b: users[2 * i + 1] }));
  await parallel(pairs, 5, async (pair, i) => {
    await befriend(baseUrl, pair.a, pair.b, `bw-${runId}-${i}`);
    pair.aConversation = directConversationId(pair.b.userId);
    pair.bConversation = directConversationId(pair.a.userId);
  });
  const owner = users[2 * PAIRS];
  const groupId = `bw${runId}`;
  await callJson(baseUrl, 'POST', '/app/sdk/groups/create', owner.token, {
    group_id: groupId,
    name: 'Webhook bench group',
    member_ids: users.filter((u) => u !== owner).map((u) => u.userId),
  });
  const senders = users.slice(2 * PAIRS + 1, 2 * PAIRS + 1 + GROUP_SENDERS);
  return { pairs, group: { conversationId: `group_${groupId}`, members: users.length, senders } };
}

/** One send whose event, once received, means every earlier event was (position order). */
async function drain(baseUrl, fixtures, receiver, label) {
  const pair = fixtures.pairs[0];
  const data = await callJson(baseUrl, 'POST', '/app/sdk/messages/send', pair.a.token, {
    conversation_id: pair.aConversation,
    client_message_id: `bw.marker.${randomBytes(6).toString('hex')}`,
    type: 'text',
    content: { text: 'marker' },
  });
  const waited = await receiver.waitFor([data.event_id], DRAIN_TIMEOUT_MS);
  if (waited.missing) throw new Error(`${label}: the endpoint did not catch up within ${DRAIN_TIMEOUT_MS / 1000}s`);
}

/**
 * @param {object} options
 * @param {string} options.driver  sqlite or mysql
 * @param {object} options.settings  run.js's settings
 * @param {Function} options.prepareMysql  run.js's: drops and recreates the bench database
 * @param {Function} options.serverEnv  run.js's: the server environment for (port, databaseUrl, mediaDir, secrets)
 * @param {Set} options.liveServers  servers to kill on exit
 */
async function runWebhooks({ driver, settings, prepareMysql, serverEnv, liveServers }) {
  const report = { driver, durationS: settings.duration, connections: settings.connections };
  let databaseUrl;
  if (driver === 'mysql') {
    const prepared = await prepareMysql(settings.mysqlUrl);
    if (prepared.unreachable) return { ...report, skipped: prepared.unreachable };
    databaseUrl = settings.mysqlUrl;
    report.database = `MariaDB/MySQL ${prepared.version}`;
  }
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `im-bench-webhooks-${driver}-`));
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
  const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const receiver = startReceiver(webhookSecret);
  const port = PORTS[driver];
  let server = null;
  console.log(`\n== webhooks, ${driver}: ${report.database}, port ${port} ==`);
  try {
    const receiverPort = await receiver.ready;
    const env = serverEnv({ port, databaseUrl, mediaDir: path.join(tempDir, 'media'), ...secrets });
    env.WEBHOOK_ENDPOINTS = JSON.stringify([{ url: `http://127.0.0.1:${receiverPort}/im`, secret: webhookSecret }]);
    server = new Server({ name: 'webhooks', port, env });
    liveServers.add(server);
    server.start();
    await server.waitHealthy();

    const runId = randomBytes(4).toString('hex');
    const fixtures = await prepareFixtures(server.baseUrl, secrets.sdkSecret, runId);
    await drain(server.baseUrl, fixtures, receiver, 'fixtures');
    let errors = 0;
    const samples = [];
    const run = async (duration, eventIds) => {
      const { result, stats } = await runLoad({
        url: server.baseUrl,
        ...sendCase(fixtures, runId, eventIds),
        duration,
        connections: settings.connections,
      });
      const failed = errorCount(result, stats);
      errors += failed;
      if (failed) samples.push(...stats.samples.slice(0, 2));
      return result;
    };
    if (settings.warmup > 0) {
      await run(settings.warmup, []);
      await drain(server.baseUrl, fixtures, receiver, 'warm-up');
    }

    const eventIds = [];
    const dbPid = driver === 'mysql' ? findDatabasePid() : null;
    const cpuBefore = { server: readCpuSeconds(server.pid), db: dbPid && readCpuSeconds(dbPid) };
    const loadStart = Date.now();
    const result = await run(settings.duration, eventIds);
    const loadEnd = Date.now();
    const cpuPct = (pid, before) => {
      const after = pid && readCpuSeconds(pid);
      return before === null || !after ? null : Math.round((100 * (after - before)) / ((loadEnd - loadStart) / 1000));
    };
    const cpu = { serverPct: cpuPct(server.pid, cpuBefore.server), dbPct: cpuPct(dbPid, cpuBefore.db) };
    const waited = await receiver.waitFor(eventIds, DRAIN_TIMEOUT_MS);
    await new Promise((resolve) => setTimeout(resolve, DUPLICATE_GRACE_MS));
    const { counts, events } = await receiver.dump();

    const byId = new Map(
      events.map(([id, , createdAt, receivedAt, copies]) => [id, { createdAt, receivedAt, copies }]),
    );
    if (process.env.BENCH_WEBHOOKS_TIMELINE) {
      // Per event of the load: created and received, ms from the load's start (for a plot).
      const rows = eventIds.map((id) => byId.get(id)).filter(Boolean);
      fs.writeFileSync(
        process.env.BENCH_WEBHOOKS_TIMELINE,
        rows.map((e) => `${e.createdAt - loadStart}\t${e.receivedAt - loadStart}`).join('\n') + '\n',
      );
    }
    const windowS = (loadEnd - loadStart) / 1000;
    const inWindow = events.filter(([, , , receivedAt]) => receivedAt >= loadStart && receivedAt <= loadEnd).length;
    const loadEvents = eventIds.map((id) => byId.get(id)).filter(Boolean);
    const during = loadEvents.filter((e) => e.receivedAt <= loadEnd);
    const after = loadEvents.length - during.length;
    const catchUpMs = waited.lastAt === null ? null : Math.max(0, waited.lastAt - loadEnd);
    Object.assign(report, {
      sendsPerS: Math.round(result.requests.average * 10) / 10,
      sendP50Ms: result.latency.p50,
      sendP99Ms: result.latency.p99,
      deliveriesPerS: Math.round((inWindow / windowS) * 10) / 10,
      sent: eventIds.length,
      delivered: loadEvents.length,
      lost: waited.missing,
      duplicates: counts.duplicates,
      outOfOrder: counts.outOfOrder,
      badSignatures: counts.badSignatures,
      receiverRequests: counts.requests,
      lagDuringLoadMs: distribution(during.map((e) => e.receivedAt - e.createdAt)),
      lagAllMs: distribution(loadEvents.map((e) => e.receivedAt - e.createdAt)),
      deliveredAfterLoad: after,
      catchUpMs,
      // The backlog worked off with the load gone: the endpoint's rate on an otherwise idle server.
      catchUpDeliveriesPerS: catchUpMs ? Math.round((after / (catchUpMs / 1000)) * 10) / 10 : null,
      cpu,
      errors,
      samples,
    });
    return report;
  } catch (error) {
    return { ...report, failed: error.message };
  } finally {
    if (server) {
      await server.stop();
      liveServers.delete(server);
    }
    receiver.stop();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

function printWebhooks(reports, table) {
  console.log(
    '\n-- webhooks: one endpoint (all types) at a local receiver, under one-to-one + group sends (lag = received - created_at) --',
  );
  const rows = [];
  for (const r of reports) {
    if (r.skipped || r.failed) {
      console.log(`${r.driver}: ${r.skipped ? `skipped, ${r.skipped}` : `FAILED ${r.failed}`}`);
      continue;
    }
    const lag = (d) => (d.count ? `${d.p50} / ${d.p99} / ${d.max}` : '-');
    rows.push([
      r.driver,
      r.sendsPerS.toFixed(0),
      r.deliveriesPerS.toFixed(0),
      `${r.delivered}/${r.sent}`,
      r.lost,
      r.duplicates,
      r.outOfOrder,
      lag(r.lagDuringLoadMs),
      lag(r.lagAllMs),
      r.catchUpMs === null ? '-' : (r.catchUpMs / 1000).toFixed(1),
      r.catchUpDeliveriesPerS === null ? '-' : r.catchUpDeliveriesPerS.toFixed(0),
      `${r.cpu.serverPct ?? '-'}${r.cpu.dbPct === null ? '' : ` / ${r.cpu.dbPct}`}`,
    ]);
  }
  if (rows.length) {
    console.log(
      table(
        [
          'driver',
          'sends/s',
          'deliv/s',
          'delivered',
          'lost',
          'dup',
          'order',
          'lag in load p50/p99/max ms',
          'lag all p50/p99/max ms',
          'catch-up s',
          'catch-up/s',
          'cpu % srv / db',
        ],
        rows,
        [false, true, true, true, true, true, true, true, true, true, true, true],
      ),
    );
  }
  for (const r of reports) {
    if (r.skipped || r.failed) continue;
    const notes = [];
    if (r.errors) notes.push(`${r.errors} send errors`);
    if (r.badSignatures) notes.push(`${r.badSignatures} bad signatures`);
    if (notes.length) console.log(`${r.driver}: ${notes.join(', ')}`);
    for (const sample of r.samples || []) console.log(`  [${sample.kind}] HTTP ${sample.status}: ${sample.body}`);
  }
}

/** True when a report's numbers cannot be trusted: a failure, a send error, a lost, unsigned or misordered event. */
function webhooksInvalid(report) {
  if (report.skipped) return false;
  return Boolean(report.failed || report.errors || report.lost || report.badSignatures || report.outOfOrder);
}

module.exports = { runWebhooks, printWebhooks, webhooksInvalid };
