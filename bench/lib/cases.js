'use strict';

/**
 * The benchmark cases. Each builds an autocannon request whose setupRequest generates a fresh
 * body per request (unique ids, fresh timestamps, per-request signatures) and a `verify` used
 * on a sample of replies.
 */

const { createHmac, randomUUID } = require('node:crypto');
const { messagesPath, checkResetWindow, checkSync, WINDOW_SIZE } = require('./messaging');
const { READY_PATH } = require('./server');
const { runLoad } = require('./load');

const POOL_SIZE = 100;

/** Targets on MariaDB, as ratios of req/s to the readiness baseline in the same run (issue). */
const TARGETS = {
  token_new: 0.35,
  token_existing: 0.35,
  client_errors_new: 0.35,
  client_errors_merged: 0.35,
  reports_user: 0.35,
  rtc_callback: 0.6,
  send_direct: 0.25,
  send_group: 0.25,
  messages_unchanged: 0.5,
  // The calls cases (bench/lib/calls.js, issue 12).
  call_start_accept: 0.25,
  rtc_callback_calls: 0.5,
};
/** Latency targets on MariaDB: p99 under the limit, at a fixed number of connections (issue). */
const P99_TARGETS_MS = {
  sync_1000: 50,
};
const RSS_TARGET_MB = 250;

function json(body) {
  return JSON.stringify(body);
}

function checkUser(data, context) {
  if (!data || typeof data !== 'object') return 'data missing';
  if (!data.user || data.user.user_id !== context.userId) return `data.user.user_id is not ${context.userId}`;
  if (typeof data.token !== 'string' || data.token.split('.').length !== 3) return 'data.token is not a JWT';
  if (!Number.isInteger(data.expire_at)) return 'data.expire_at missing';
  if (!data.push || typeof data.push !== 'object') return 'data.push missing';
  return null;
}

/**
 * @param {object} ctx
 * @param {string} ctx.runId      short random prefix, unique per server run
 * @param {string} ctx.sdkSecret
 * @param {string} ctx.rtcAppId
 * @param {string} ctx.rtcSecret
 * @param {{userId: string, nickname: string, token: string}[]} ctx.pool  existing users with IM tokens
 * @param {object} [ctx.messaging]  fixtures of the messaging-core cases (bench/lib/messaging.js)
 */
