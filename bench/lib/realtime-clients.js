'use strict';

/**
 * The client side of the real-time benchmark, in its own process (forked by realtime.js, so
 * the sockets' work is not counted as the server's and does not slow the orchestrator): many
 * socket.io-client sockets (websocket transport, realtime-sockets.js), the HTTP senders, and
 * the clock both use.
 *
 * Latency of a delivery = its arrival at the receiving socket minus the start of the HTTP send
 * that caused it, both read from performance.now() in this process. Senders run a closed loop:
 * POST, then wait until every recipient's socket has the message (10 s at most), then the next
 * send; the number of senders sets the load, and no queue grows without bound.
 *
 * Commands arrive over IPC as {id, cmd, ...args} and are answered {id, ok, result|error}.
 */

const { performance } = require('node:perf_hooks');
const { io } = require('socket.io-client');
const { state, openSocket, connect, disconnect, sendOne, settle, summarize, sleep } = require('./realtime-sockets');

/**
 * The service's own envelopes and replies for one group and one one-to-one send, which the
 * bare server then copies (same shapes, same sizes).
 */
async function capture({ target, group, pairs }) {
  const [ga, gb] = group.members;
  const g = sendOne(
    target,
    { kind: 'group', from: ga, conversationId: group.conversationId },
    'cap',
    group.members.length,
    new Map([[gb, 'member']]),
  );
  const gReply = await g.request;
  const gMissing = await settle(g.cmid, g.p);
  const pair = pairs[0];
  const d = sendOne(
    target,
    { kind: 'direct', from: pair.a, to: pair.b, conversationId: pair.aConversation },
    'cap',
    2,
    new Map([
      [pair.b, 'peer'],
      [pair.a, 'sender'],
    ]),
  );
  const dReply = await d.request;
  const dMissing = await settle(d.cmid, d.p);
  if (
    gReply.status !== 200 ||
    dReply.status !== 200 ||
    gMissing ||
    dMissing ||
    !g.p.captured.member ||
    !d.p.captured.peer ||
    !d.p.captured.sender
  ) {
    throw new Error(
      `capture failed: group HTTP ${gReply.status} missing ${gMissing}, direct HTTP ${dReply.status} missing ${dMissing}: ${gReply.text.slice(0, 200)} ${dReply.text.slice(0, 200)}`,
    );
  }
  return {
    group: g.p.captured.member,
    directPeer: d.p.captured.peer,
    directSender: d.p.captured.sender,
    groupReply: JSON.parse(gReply.text),
    directReply: JSON.parse(dReply.text),
  };
}

/**
 * The steady send phase: `groupSenders` loops send into the group (senders taken in turn from
 * its members), `directSenders` loops into the pairs (each loop its own pairs, both directions
 * in turn). Warm-up first, then `durationS` measured.
 */
