'use strict';

/**
 * Closed-loop driver of the one-to-one call life cycle (case call_start_accept, bench/lib/calls.js).
 * autocannon sends one request shape per connection; a call needs three requests in order, the
 * second from another user and naming the call the first created. So: N workers (the case's
 * connection count), each with one keep-alive connection and its own friend pairs, each looping
 *
 *   POST /app/sdk/calls/start  (one side of a free pair calls the other; the sides alternate)
 *   POST /app/sdk/calls/accept (the other side; the call becomes ongoing)
 *   POST /app/sdk/calls/hangup (the caller; the call ends and the pair is free again)
 *
 * The measured unit is start + accept (2 requests): it counts when its accept was answered
 * within the window. The hangup is timed separately; its time stays inside the wall clock, so
 * the unit rate is conservative (the server also spends that time ending calls). Each worker
 * finishes its current cycle after the window, so every call it started is ended before the
 * next run. Every reply is parsed and checked.
 *
 * Returns { result, stats } in the shape of bench/lib/load.js (autocannon's result), plus
 * result.detail with the per-request figures.
 */

const http = require('node:http');

const TIMEOUT_MS = 10_000;
const MAX_SAMPLES = 5;
/** client_call_id is the caller's idempotency key: unique over every run of the process (warm-up included). */
let serial = 0;

/** One keep-alive connection (an agent with a single socket), like one autocannon connection. */
class Connection {
  constructor(baseUrl) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  }

  /** Resolves { status, text, ms } or { status: null, error, timeout, ms }; never rejects. */
  request(method, path, token, body) {
    const payload = body === undefined ? null : JSON.stringify(body);
    const headers = { Authorization: `Bearer ${token}` };
    if (payload !== null)
      Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) });
    return new Promise((resolve) => {
      const started = performance.now();
      const req = http.request({ host: this.host, port: this.port, method, path, headers, agent: this.agent });
      let timedOut = false;
      req.setTimeout(TIMEOUT_MS, () => {
        timedOut = true;
        req.destroy(new Error(`no reply within ${TIMEOUT_MS} ms`));
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text, ms: performance.now() - started, sent: payload }));
        res.on('error', (error) =>
          resolve({ status: null, error, timeout: timedOut, ms: performance.now() - started, sent: payload }),
        );
      });
      req.on('error', (error) =>
        resolve({ status: null, error, timeout: timedOut, ms: performance.now() - started, sent: payload }),
      );
      req.end(payload);
    });
  }

  close() {
    this.agent.destroy();
  }
}

function percentile(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const round1 = (value) => (value === null ? null : Math.round(value * 10) / 10);

function latencySummary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((sum, v) => sum + v, 0) / sorted.length : null;
  return {
    count: sorted.length,
    p50: round1(percentile(sorted, 50)),
    p99: round1(percentile(sorted, 99)),
    average: round1(mean),
  };
}

// ---------------------------------------------------------------------------------------------
// Reply checks: null when the reply is what the step must answer, else the problem.

function checkCredentials(credentials, call) {
  if (!credentials) return 'credentials missing';
  if (credentials.room_id !== call.room_id)
    return `credentials.room_id ${credentials.room_id}, call.room_id ${call.room_id}`;
  if (typeof credentials.user_id !== 'string' || !/^u[1-9][0-9]*$/.test(credentials.user_id))
    return `credentials.user_id ${credentials.user_id} is not u<internal id>`;
  if (typeof credentials.user_sig !== 'string' || credentials.user_sig.length < 32)
    return 'credentials.user_sig missing';
  return null;
}

function checkStart(data, caller) {
  if (!data || !data.call) return 'data.call missing';
  const call = data.call;
  if (call.state !== 'ringing')
    return `call.state ${call.state}${call.end_reason ? ` (${call.end_reason})` : ''}, expected ringing (a new call on a free pair)`;
  if (call.caller_user_id !== caller.userId)
    return `caller_user_id ${call.caller_user_id}, expected ${caller.userId} (joined another call?)`;
  if (!Array.isArray(call.participants) || call.participants.length !== 2) return 'expected 2 participants';
  if (typeof data.event_id !== 'string' || !data.event_id) return 'event_id missing (a new call has call.invited)';
  return checkCredentials(data.credentials, call);
}

