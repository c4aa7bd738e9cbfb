'use strict';

/**
 * The sockets and sends of the real-time benchmark's client process (realtime-clients.js):
 * socket.io-client sockets in named fleets, the HTTP send of one message (to the service or the
 * bare baseline), and the bookkeeping that matches each delivery to its send by
 * client_message_id (duplicates, misrouted deliveries, latency from the send's start).
 */

const http = require('node:http');
const { performance } = require('node:perf_hooks');
const { io } = require('socket.io-client');

const DELIVERY_TIMEOUT_MS = 10_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

/**
 * users: [{userId, token}] (from `init`); fleets: name -> [{idx, userId, group, socket}];
 * pending: client_message_id -> what its deliveries are checked and timed against;
 * run: the measurement in progress (null outside a fan-out phase).
 */
const state = { users: [], fleets: new Map(), pending: new Map(), run: null };
let cmidCounter = 0;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// HTTP

function post(url, headers, body) {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error('HTTP timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

// ---------------------------------------------------------------------------------------------
// Sockets

function onEvent(entry, name, payload) {
  if (name !== 'message.new') {
    if (state.run) state.run.otherEvents[name] = (state.run.otherEvents[name] || 0) + 1;
    return;
  }
  const now = performance.now();
  const message = payload && payload.data && payload.data.message;
  const p = message && state.pending.get(message.client_message_id);
  if (!p) {
    if (state.run) state.run.stray++;
    return;
  }
  if (p.seen.has(entry.idx)) {
    if (state.run) state.run.duplicates++;
    return;
  }
  p.seen.add(entry.idx);
  if (p.capture && p.capture.has(entry.idx)) p.captured[p.capture.get(entry.idx)] = payload;
  const allowed = p.kind === 'group' ? entry.group : entry.userId === p.from || entry.userId === p.to;
  if (!allowed && state.run) state.run.misrouted++;
  if (state.run && state.run.measuring && now >= state.run.windowStart) {
    state.run.deliveries[p.kind]++;
    state.run.latency[p.kind].push(now - p.t0);
  }
  if (p.seen.size === p.expected) p.resolve();
}

/** Connects one socket and waits for connection.ready (or the refusal). */
function openSocket(url, path, auth, listen, entry, timeoutMs) {
  return new Promise((resolve, reject) => {
    const socket = io(url, {
      path,
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth,
      timeout: timeoutMs,
    });
    entry.socket = socket;
    const timer = setTimeout(() => {
      socket.disconnect();
      reject(new Error(`no connection.ready within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect_error', (error) => {
      clearTimeout(timer);
      socket.disconnect();
      reject(new Error(`connect_error: ${error.message}${error.data ? ` ${JSON.stringify(error.data)}` : ''}`));
    });
    socket.once('connection.ready', (ready) => {
      clearTimeout(timer);
      resolve(ready);
    });
    if (listen) socket.onAny((name, payload) => onEvent(entry, name, payload));
    socket.on('disconnect', (reason) => {
      if (!entry.closing && state.run) state.run.disconnects.push(`${entry.userId}: ${reason}`);
    });
  });
}

/**
 * Opens a fleet of sockets, `width` handshakes at a time. sockets: [{idx, group}] where idx
 * indexes the users of `init`; mode 'service' authenticates with the user's IM token, 'bare'
 * names the user (and group membership) to the bare server. Answers the time it took and the
 * first refusals.
 */
async function connect({ fleet, url, path, mode, sockets, width = 50, listen = true, timeoutMs = 30_000 }) {
  const entries = sockets.map((s) => ({
    idx: s.idx,
    userId: state.users[s.idx].userId,
    group: !!s.group,
    socket: null,
    closing: false,
  }));
  const list = state.fleets.get(fleet) || [];
  state.fleets.set(fleet, list.concat(entries));
  const started = performance.now();
  const failures = [];
  let next = 0;
  async function worker() {
    while (next < entries.length) {
      const entry = entries[next++];
      const user = state.users[entry.idx];
      const auth = mode === 'bare' ? { user_id: user.userId, group: entry.group } : { token: user.token };
      try {
        await openSocket(url, path, auth, listen, entry, timeoutMs);
      } catch (error) {
        failures.push(`${user.userId}: ${error.message}`);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, entries.length) }, worker));
  return {
    connected: entries.length - failures.length,
    failures: failures.slice(0, 5),
    failureCount: failures.length,
    ms: Math.round(performance.now() - started),
  };
}

async function disconnect({ fleet }) {
  const list = state.fleets.get(fleet) || [];
  for (const entry of list) {
    entry.closing = true;
    if (entry.socket) entry.socket.disconnect();
  }
  state.fleets.delete(fleet);
  await sleep(200);
  return { closed: list.length };
}

// ---------------------------------------------------------------------------------------------
// Sends

function nextCmid(tag) {
  cmidCounter += 1;
  return `rt.${tag}.${String(cmidCounter).padStart(9, '0')}`;
}

/**
 * One send as the service or the bare baseline takes it, registered in `pending` before the
 * request leaves (a delivery may arrive before the HTTP reply). Answers the request's promise
 * ({status, text}) and the entry.
 */
function sendOne(target, spec, tag, expected, capture) {
  const cmid = nextCmid(tag);
  const content = { text: `realtime benchmark message ${cmid}` };
  const p = {
    kind: spec.kind,
    from: state.users[spec.from].userId,
    to: spec.to === undefined ? null : state.users[spec.to].userId,
    expected,
    seen: new Set(),
    t0: 0,
    resolve: null,
    capture,
    captured: {},
  };
  p.done = new Promise((resolve) => (p.resolve = resolve));
  state.pending.set(cmid, p);
  p.t0 = performance.now();
  const request =
    target.mode === 'bare'
      ? post(
          `${target.baseUrl}/send`,
          {},
          { kind: spec.kind, from: p.from, to: p.to, client_message_id: cmid, type: 'text', content },
        )
      : post(
          `${target.baseUrl}/app/sdk/messages/send`,
          { Authorization: `Bearer ${state.users[spec.from].token}` },
          { conversation_id: spec.conversationId, client_message_id: cmid, type: 'text', content },
        );
  return { cmid, p, request };
}

/** Waits for every delivery of `p` (or the timeout); answers how many never came. */
async function settle(cmid, p, timeoutMs = DELIVERY_TIMEOUT_MS) {
  let timer;
  const arrived = await Promise.race([
    p.done.then(() => true),
    new Promise((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  clearTimeout(timer);
  state.pending.delete(cmid);
  return arrived ? 0 : p.expected - p.seen.size;
}

function summarize(values) {
  if (!values.length) return { count: 0, p50: null, p99: null, max: null, mean: null };
  const sorted = Float64Array.from(values).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  let sum = 0;
  for (const v of sorted) sum += v;
  const r = (v) => Math.round(v * 100) / 100;
  return {
    count: sorted.length,
    p50: r(at(0.5)),
    p99: r(at(0.99)),
    max: r(sorted[sorted.length - 1]),
    mean: r(sum / sorted.length),
  };
}

module.exports = { state, post, openSocket, connect, disconnect, sendOne, settle, summarize, sleep };