async function fanout({ target, group, pairs, groupSenders, directSenders, warmupS, durationS, tag }) {
  state.run = {
    measuring: false,
    windowStart: Infinity,
    deliveries: { group: 0, direct: 0 },
    latency: { group: [], direct: [] },
    http: { group: [], direct: [] },
    sends: { group: 0, direct: 0 },
    httpErrors: 0,
    errorSamples: [],
    missing: { group: 0, direct: 0 },
    duplicates: 0,
    misrouted: 0,
    stray: 0,
    otherEvents: {},
    disconnects: [],
  };
  const r = state.run;
  let stop = false;
  let windowEnd = Infinity;
  const inWindow = (t) => r.measuring && t >= r.windowStart && t <= windowEnd;

  async function loop(kind, pick) {
    while (!stop) {
      const spec = pick();
      const expected = kind === 'group' ? group.members.length : 2;
      const { cmid, p, request } = sendOne(target, spec, tag, expected);
      let reply;
      try {
        reply = await request;
      } catch (error) {
        reply = { status: 0, text: error.message };
      }
      const t1 = performance.now();
      if (reply.status !== 200 || !reply.text.startsWith('{"code":0,')) {
        r.httpErrors++;
        if (r.errorSamples.length < 5) r.errorSamples.push(`HTTP ${reply.status}: ${reply.text.slice(0, 300)}`);
        state.pending.delete(cmid);
        await sleep(100);
        continue;
      }
      if (inWindow(t1)) {
        r.http[kind].push(t1 - p.t0);
        r.sends[kind]++;
      }
      const missing = await settle(cmid, p);
      if (missing && inWindow(t1)) r.missing[kind] += missing;
    }
  }

  let g = 0;
  const groupPick = () => {
    const from = group.members[g++ % group.members.length];
    return { kind: 'group', from, conversationId: group.conversationId };
  };
  const loops = [];
  for (let i = 0; i < groupSenders; i++) loops.push(loop('group', groupPick));
  for (let i = 0; i < directSenders; i++) {
    const own = pairs.filter((_, k) => k % directSenders === i);
    let n = 0;
    loops.push(
      loop('direct', () => {
        const pair = own[Math.floor(n / 2) % own.length];
        const forward = n++ % 2 === 0;
        return forward
          ? { kind: 'direct', from: pair.a, to: pair.b, conversationId: pair.aConversation }
          : { kind: 'direct', from: pair.b, to: pair.a, conversationId: pair.bConversation };
      }),
    );
  }
  await sleep(warmupS * 1000);
  const cpuBefore = process.cpuUsage();
  r.windowStart = performance.now();
  r.measuring = true;
  await sleep(durationS * 1000);
  windowEnd = performance.now();
  const cpu = process.cpuUsage(cpuBefore);
  r.measuring = false;
  stop = true;
  await Promise.all(loops);
  const seconds = (windowEnd - r.windowStart) / 1000;
  const all = r.latency.group.concat(r.latency.direct);
  const result = {
    seconds: Math.round(seconds * 1000) / 1000,
    deliveries: r.deliveries,
    deliveriesPerSecond: Math.round((r.deliveries.group + r.deliveries.direct) / seconds),
    deliveriesPerSecondByKind: {
      group: Math.round(r.deliveries.group / seconds),
      direct: Math.round(r.deliveries.direct / seconds),
    },
    sends: r.sends,
    sendsPerSecond: Math.round(((r.sends.group + r.sends.direct) / seconds) * 10) / 10,
    latency: { all: summarize(all), group: summarize(r.latency.group), direct: summarize(r.latency.direct) },
    http: {
      all: summarize(r.http.group.concat(r.http.direct)),
      group: summarize(r.http.group),
      direct: summarize(r.http.direct),
    },
    httpErrors: r.httpErrors,
    errorSamples: r.errorSamples,
    missing: r.missing,
    duplicates: r.duplicates,
    misrouted: r.misrouted,
    stray: r.stray,
    otherEvents: r.otherEvents,
    disconnects: r.disconnects.slice(0, 5),
    disconnectCount: r.disconnects.length,
    clientCpuPct: Math.round((100 * (cpu.user + cpu.system)) / 1e6 / seconds),
  };
  state.run = null;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Resume

/**
 * `sender` sends `events` messages to `receiver` while the receiver is offline (the sender's own
 * socket sees each one delivered, so all are sequenced before any resume); then the receiver
 * reconnects `attempts` times from the position of its first connection.ready. Each attempt is
 * timed from the io() call to connection.ready; the replayed events are checked for count,
 * uniqueness and order.
 */
async function resume({ url, path, baseUrl, sender, receiver, conversationId, events, attempts }) {
  const watch = { idx: sender, userId: state.users[sender].userId, group: false, socket: null, closing: false };
  await openSocket(url, path, { token: state.users[sender].token }, true, watch, 30_000);
  const first = { idx: receiver, userId: state.users[receiver].userId, group: false, socket: null, closing: false };
  const ready = await openSocket(url, path, { token: state.users[receiver].token }, false, first, 30_000);
  first.closing = true;
  first.socket.disconnect();
  await sleep(200);

  const started = performance.now();
  let next = 0;
  let failed = 0;
  async function worker() {
    while (next < events) {
      next++;
      const { cmid, p, request } = sendOne(
        { mode: 'service', baseUrl },
        { kind: 'direct', from: sender, to: receiver, conversationId },
        'res',
        2,
      );
      p.expected = 1; // only the sender's socket is connected
      const reply = await request.catch((error) => ({ status: 0, text: error.message }));
      if (reply.status !== 200) failed++;
      if (await settle(cmid, p)) failed++;
    }
  }
  await Promise.all(Array.from({ length: 10 }, worker));
  const sendMs = Math.round(performance.now() - started);
  watch.closing = true;
  watch.socket.disconnect();
  if (failed) throw new Error(`resume setup: ${failed} of ${events} sends failed or were not delivered to the sender`);

  const results = [];
  for (let a = 0; a < attempts; a++) {
    const t0 = performance.now();
    const socket = io(url, {
      path,
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { token: state.users[receiver].token, position: ready.position },
    });
    const ids = new Set();
    let received = 0;
    let ordered = true;
    let lastSeq = 0n;
    let firstAt = null;
    const outcome = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('resume: no connection.ready within 30 s')), 30_000);
      socket.once('connect_error', (error) => {
        clearTimeout(timer);
        reject(new Error(`resume: connect_error ${error.message}`));
      });
      socket.onAny((name, payload) => {
        if (name === 'connection.ready') {
          clearTimeout(timer);
          resolve({ ms: performance.now() - t0, ready: payload });
        } else if (name === 'message.new') {
          if (received === 0) firstAt = performance.now() - t0;
          received++;
          ids.add(payload.event_id);
          const seq = BigInt(payload.data.message.conversation_seq);
          if (seq <= lastSeq) ordered = false;
          lastSeq = seq;
        }
      });
    });
    socket.disconnect();
    // firstEventMs: the handshake and the backlog's first page; the rest is the replay's transfer.
    results.push({
      ms: Math.round(outcome.ms * 10) / 10,
      firstEventMs: firstAt === null ? null : Math.round(firstAt * 10) / 10,
      resumed: outcome.ready.resumed,
      replayed: outcome.ready.replayed,
      received,
      unique: ids.size,
      ordered,
    });
    await sleep(300);
  }
  return { events, sendMs, attempts: results };
}

// ---------------------------------------------------------------------------------------------
// IPC

const commands = {
  init: ({ users }) => {
    state.users = users;
    return { users: users.length };
  },
  connect,
  disconnect,
  capture,
  fanout,
  resume,
  usage: () => ({
    rssMb: Math.round(process.memoryUsage().rss / 1048576),
    sockets: [...state.fleets.values()].reduce((n, l) => n + l.length, 0),
  }),
};

process.on('message', async (message) => {
  const { id, cmd, ...args } = message;
  try {
    if (!commands[cmd]) throw new Error(`unknown command ${cmd}`);
    const result = await commands[cmd](args);
    process.send({ id, ok: true, result });
  } catch (error) {
    process.send({ id, ok: false, error: error.message });
  }
});
process.on('disconnect', () => process.exit(0));