function checkAccept(data, started) {
  if (!data || !data.call) return 'data.call missing';
  if (data.call.call_id !== started.call.call_id)
    return `call_id ${data.call.call_id}, expected ${started.call.call_id}`;
  if (data.call.state !== 'ongoing') return `call.state ${data.call.state}, expected ongoing`;
  if (typeof data.event_id !== 'string' || !data.event_id) return 'event_id missing (call.accepted)';
  const problem = checkCredentials(data.credentials, data.call);
  if (problem) return problem;
  return data.credentials.user_id === started.credentials.user_id
    ? "the callee got the caller's provider user ID"
    : null;
}

function checkHangup(data, callId, reason) {
  if (!data || !data.call) return 'data.call missing';
  if (data.call.call_id !== callId) return `call_id ${data.call.call_id}, expected ${callId}`;
  if (data.call.state !== 'ended' || data.call.end_reason !== reason)
    return `call ${data.call.state}/${data.call.end_reason}, expected ended/${reason}`;
  if (typeof data.event_id !== 'string' || !data.event_id) return 'event_id missing (call.ended)';
  return null;
}

// ---------------------------------------------------------------------------------------------

/**
 * @param {object} options
 * @param {string} options.url
 * @param {object[]} options.pairs  friend pairs {a, b, aConversation, bConversation, uses, dead} (calls.js)
 * @param {string} options.runId
 * @param {number} options.duration  seconds
 * @param {number} options.connections  workers, one connection each
 */