function buildCases(ctx) {
  const { runId, sdkSecret, rtcAppId, rtcSecret, pool } = ctx;
  const jsonHeaders = { 'Content-Type': 'application/json' };
  let counter = 0;
  const next = () => ++counter;

  // The baseline is readiness: the smallest request that, like every case, asks the database
  // (one SELECT 1). Liveness (/health) asks nothing and would be a different yardstick.
  const health = {
    label: `GET ${READY_PATH}`,
    reply: 'envelope',
    request: { method: 'GET', path: READY_PATH },
    verify: (data) => (data && data.database === 'up' ? null : 'data does not say database "up"'),
  };

  const tokenNew = {
    label: 'POST /app/sdk/token (new users)',
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/token',
      headers: { ...jsonHeaders, Authorization: `Bearer ${sdkSecret}` },
      setupRequest: (req, context) => {
        const n = next();
        context.userId = `bn-${runId}-${n}`;
        req.body = json({ user_id: context.userId, nickname: `Bench New ${n}` });
        context.sent = req.body;
        return req;
      },
    },
    verify: checkUser,
  };

  const tokenExisting = {
    label: 'POST /app/sdk/token (existing users)',
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/token',
      headers: { ...jsonHeaders, Authorization: `Bearer ${sdkSecret}` },
      setupRequest: (req, context) => {
        const user = pool[next() % pool.length];
        context.userId = user.userId;
        // Same nickname as at creation: the profile is unchanged, so no write is needed.
        req.body = json({ user_id: user.userId, nickname: user.nickname });
        context.sent = req.body;
        return req;
      },
    },
    verify: checkUser,
  };

  const clientError = (user, deviceId, errorCode) => ({
    event_id: randomUUID(),
    user_id: user.userId,
    username: null,
    device_id: deviceId,
    platform: 'android',
    severity: 'serious',
    error_code: errorCode,
    message: 'request timed out after 15000 ms',
    stack_trace: 'Error: timeout\n    at Socket.onTimeout (net.js:1:1)\n    at sync (sync.js:42:7)',
    operation: 'sync',
    build_id: '1.4.2-bench',
    conversation_id: null,
    message_id: null,
    trace_id: randomUUID(),
    recovered: false,
    context: { screen: 'chat', network: 'wifi', retry: 2 },
  });

  const clientErrorsNew = {
    label: 'POST /app/sdk/client-errors (new)',
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/client-errors',
      headers: jsonHeaders,
      setupRequest: (req, context) => {
        const n = next();
        const index = n % pool.length;
        const user = pool[index];
        // A distinct error_code per request: every report creates its own record.
        const body = clientError(user, `bench-dev-${index}`, `bench.e${n}`);
        context.eventId = body.event_id;
        req.headers = { ...req.headers, Authorization: `Bearer ${user.token}` };
        req.body = json(body);
        context.sent = req.body;
        return req;
      },
    },
    verify: (data, context) => {
      if (!data || data.event_id !== context.eventId)
        return 'data.event_id is not the submitted event_id (expected a new record)';
      if (data.occurrence_count !== 1) return `occurrence_count ${data.occurrence_count}, expected 1 for a new record`;
      return null;
    },
  };

  const mergedUser = pool[0];
  const clientErrorsMerged = {
    label: 'POST /app/sdk/client-errors (merged)',
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/client-errors',
      headers: { ...jsonHeaders, Authorization: `Bearer ${mergedUser.token}` },
      setupRequest: (req, context) => {
        // Identical merge fields every time, only event_id (and trace_id) change.
        const body = clientError(mergedUser, 'bench-dev-merged', 'net.timeout');
        context.eventId = body.event_id;
        req.body = json(body);
        context.sent = req.body;
        return req;
      },
    },
    verify: (data) => {
      if (!data || typeof data.event_id !== 'string') return 'data.event_id missing';
      if (!Number.isInteger(data.occurrence_count) || data.occurrence_count < 1) return 'data.occurrence_count missing';
      return null;
    },
  };

  const reportsUser = {
    label: 'POST /app/sdk/reports/user',
    reply: 'envelope',
    request: {
      method: 'POST',
      path: '/app/sdk/reports/user',
      headers: jsonHeaders,
      setupRequest: (req, context) => {
        const n = next();
        const reporter = pool[n % pool.length];
        const target = pool[(n + 1) % pool.length];
        context.requestId = `br-${runId}-${n}`;
        req.headers = { ...req.headers, Authorization: `Bearer ${reporter.token}` };
        req.body = json({ user_id: target.userId, request_id: context.requestId, reason_code: 1 });
        context.sent = req.body;
        return req;
      },
    },
    verify: (data, context) => {
      if (!data || data.request_id !== context.requestId) return 'data.request_id is not the submitted one';
      if (data.status !== 'pending') return `status ${data.status}, expected pending`;
      if (data.created !== true) return 'created is not true for a new request_id';
      if (!Number.isInteger(data.created_at)) return 'created_at missing';
      return null;
    },
  };

  const rtcCallback = {
    label: 'POST /app/sdk/rtc/room-callback',
    reply: 'provider',
    // Events acknowledged in the window but applied after it count against the rate.
    run: async (options) => {
      const { openDb, drainRoomEvents, withDrain } = require('./calls');
      const loaded = await runLoad(options);
      const db = await openDb(ctx.driver, ctx.dbTarget);
      try {
        const drainMs = await drainRoomEvents(db);
        withDrain(loaded.result, drainMs);
        loaded.result.detail = { drainMs, summary: `applied ${drainMs} ms after the window (counted in req/s)` };
      } finally {
        await db.close();
      }
      return loaded;
    },
    request: {
      method: 'POST',
      path: '/app/sdk/rtc/room-callback',
      headers: { ...jsonHeaders, SdkAppId: rtcAppId },
      setupRequest: (req, context) => {
        const n = next();
        const now = Date.now();
        const body = json({
          EventGroupId: 1,
          EventType: 103,
          CallbackTs: now,
          EventInfo: { RoomId: (n % 4294967295) + 1, UserId: `bench-rtc-${runId}-${n}`, EventMsTs: now },
        });
        req.headers = { ...req.headers, Sign: createHmac('sha256', rtcSecret).update(body).digest('base64') };
        req.body = body;
        context.sent = body;
        return req;
      },
    },
  };

  const messaging = messagingCases(ctx.messaging, { runId, next, jsonHeaders });

  return [
    ['health_1', health],
    ['token_new', tokenNew],
    ['token_existing', tokenExisting],
    ['client_errors_new', clientErrorsNew],
    ['client_errors_merged', clientErrorsMerged],
    ['reports_user', reportsUser],
    ['rtc_callback', rtcCallback],
    ...messaging,
    ['health_2', health],
  ];
}

const pick = (items) => items[Math.floor(Math.random() * items.length)];

/** A send reply: the submitted message, stored with a sequence, from this sender. */
function checkSend(data, context) {
  if (!data || !data.message) return 'data.message missing';
  const m = data.message;
  if (m.client_message_id !== context.clientMessageId)
    return `client_message_id ${m.client_message_id}, expected ${context.clientMessageId}`;
  if (m.conversation_id !== context.conversationId)
    return `conversation_id ${m.conversation_id}, expected ${context.conversationId}`;
  if (m.sender_id !== context.userId) return `sender_id ${m.sender_id}, expected ${context.userId}`;
  if (typeof m.conversation_seq !== 'string' || !/^[1-9][0-9]*$/.test(m.conversation_seq))
    return `conversation_seq ${m.conversation_seq} is not a positive decimal`;
  if (!m.content || m.content.text !== context.text) return 'content.text is not the sent text';
  if (m.status !== 'normal') return `status ${m.status}`;
  if (typeof data.event_id !== 'string' || !data.event_id) return 'event_id missing (a new message has an event)';
  return null;
}

