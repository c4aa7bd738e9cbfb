'use strict';

/**
 * The calls cases (issue 12); targets (bench/lib/cases.js TARGETS) apply to MariaDB, the cases
 * also run on SQLite for comparison.
 *
 * call_start_accept: the one-to-one life cycle by a closed loop (bench/lib/call-flow.js), one
 *   worker per connection, each with its own friend pairs (PAIRS_PER_CONNECTION): start by one
 *   side, accept by the other (the measured unit, 2 requests), then hangup, timed separately.
 *   req/s = 2 × units/s, to compare with the baseline's requests/s.
 *
 * rtc_callback_calls: autocannon, signed room callbacks against live group calls (at least 64) of
 *   four members each. Each call's caller (the anchor) entered the room during the fixtures and
 *   never leaves, so the call stays ongoing and its room never counts as empty; each of the
 *   three other members (a "slot") toggles: a 104 (user left) takes a member who is in the room
 *   and joined to left (call.participant_left), a 103 (user entered) takes them back to joined
 *   and in the room (call.participant_joined). EventMsTs grows per slot and a slot has at most
 *   one request in flight, so no request is stale. After each run the case checks in the
 *   database that every acknowledged request wrote its participant event and that every slot's
 *   participant row holds the state and event time of its last request; a shortfall counts as
 *   errors.
 */

const { createHmac } = require('node:crypto');
const { runLoad } = require('./load');
const { callJson, parallel, issueTokens, befriend, directConversationId } = require('./messaging');
const { runCallFlow } = require('./call-flow');

const CALL_CASE_KEYS = ['call_start_accept', 'rtc_callback_calls'];
const PAIRS_PER_CONNECTION = 4;
/** Live group calls of the callback case: at least 64, and six toggled members per connection. */
const MIN_GROUP_CALLS = 64;
const TOGGLERS_PER_CALL = 3;
const CALLBACK_PATH = '/app/sdk/rtc/room-callback';
const ENTERED = 103;
const LEFT = 104;
const PARTICIPANT_EVENTS = ['call.participant_joined', 'call.participant_left'];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sign = (secret, body) => createHmac('sha256', secret).update(body).digest('base64');

function roomEventBody(type, roomId, providerUserId, eventMs) {
  return JSON.stringify({
    EventGroupId: 1,
    EventType: type,
    CallbackTs: Date.now(),
    EventInfo: { RoomId: roomId, UserId: providerUserId, EventMsTs: eventMs },
  });
}