async function runCallFlow({ url, pairs, runId, duration, connections }) {
  const stats = { responses: 0, non2xx: 0, badCode: 0, badShape: 0, deepChecked: 0, samples: [] };
  const transport = { errors: 0, timeouts: 0 };
  const latencies = { start: [], accept: [], hangup: [], unit: [] };
  let units = 0;
  const usable = pairs.filter((p) => !p.dead);
  const workers = Math.min(connections, usable.length);
  if (workers < connections)
    console.log(`(call flow: only ${usable.length} usable pairs for ${connections} connections)`);
  const deadline = performance.now() + duration * 1000;

  const sample = (kind, res) => {
    if (stats.samples.length >= MAX_SAMPLES) return;
    stats.samples.push({
      kind,
      status: res.status,
      body: res.text ? res.text.slice(0, 600) : String(res.error && res.error.message),
      sent: res.sent || undefined,
    });
  };

  /** The reply's data when it passes `check`, else null (the failure counted and sampled). */
  const judge = (res, step, check) => {
    if (res.status === null) {
      transport.errors++;
      if (res.timeout) transport.timeouts++;
      sample(`${step}: request error`, res);
      return null;
    }
    stats.responses++;
    if (res.status < 200 || res.status > 299) {
      stats.non2xx++;
      sample(`${step}: non-2xx`, res);
      return null;
    }
    let json;
    try {
      json = JSON.parse(res.text);
    } catch {
      stats.badShape++;
      sample(`${step}: unparseable reply`, res);
      return null;
    }
    if (json.code !== 0) {
      stats.badCode++;
      sample(`${step}: code != 0`, res);
      return null;
    }
    stats.deepChecked++;
    const problem = check(json.data);
    if (problem) {
      stats.badShape++;
      sample(`${step}: bad reply: ${problem}`, res);
      return null;
    }
    return json.data;
  };

  /** After a failed step: ends whatever the pair's users still have live, or retires the pair. */
  async function recover(conn, pair) {
    try {
      for (const user of [pair.a, pair.b]) {
        const active = await conn.request('GET', '/app/sdk/calls/active', user.token);
        const calls = active.status === 200 ? JSON.parse(active.text).data.calls : null;
        if (!calls) throw new Error('calls/active failed');
        for (const call of calls) {
          const me = call.participants.find((p) => p.user_id === user.userId);
          if (me && me.state === 'joined')
            await conn.request('POST', '/app/sdk/calls/hangup', user.token, { call_id: call.call_id });
          else
            await conn.request('POST', '/app/sdk/calls/reject', user.token, {
              call_id: call.call_id,
              reason: 'decline',
            });
        }
      }
    } catch {
      pair.dead = true;
    }
  }

  async function cycle(conn, pair) {
    const flip = pair.uses++ % 2 === 1;
    const caller = flip ? pair.b : pair.a;
    const callee = flip ? pair.a : pair.b;
    const conversationId = flip ? pair.bConversation : pair.aConversation;
    const clientCallId = `bc.${runId}.${++serial}`;

    const t0 = performance.now();
    const s = await conn.request('POST', '/app/sdk/calls/start', caller.token, {
      conversation_id: conversationId,
      media: 'audio',
      client_call_id: clientCallId,
      device_id: 'bench-caller',
    });
    const startedOk = judge(s, 'start', (data) => checkStart(data, caller));
    if (performance.now() <= deadline) latencies.start.push(s.ms);
    if (!startedOk) return recover(conn, pair);
    const callId = startedOk.call.call_id;

    const a = await conn.request('POST', '/app/sdk/calls/accept', callee.token, {
      call_id: callId,
      device_id: 'bench-callee',
    });
    const acceptedOk = judge(a, 'accept', (data) => checkAccept(data, startedOk));
    const acceptedAt = performance.now();
    if (acceptedAt <= deadline) {
      latencies.accept.push(a.ms);
      if (acceptedOk) {
        units++;
        latencies.unit.push(acceptedAt - t0);
      }
    }

    const h = await conn.request('POST', '/app/sdk/calls/hangup', caller.token, { call_id: callId });
    const hungUp = judge(h, 'hangup', (data) => checkHangup(data, callId, acceptedOk ? 'hangup' : 'canceled'));
    if (performance.now() <= deadline) latencies.hangup.push(h.ms);
    if (!acceptedOk || !hungUp) await recover(conn, pair);
  }

  async function worker(index) {
    const conn = new Connection(url);
    const mine = usable.filter((_, i) => i % workers === index);
    try {
      for (let k = 0; performance.now() < deadline; k++) {
        const pair = mine[k % mine.length];
        if (pair.dead) {
          if (mine.every((p) => p.dead)) break;
          continue;
        }
        await cycle(conn, pair);
      }
    } finally {
      conn.close();
    }
  }

  await Promise.all(Array.from({ length: workers }, (_, i) => worker(i)));

  const both = latencySummary([...latencies.start, ...latencies.accept]);
  const perSecond = (count) => Math.round((count / duration) * 10) / 10;
  const start = latencySummary(latencies.start);
  const accept = latencySummary(latencies.accept);
  const hangup = latencySummary(latencies.hangup);
  const unit = latencySummary(latencies.unit);
  const detail = {
    unit: 'start + accept (2 requests); hangup timed separately in the same loop',
    unitsPerS: perSecond(units),
    unitP50: unit.p50,
    unitP99: unit.p99,
    start: { ...start, rps: perSecond(start.count) },
    accept: { ...accept, rps: perSecond(accept.count) },
    hangup: { ...hangup, rps: perSecond(hangup.count) },
    allRequestsRps: perSecond(start.count + accept.count + hangup.count),
    workers,
    pairs: usable.length,
    retiredPairs: pairs.filter((p) => p.dead).length,
  };
  detail.summary =
    `unit = start + accept (2 requests): ${detail.unitsPerS} units/s, unit p50 ${unit.p50} ms p99 ${unit.p99} ms; ` +
    `start ${detail.start.rps} req/s p50 ${start.p50} p99 ${start.p99} ms; accept ${detail.accept.rps} req/s p50 ${accept.p50} p99 ${accept.p99} ms; ` +
    `hangup (timed separately, same loop) ${detail.hangup.rps} req/s p50 ${hangup.p50} p99 ${hangup.p99} ms; ` +
    `all three ${detail.allRequestsRps} req/s; ${workers} workers over ${usable.length} friend pairs`;
  const result = {
    requests: { average: (2 * units) / duration, total: 2 * units },
    latency: { p50: both.p50, p99: both.p99, average: both.average },
    duration,
    errors: transport.errors,
    timeouts: transport.timeouts,
    detail,
  };
  return { result, stats };
}

module.exports = { runCallFlow };