/** Every reset reply: outcome reset, 50 messages, the window ending at the last sequence. */
function resetBodyCheck(lastSeq) {
  const first = `"conversation_seq":"${BigInt(lastSeq) - BigInt(WINDOW_SIZE - 1)}"`;
  const last = `"conversation_seq":"${lastSeq}"`;
  return (body) => {
    if (!body.includes('"outcome":"reset"')) return 'outcome is not reset';
    let count = 0;
    for (let at = body.indexOf('"mid":'); at !== -1; at = body.indexOf('"mid":', at + 6)) count++;
    if (count !== WINDOW_SIZE) return `${count} messages, expected ${WINDOW_SIZE}`;
    if (!body.includes(first) || !body.includes(last)) return `window does not run from ${first} to ${last}`;
    return null;
  };
}

/**
 * The messaging-core cases (fixtures: bench/lib/messaging.js). Sends pick a random sender per
 * request and a fresh client_message_id; the window reads alternate between the two members of
 * the history conversation and check every reply's outcome, not only a sample.
 */
function messagingCases(m, { runId, next, jsonHeaders }) {
  if (!m) return [];
  const sendRequest = (chooseSender) => ({
    method: 'POST',
    path: '/app/sdk/messages/send',
    setupRequest: (req, context) => {
      const n = next();
      const { user, conversationId } = chooseSender();
      context.userId = user.userId;
      context.conversationId = conversationId;
      context.clientMessageId = `bm.${runId}.${n}`;
      context.text = `bench message ${n}`;
      req.headers = { ...jsonHeaders, Authorization: `Bearer ${user.token}` };
      req.body = JSON.stringify({
        conversation_id: conversationId,
        client_message_id: context.clientMessageId,
        type: 'text',
        content: { text: context.text },
      });
      context.sent = req.body;
      return req;
    },
  });

  const sendDirect = {
    label: `POST messages/send, 1:1 (${m.pairs.length} pairs)`,
    reply: 'envelope',
    request: sendRequest(() => {
      const pair = pick(m.pairs);
      return Math.random() < 0.5
        ? { user: pair.a, conversationId: pair.aConversation }
        : { user: pair.b, conversationId: pair.bConversation };
    }),
    verify: checkSend,
  };

  const sendGroup = {
    label: `POST messages/send, group of ${m.group.members}`,
    reply: 'envelope',
    request: sendRequest(() => ({ user: pick(m.group.senders), conversationId: m.group.conversationId })),
    verify: checkSend,
  };

  const sync = {
    label: `POST sync, ${m.hub.conversations} conversations`,
    reply: 'envelope',
    connections: 20,
    request: {
      method: 'POST',
      path: '/app/sdk/sync',
      headers: { ...jsonHeaders, Authorization: `Bearer ${m.hub.user.token}` },
      body: '{}',
    },
    check: (body) => (body.includes('"has_more":true') ? null : 'conversations.has_more is not true'),
    verify: (data) => checkSync(data, m.hub),
  };

  const h = m.history;
  const readers = [
    { user: h.a, conversationId: h.aConversation },
    { user: h.b, conversationId: h.bConversation },
  ];
  const windowRequest = (trio) => {
    const prepared = readers.map((r) => ({
      path: messagesPath(r.conversationId, trio),
      headers: { Authorization: `Bearer ${r.user.token}` },
    }));
    return {
      method: 'GET',
      path: prepared[0].path,
      setupRequest: (req, context) => {
        const reader = prepared[next() % prepared.length];
        req.path = reader.path;
        req.headers = reader.headers;
        context.sent = `GET ${reader.path}`;
        return req;
      },
    };
  };

  const messagesUnchanged = {
    label: `GET messages unchanged (${h.lastSeq} msgs)`,
    reply: 'envelope',
    request: windowRequest(h.trio),
    check: (body) => (body.includes('"outcome":"unchanged"') ? null : 'outcome is not unchanged'),
    verify: (data) => {
      if (!data || data.outcome !== 'unchanged') return `outcome ${data && data.outcome}, expected unchanged`;
      if (!Array.isArray(data.messages) || data.messages.length !== 0) return 'messages should be empty when unchanged';
      if (
        data.last_seq !== h.trio.lastSeq ||
        data.updated_at !== h.trio.updatedAt ||
        data.deletion_revision !== h.trio.deletionRevision
      )
        return 'trio differs from the known one';
      return null;
    },
  };

  const messagesReset = {
    label: `GET messages reset (${h.lastSeq} msgs)`,
    reply: 'envelope',
    request: windowRequest(h.staleTrio),
    check: resetBodyCheck(h.lastSeq),
    verify: (data) => checkResetWindow(data, h.lastSeq),
  };

  return [
    ['send_direct', sendDirect],
    ['send_group', sendGroup],
    ['sync_1000', sync],
    ['messages_unchanged', messagesUnchanged],
    ['messages_reset', messagesReset],
  ];
}

module.exports = { buildCases, TARGETS, P99_TARGETS_MS, RSS_TARGET_MB, POOL_SIZE };