async function postRoomEvent(f, body) {
  const response = await fetch(f.baseUrl + CALLBACK_PATH, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', SdkAppId: f.rtcAppId, Sign: sign(f.rtcSecret, body) },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (response.status !== 200 || text !== '{"code":0}')
    throw new Error(`room callback: HTTP ${response.status} ${text.slice(0, 200)}`);
}

/** Read access to the bench database (the checks of the callback case), on either driver. */
async function openDb(driver, target) {
  if (driver === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(target, { readonly: true, fileMustExist: true });
    return { all: async (sql, params = []) => db.prepare(sql).all(...params), close: async () => db.close() };
  }
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({
    uri: target,
    connectTimeout: 3000,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  return { all: async (sql, params = []) => (await connection.query(sql, params))[0], close: () => connection.end() };
}

/**
 * Room events are applied after their callback is answered: waits until none is left to apply
 * (a build without `applied_at` applies them before answering: nothing to wait for). Answers
 * the wait in ms, which the case adds to its measured time (see withDrain).
 */
async function drainRoomEvents(db, timeoutMs = 60_000) {
  const began = Date.now();
  try {
    await db.all('SELECT applied_at FROM rtc_room_events LIMIT 1');
  } catch {
    return 0;
  }
  for (;;) {
    const [{ n }] = await db.all('SELECT COUNT(*) AS n FROM rtc_room_events WHERE applied_at IS NULL');
    if (Number(n) === 0) return Date.now() - began;
    if (Date.now() - began > timeoutMs) throw new Error(`${n} room events still not applied after ${timeoutMs} ms`);
    await sleep(20);
  }
}

/**
 * The rate of a callback case counts the time the server still needed to apply what it had
 * acknowledged: req/s over the measured window plus the drain.
 */
function withDrain(result, drainMs) {
  const window = result.duration || 1;
  result.requests.average = (result.requests.average * window) / (window + drainMs / 1000);
  result.drainMs = drainMs;
  return result;
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/** Friend pairs of the start/accept case, and one whole cycle on the first to prove the flow works. */
async function preparePairs(f, sdkSecret, count) {
  const specs = [];
  for (let i = 0; i < count; i++)
    specs.push(
      { userId: `bca-${f.runId}-${i}`, nickname: `Bench Caller ${i}` },
      { userId: `bcb-${f.runId}-${i}`, nickname: `Bench Callee ${i}` },
    );
  const users = await issueTokens(f.baseUrl, sdkSecret, specs);
  const pairs = Array.from({ length: count }, (_, i) => {
    const [a, b] = [users[2 * i], users[2 * i + 1]];
    return {
      a,
      b,
      aConversation: directConversationId(b.userId),
      bConversation: directConversationId(a.userId),
      uses: 0,
      dead: false,
    };
  });
  await parallel(pairs, 10, (pair, i) => befriend(f.baseUrl, pair.a, pair.b, `bcf.${f.runId}.${i}`));
  const [first] = pairs;
  const started = await callJson(f.baseUrl, 'POST', '/app/sdk/calls/start', first.a.token, {
    conversation_id: first.aConversation,
    media: 'audio',
    client_call_id: `bc.${f.runId}.probe`,
    device_id: 'bench-caller',
  });
  if (!started || !started.call || started.call.state !== 'ringing' || !started.credentials)
    throw new Error(`calls fixtures: start answered ${JSON.stringify(started).slice(0, 300)}`);
  const accepted = await callJson(f.baseUrl, 'POST', '/app/sdk/calls/accept', first.b.token, {
    call_id: started.call.call_id,
    device_id: 'bench-callee',
  });
  if (accepted.call.state !== 'ongoing') throw new Error(`calls fixtures: accept left the call ${accepted.call.state}`);
  const ended = await callJson(f.baseUrl, 'POST', '/app/sdk/calls/hangup', first.a.token, {
    call_id: started.call.call_id,
  });
  if (ended.call.state !== 'ended' || ended.call.end_reason !== 'hangup')
    throw new Error(`calls fixtures: hangup left the call ${ended.call.state}/${ended.call.end_reason}`);
  return pairs;
}

/** `count` ongoing group calls of four members, everyone in the room; returns the toggled slots. */
async function prepareGroupCalls(f, sdkSecret, count) {
  const size = TOGGLERS_PER_CALL + 1;
  const specs = [];
  for (let g = 0; g < count; g++)
    for (let i = 0; i < size; i++) specs.push({ userId: `bcg-${f.runId}-${g}-${i}`, nickname: `Bench Call ${g}.${i}` });
  const users = await issueTokens(f.baseUrl, sdkSecret, specs);
  const calls = new Array(count);
  await parallel(calls, 8, async (_, g) => {
    const [anchor, ...others] = users.slice(g * size, (g + 1) * size);
    const groupId = `bcg${f.runId}x${g}`;
    await callJson(f.baseUrl, 'POST', '/app/sdk/groups/create', anchor.token, {
      group_id: groupId,
      name: `Bench call ${g}`,
      member_ids: others.map((u) => u.userId),
    });
    const started = await callJson(f.baseUrl, 'POST', '/app/sdk/calls/start', anchor.token, {
      conversation_id: `group_${groupId}`,
      media: 'video',
      client_call_id: `bcg.${f.runId}.${g}`,
      device_id: 'bench-anchor',
    });
    if (!started.credentials || started.call.participants.length !== size)
      throw new Error(`calls fixtures: group call start answered ${JSON.stringify(started).slice(0, 300)}`);
    const { call_id: callId, room_id: roomId } = started.call;
    const members = [{ user: anchor, providerUserId: started.credentials.user_id }];
    for (const user of others) {
      const accepted = await callJson(f.baseUrl, 'POST', '/app/sdk/calls/accept', user.token, {
        call_id: callId,
        device_id: 'bench-member',
      });
      members.push({ user, providerUserId: accepted.credentials.user_id });
    }
    const eventMs = Date.now();
    for (const m of members) await postRoomEvent(f, roomEventBody(ENTERED, roomId, m.providerUserId, eventMs));
    const seen = await callJson(f.baseUrl, 'GET', `/app/sdk/calls/get?call_id=${callId}`, anchor.token);
    if (seen.state !== 'ongoing' || !seen.participants.every((p) => p.state === 'joined' && p.in_room)) {
      throw new Error(
        `calls fixtures: group call ${g} is not ongoing with everyone joined and in the room: ${JSON.stringify(seen).slice(0, 400)}`,
      );
    }
    calls[g] = { callId, roomId, members, eventMs };
  });
  // Interleaved by call: requests in flight at the same time land on different calls (each change locks its call's row).
  const slots = [];
  for (let t = 1; t <= TOGGLERS_PER_CALL; t++) {
    for (const call of calls) {
      const m = call.members[t];
      slots.push({
        callId: call.callId,
        roomId: call.roomId,
        providerUserId: m.providerUserId,
        internalId: m.providerUserId.slice(1),
        inRoom: true,
        lastMs: call.eventMs,
        pending: null,
      });
    }
  }
  return { calls, slots };
}

/**
 * Prepares what the selected calls cases need (`cases` null: all).
 * @returns the context of callCases, with `summary`
 */
async function prepareCalls({ baseUrl, driver, dbTarget, runId, sdkSecret, rtcAppId, rtcSecret, connections, cases }) {
  const wants = (key) => !cases || cases.includes(key);
  const began = Date.now();
  const f = { baseUrl, driver, dbTarget, runId, rtcAppId, rtcSecret, pairs: null, group: null };
  if (wants('call_start_accept')) f.pairs = await preparePairs(f, sdkSecret, connections * PAIRS_PER_CONNECTION);
  if (wants('rtc_callback_calls'))
    f.group = await prepareGroupCalls(f, sdkSecret, Math.max(MIN_GROUP_CALLS, 2 * connections));
  f.summary = {
    friendPairs: f.pairs ? f.pairs.length : 0,
    groupCalls: f.group ? f.group.calls.length : 0,
    toggledMembers: f.group ? f.group.slots.length : 0,
    totalMs: Date.now() - began,
  };
  return f;
}

// ---------------------------------------------------------------------------------------------
// Cases

function startAcceptCase(f) {
  return {
    label: `POST calls/start + accept (${f.pairs.length} pairs)`,
    run: ({ url, duration, connections }) =>
      runCallFlow({ url, pairs: f.pairs, runId: f.runId, duration, connections }),
  };
}

function callbackCase(f) {
  const { slots } = f.group;
  const free = [...slots];
  const doubtful = new Set();
  const counters = { acked: 0, starved: 0, sent: { [ENTERED]: 0, [LEFT]: 0 } };

  const request = {
    method: 'POST',
    path: CALLBACK_PATH,
    headers: { 'Content-Type': 'application/json', SdkAppId: f.rtcAppId },
    setupRequest: (req, context) => {
      const slot = free.shift();
      if (!slot) {
        // Cannot happen with more slots than connections; an unsigned request makes it an error.
        counters.starved++;
        req.body = '{}';
        req.headers = { ...req.headers, Sign: 'none' };
        return req;
      }
      const type = slot.inRoom ? LEFT : ENTERED;
      const eventMs = Math.max(slot.lastMs + 1, Date.now());
      const body = roomEventBody(type, slot.roomId, slot.providerUserId, eventMs);
      slot.pending = { type, eventMs };
      counters.sent[type]++;
      context.slot = slot;
      context.sent = body;
      req.headers = { ...req.headers, Sign: sign(f.rtcSecret, body) };
      req.body = body;
      return req;
    },
  };

  const afterResponse = (status, body, context) => {
    const slot = context.slot;
    if (!slot || !slot.pending) return;
    context.slot = null;
    if (status === 200 && body === '{"code":0}') {
      slot.inRoom = slot.pending.type === ENTERED;
      slot.lastMs = slot.pending.eventMs;
      slot.pending = null;
      counters.acked++;
      free.push(slot);
    } else {
      // The event was refused (not applied); its state is read back after the run.
      doubtful.add(slot);
    }
  };

  /** Slots whose last request got no reply (still in flight when autocannon stopped) or failed: their state is read back. */
  async function resync(db) {
    const lost = slots.filter((s) => s.pending || doubtful.has(s));
    if (!lost.length) return 0;
    await sleep(500);
    const rows = await participantRows(db, lost);
    for (const slot of lost) {
      const row = rows.get(`${slot.callId}/${slot.internalId}`);
      if (row) {
        slot.inRoom = Number(row.in_room) === 1;
        slot.lastMs = Math.max(slot.lastMs, Number(row.room_event_ms), slot.pending ? slot.pending.eventMs : 0);
      }
      slot.pending = null;
      doubtful.delete(slot);
      free.push(slot);
    }
    return lost.length;
  }

  async function participantRows(db, wanted) {
    const callIds = [...new Set(wanted.map((s) => s.callId))];
    const rows = await db.all(
      `SELECT c.call_id, c.state AS call_state, p.user_id, p.state, p.in_room, p.room_event_ms FROM call_participants p JOIN calls c ON c.id = p.call_row_id WHERE c.call_id IN (${callIds.map(() => '?').join(', ')})`,
      callIds,
    );
    return new Map(rows.map((r) => [`${r.call_id}/${r.user_id}`, r]));
  }

  async function run(options) {
    const db = await openDb(f.driver, f.dbTarget);
    try {
      const [{ id: lastEventId }] = await db.all('SELECT COALESCE(MAX(id), 0) AS id FROM outbox_events');
      const ackedBefore = counters.acked;
      const sentBefore = { ...counters.sent };
      const { result, stats } = await runLoad({ ...options, request, reply: 'provider', afterResponse });
      withDrain(result, await drainRoomEvents(db));
      const acked = counters.acked - ackedBefore;
      const resynced = await resync(db);
      const events = {};
      for (const row of await db.all('SELECT type, COUNT(*) AS n FROM outbox_events WHERE id > ? GROUP BY type', [
        lastEventId,
      ]))
        events[row.type] = Number(row.n);
      const written = PARTICIPANT_EVENTS.reduce((sum, type) => sum + (events[type] || 0), 0);
      const problems = [];
      // Requests still in flight at the stop may have been applied too: at least one event per acknowledged request.
      if (written < acked)
        problems.push(
          `${acked - written} acknowledged callbacks changed nothing (${written} participant events for ${acked} acknowledged)`,
        );
      const other = Object.keys(events).filter((type) => !PARTICIPANT_EVENTS.includes(type));
      const otherCount = other.reduce((sum, type) => sum + events[type], 0);
      if (other.length)
        problems.push(`unexpected events ${other.map((t) => `${t} x${events[t]}`).join(', ')} (a call ended?)`);
      const rows = await participantRows(db, slots);
      let mismatches = 0;
      for (const slot of slots) {
        const row = rows.get(`${slot.callId}/${slot.internalId}`);
        const expected = slot.inRoom ? 'joined' : 'left';
        if (
          !row ||
          row.call_state !== 'ongoing' ||
          Number(row.in_room) !== (slot.inRoom ? 1 : 0) ||
          row.state !== expected ||
          Number(row.room_event_ms) !== slot.lastMs
        ) {
          mismatches++;
          if (mismatches <= 3)
            problems.push(
              `slot ${slot.callId}/${slot.providerUserId}: expected ${expected}, in_room ${slot.inRoom}, event ${slot.lastMs}; found ${JSON.stringify(row)}`,
            );
        }
      }
      if (mismatches)
        problems.push(`${mismatches} of ${slots.length} participants not in the state of their last callback`);
      if (counters.starved) problems.push(`${counters.starved} requests found no free member to toggle`);
      stats.badShape += Math.max(0, acked - written) + mismatches + otherCount + counters.starved;
      counters.starved = 0;
      for (const problem of problems)
        if (stats.samples.length < 5) stats.samples.push({ kind: 'call state check', status: null, body: problem });
      const left = counters.sent[LEFT] - sentBefore[LEFT];
      const entered = counters.sent[ENTERED] - sentBefore[ENTERED];
      result.detail = {
        acknowledged: acked,
        sent: { left, entered },
        participantEvents: events,
        resyncedSlots: resynced,
        stateMismatches: mismatches,
        summary:
          `each request a signed 104 (member joined+in room -> left) or 103 (left -> joined+in room) for one of ${slots.length} members of ` +
          `${f.group.calls.length} ongoing 4-member group calls: ${acked} acknowledged, ${written} participant events written ` +
          `(left ${events['call.participant_left'] || 0}, joined ${events['call.participant_joined'] || 0}), every member's row checked: ${mismatches} mismatches; ` +
          `applied ${result.drainMs} ms after the window (counted in req/s)`,
      };
      return { result, stats };
    } finally {
      await db.close();
    }
  }

  return { label: `POST room-callback 103/104, ${f.group.calls.length} live calls`, run };
}

/** The calls cases the fixtures allow, in table order. */
function callCases(f) {
  if (!f) return [];
  const cases = [];
  if (f.pairs) cases.push(['call_start_accept', startAcceptCase(f)]);
  if (f.group) cases.push(['rtc_callback_calls', callbackCase(f)]);
  return cases;
}

module.exports = { prepareCalls, callCases, CALL_CASE_KEYS, openDb, drainRoomEvents, withDrain };
