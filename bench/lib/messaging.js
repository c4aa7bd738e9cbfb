'use strict';

/**
 * Fixtures of the messaging-core cases, and the EXPLAIN check of their queries on MariaDB.
 *
 * Through the HTTP API (what a client would do): friend pairs (request + accept), the users and
 * the 200-member group, the users of the sync and history cases and the friendship of the
 * history pair. Directly in the database, for speed, with the server running (migrations
 * applied) on the same database: the 1,000 one-to-one conversations of the sync user (peers,
 * friendships both ways, conversations, members, two messages each) and the 100,000 messages
 * of the history conversation. The rows follow the schema of src/database/migrations and the
 * rules of the service: direct_key "<low id>:<high id>", sequences 1..last_seq without gaps,
 * the last message is the one at last_seq, unread = messages of others after read_seq,
 * content_hash = SHA-256 of canonical JSON [conversation id, type, content].
 */

const { createHash } = require('node:crypto');

const PAIR_COUNT = 20; // one-to-one send case: friend pairs taken from the user pool
const GROUP_SIZE = 200; // group send case: members including the owner
const GROUP_SENDERS = 20;
const HUB_CONVERSATIONS = 1000; // sync case
const HUB_PINNED = 3;
const HISTORY_MESSAGES = 100_000; // message-window cases
const HISTORY_B_UNREAD_FROM = HISTORY_MESSAGES - 10; // B has read up to here
const WINDOW_SIZE = 50;
const HOME_PAGE_SIZE = 50;

// ---------------------------------------------------------------------------------------------
// HTTP

async function callJson(baseUrl, method, urlPath, bearer, body) {
  const response = await fetch(baseUrl + urlPath, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      Authorization: `Bearer ${bearer}`,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${urlPath}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (response.status !== 200 || json.code !== 0)
    throw new Error(`${method} ${urlPath}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return json.data;
}

/** Runs `work(item, index)` over `items`, `width` at a time. */
async function parallel(items, width, work) {
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      await work(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

async function issueTokens(baseUrl, sdkSecret, specs) {
  const users = new Array(specs.length);
  await parallel(specs, 10, async ({ userId, nickname }, i) => {
    const data = await callJson(baseUrl, 'POST', '/app/sdk/token', sdkSecret, { user_id: userId, nickname });
    if (!data || !data.user || data.user.user_id !== userId || typeof data.token !== 'string')
      throw new Error(`token for ${userId}: unexpected reply`);
    users[i] = { userId, nickname, token: data.token };
  });
  return users;
}

/** A asks, B accepts (the documented two-step flow); returns each side's conversation ID. */
async function befriend(baseUrl, a, b, requestId) {
  const sent = await callJson(baseUrl, 'POST', '/app/sdk/friends/requests', a.token, {
    user_id: b.userId,
    request_id: requestId,
    message: 'bench',
  });
  if (!sent || !sent.request || typeof sent.request.id !== 'string')
    throw new Error(`friend request ${a.userId} -> ${b.userId}: no request id in reply`);
  await callJson(baseUrl, 'POST', '/app/sdk/friends/requests/accept', b.token, { id: sent.request.id });
}

function directConversationId(peerExternalId) {
  return `friend_${Buffer.from(peerExternalId, 'utf8').toString('base64url')}`;
}

function messagesPath(conversationId, trio) {
  const query = new URLSearchParams({
    conversation_id: conversationId,
    known_last_seq: trio.lastSeq,
    known_updated_at: String(trio.updatedAt),
    known_deletion_revision: trio.deletionRevision,
  });
  return `/app/sdk/messages?${query}`;
}

// ---------------------------------------------------------------------------------------------
// Direct database access (seeding), the same calls on both drivers

async function openSeedDb(driver, target) {
  if (driver === 'sqlite') {
    const Database = require('better-sqlite3');
    const db = new Database(target, { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    const statements = new Map();
    const prepared = (sql) => {
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
      return statement;
    };
    return {
      async all(sql, params = []) {
        return prepared(sql).all(...params);
      },
      async run(sql, params = []) {
        prepared(sql).run(...params);
      },
      async insertMany(table, columns, rows) {
        const statement = prepared(
          `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        );
        for (const row of rows) statement.run(...row);
      },
      async transaction(work) {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await work();
          db.exec('COMMIT');
          return result;
        } catch (error) {
          db.exec('ROLLBACK');
          throw error;
        }
      },
      async close() {
        db.close();
      },
    };
  }
  const mysql = require('mysql2/promise');
  const connection = await mysql.createConnection({
    uri: target,
    connectTimeout: 3000,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  return {
    async all(sql, params = []) {
      return (await connection.query(sql, params))[0];
    },
    async run(sql, params = []) {
      await connection.query(sql, params);
    },
    async insertMany(table, columns, rows) {
      for (let i = 0; i < rows.length; i += 2000) {
        await connection.query(`INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ?`, [
          rows.slice(i, i + 2000),
        ]);
      }
    },
    async transaction(work) {
      await connection.beginTransaction();
      try {
        const result = await work();
        await connection.commit();
        return result;
      } catch (error) {
        await connection.rollback();
        throw error;
      }
    },
    async close() {
      await connection.end();
    },
  };
}

const list = (n) => Array.from({ length: n }, () => '?').join(', ');

async function userIds(db, externalIds) {
  const ids = new Map();
  for (let i = 0; i < externalIds.length; i += 500) {
    const chunk = externalIds.slice(i, i + 500);
    for (const row of await db.all(
      `SELECT id, external_id FROM users WHERE external_id IN (${list(chunk.length)})`,
      chunk,
    ))
      ids.set(row.external_id, String(row.id));
  }
  for (const externalId of externalIds) if (!ids.has(externalId)) throw new Error(`seed: user ${externalId} not found`);
  return ids;
}

function directKey(a, b) {
  return BigInt(a) < BigInt(b) ? `${a}:${b}` : `${b}:${a}`;
}

/** A text message row as the service writes it (columns of MESSAGE_COLUMNS). */
const MESSAGE_COLUMNS = [
  'conversation_id',
  'seq',
  'sender_id',
  'client_message_id',
  'type',
  'content',
  'content_hash',
  'search_text',
  'event_id',
  'status',
  'created_at',
  'updated_at',
];
function messageRow(conversationId, seq, senderId, clientMessageId, text, at) {
  const content = { text };
  const hash = createHash('sha256')
    .update(JSON.stringify([String(conversationId), 'text', content]))
    .digest('hex');
  return [
    conversationId,
    seq,
    senderId,
    clientMessageId,
    'text',
    JSON.stringify(content),
    hash,
    text.toLowerCase(),
    '',
    'normal',
    at,
    at,
  ];
}

const MEMBER_COLUMNS = [
  'conversation_id',
  'user_id',
  'peer_id',
  'read_seq',
  'visible_from_seq',
  'visible_to_seq',
  'pinned',
  'muted',
  'hidden',
  'unread_count',
  'last_activity_at',
  'created_at',
  'updated_at',
];

/**
 * The sync user's 1,000 one-to-one conversations: 1,000 peers, friendships both ways, one
 * conversation per pair with two messages (the hub's at seq 1, the peer's at seq 2), and both
 * member rows. Every third conversation is read by the hub; a few are pinned, every tenth muted.
 */
async function seedHub(db, hub, runId) {
  const now = Date.now();
  const peerExternal = Array.from({ length: HUB_CONVERSATIONS }, (_, i) => `bsp-${runId}-${i}`);
  await db.insertMany(
    'users',
    [
      'external_id',
      'username',
      'nickname',
      'avatar',
      'signature',
      'profile_updated_at',
      'token_version',
      'disabled',
      'created_at',
      'updated_at',
    ],
    peerExternal.map((externalId, i) => [externalId, null, `Sync Peer ${i}`, '', '', now, 0, 0, now, now]),
  );
  const hubId = (await userIds(db, [hub.userId])).get(hub.userId);
  const peerIds = await userIds(db, peerExternal);
  const peers = peerExternal.map((externalId) => peerIds.get(externalId));

  await db.insertMany(
    'friendships',
    ['user_id', 'friend_id', 'created_at'],
    peers.flatMap((peer) => [
      [hubId, peer, now],
      [peer, hubId, now],
    ]),
  );

  // Conversation i was last active at activity(i): the newest is i = 999.
  const activity = (i) => now - (HUB_CONVERSATIONS - i) * 1000;
  const keys = peers.map((peer) => directKey(hubId, peer));
  await db.insertMany(
    'conversations',
    ['type', 'direct_key', 'group_id', 'last_seq', 'content_updated_at', 'deletion_revision', 'created_at'],
    keys.map((key, i) => ['direct', key, null, 2, activity(i), 0, activity(i) - 500]),
  );
  const conversationByKey = new Map();
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    for (const row of await db.all(
      `SELECT id, direct_key FROM conversations WHERE direct_key IN (${list(chunk.length)})`,
      chunk,
    ))
      conversationByKey.set(row.direct_key, String(row.id));
  }
  const conversations = keys.map((key) => conversationByKey.get(key));

  const messages = [];
  conversations.forEach((conversationId, i) => {
    messages.push(messageRow(conversationId, 1, hubId, `seed.${runId}.${i}`, `hello peer ${i}`, activity(i) - 400));
    messages.push(
      messageRow(conversationId, 2, peers[i], `seed.${runId}.${i}`, `hello hub, this is peer ${i}`, activity(i)),
    );
  });
  await db.insertMany('messages', MESSAGE_COLUMNS, messages);

  let unreadTotal = 0;
  let unreadUnmuted = 0;
  const members = [];
  conversations.forEach((conversationId, i) => {
    const hubRead = i % 3 === 0; // the hub has read the peer's message
    const muted = i % 10 === 0;
    const pinned = i < HUB_PINNED;
    if (!hubRead) {
      unreadTotal += 1;
      if (!muted) unreadUnmuted += 1;
    }
    members.push([
      conversationId,
      hubId,
      peers[i],
      hubRead ? 2 : 0,
      0,
      null,
      pinned ? 1 : 0,
      muted ? 1 : 0,
      0,
      hubRead ? 0 : 1,
      activity(i),
      activity(i) - 500,
      activity(i),
    ]);
    // The peer has not read the hub's message (seq 1); its own message (seq 2) is not unread.
    members.push([
      conversationId,
      peers[i],
      hubId,
      0,
      0,
      null,
      0,
      0,
      0,
      1,
      activity(i),
      activity(i) - 500,
      activity(i),
    ]);
  });
  await db.insertMany('conversation_members', MEMBER_COLUMNS, members);
  return { hubId, conversations: conversations.length, unreadTotal, unreadUnmuted, pinned: HUB_PINNED };
}

/** 100,000 messages in the history pair's conversation (created by the friend accept). */
async function seedHistory(db, a, b) {
  const ids = await userIds(db, [a.userId, b.userId]);
  const aId = ids.get(a.userId);
  const bId = ids.get(b.userId);
  const [conversation] = await db.all(
    'SELECT id, last_seq, content_updated_at, created_at FROM conversations WHERE direct_key = ?',
    [directKey(aId, bId)],
  );
  if (!conversation) throw new Error('seed: the history pair has no conversation');
  if (Number(conversation.last_seq) !== 0)
    throw new Error(`seed: the history conversation already has ${conversation.last_seq} messages`);
  const conversationId = String(conversation.id);
  const start = Number(conversation.created_at) + 1;
  // A sends the odd sequences, B the even ones; ten messages per millisecond.
  const at = (seq) => start + Math.floor(seq / 10);
  const rows = [];
  for (let seq = 1; seq <= HISTORY_MESSAGES; seq++) {
    const odd = seq % 2 === 1;
    rows.push(
      messageRow(
        conversationId,
        seq,
        odd ? aId : bId,
        `seed.h.${seq}`,
        `history message ${seq} from ${odd ? 'a' : 'b'}`,
        at(seq),
      ),
    );
  }
  await db.insertMany('messages', MESSAGE_COLUMNS, rows);
  const lastAt = at(HISTORY_MESSAGES);
  const updatedAt = Math.max(Number(conversation.content_updated_at) + 1, lastAt);
  await db.run('UPDATE conversations SET last_seq = ?, content_updated_at = ? WHERE id = ?', [
    HISTORY_MESSAGES,
    updatedAt,
    conversationId,
  ]);
  // A has read everything; B up to HISTORY_B_UNREAD_FROM, so A's (odd) messages after it are unread.
  let bUnread = 0;
  for (let seq = HISTORY_B_UNREAD_FROM + 1; seq <= HISTORY_MESSAGES; seq++) if (seq % 2 === 1) bUnread++;
  await db.run(
    'UPDATE conversation_members SET read_seq = ?, unread_count = ?, last_activity_at = ?, updated_at = ? WHERE conversation_id = ? AND user_id = ?',
    [HISTORY_MESSAGES, 0, lastAt, lastAt, conversationId, aId],
  );
  await db.run(
    'UPDATE conversation_members SET read_seq = ?, unread_count = ?, last_activity_at = ?, updated_at = ? WHERE conversation_id = ? AND user_id = ?',
    [HISTORY_B_UNREAD_FROM, bUnread, lastAt, lastAt, conversationId, bId],
  );
  return { conversationId, messages: HISTORY_MESSAGES, updatedAt };
}

/**
 * The seeds above write one-to-one unread counts directly; the server keeps each user's sum in
 * user_unread_totals with every change, so it is recomputed here the way the migration fills it.
 */
async function refreshUnreadTotals(db) {
  await db.run('DELETE FROM user_unread_totals');
  await db.run(
    'INSERT INTO user_unread_totals (user_id, direct_unread, direct_unread_unmuted) ' +
      'SELECT user_id, SUM(unread_count), SUM(CASE WHEN muted = 0 THEN unread_count ELSE 0 END) FROM conversation_members WHERE is_group = 0 GROUP BY user_id',
  );
}

// ---------------------------------------------------------------------------------------------
// Fixtures

/**
 * @returns the `messaging` context of buildCases: pairs, group, hub, history, plus `summary`
 */
async function prepareMessaging({ baseUrl, driver, dbTarget, runId, sdkSecret, pool }) {
  const timings = {};
  let mark = Date.now();
  const lap = (name) => {
    timings[name] = Date.now() - mark;
    mark = Date.now();
  };
  if (pool.length < 2 * PAIR_COUNT + GROUP_SENDERS + 1) throw new Error('messaging fixtures: user pool too small');

  // 1. Friend pairs from the pool (users 0..39).
  const pairs = Array.from({ length: PAIR_COUNT }, (_, i) => ({ a: pool[2 * i], b: pool[2 * i + 1] }));
  await parallel(pairs, 10, (pair, i) => befriend(baseUrl, pair.a, pair.b, `bf.${runId}.${i}`));
  for (const pair of pairs) {
    pair.aConversation = directConversationId(pair.b.userId); // as A sees it
    pair.bConversation = directConversationId(pair.a.userId);
  }
  lap('friendPairsMs');

  // 2. Users of the other cases, then the group: the pool plus extra users, 200 members with the owner.
  const extraCount = GROUP_SIZE - pool.length;
  const specs = [
    { userId: `bs-${runId}-hub`, nickname: 'Bench Sync Hub' },
    { userId: `bh-${runId}-a`, nickname: 'Bench History A' },
    { userId: `bh-${runId}-b`, nickname: 'Bench History B' },
    ...Array.from({ length: Math.max(0, extraCount) }, (_, i) => ({
      userId: `bg-${runId}-${i}`,
      nickname: `Bench Member ${i}`,
    })),
  ];
  const [hub, historyA, historyB, ...extras] = await issueTokens(baseUrl, sdkSecret, specs);
  lap('usersMs');

  const owner = pool[2 * PAIR_COUNT];
  const memberUsers = [...pool.filter((u) => u !== owner), ...extras].slice(0, GROUP_SIZE - 1);
  const groupId = `bg${runId}`;
  const created = await callJson(baseUrl, 'POST', '/app/sdk/groups/create', owner.token, {
    group_id: groupId,
    name: 'Bench group',
    member_ids: memberUsers.map((u) => u.userId),
  });
  if (
    created &&
    created.group &&
    created.group.member_count !== undefined &&
    created.group.member_count !== GROUP_SIZE
  ) {
    throw new Error(`group create: member_count ${created.group.member_count}, expected ${GROUP_SIZE}`);
  }
  const group = {
    groupId,
    conversationId: `group_${groupId}`,
    members: memberUsers.length + 1,
    // Senders: plain members, not the owner (pool users 41..60).
    senders: pool.slice(2 * PAIR_COUNT + 1, 2 * PAIR_COUNT + 1 + GROUP_SENDERS),
  };
  lap('groupMs');

  await befriend(baseUrl, historyA, historyB, `bf.${runId}.history`);
  lap('historyFriendMs');

  // 3. Direct seeding: the sync user's conversations and the long history.
  const db = await openSeedDb(driver, dbTarget);
  let hubSeed;
  let historySeed;
  try {
    hubSeed = await db.transaction(() => seedHub(db, hub, runId));
    lap('seedHubMs');
    historySeed = await db.transaction(() => seedHistory(db, historyA, historyB));
    lap('seedHistoryMs');
    await db.transaction(() => refreshUnreadTotals(db));
  } finally {
    await db.close();
  }

  // 4. Check the seeded state through the API, and take the calibration trio.
  const synced = await callJson(baseUrl, 'POST', '/app/sdk/sync', hub.token, {});
  const problem = checkSync(synced, hubSeed);
  if (problem) throw new Error(`seeded sync user: ${problem}`);
  const history = {
    a: historyA,
    b: historyB,
    aConversation: directConversationId(historyB.userId),
    bConversation: directConversationId(historyA.userId),
    lastSeq: String(HISTORY_MESSAGES),
  };
  const stale = await callJson(
    baseUrl,
    'GET',
    messagesPath(history.aConversation, { lastSeq: '0', updatedAt: 0, deletionRevision: '0' }),
    historyA.token,
  );
  const resetProblem = checkResetWindow(stale, history.lastSeq);
  if (resetProblem) throw new Error(`seeded history: ${resetProblem}`);
  history.trio = { lastSeq: stale.last_seq, updatedAt: stale.updated_at, deletionRevision: stale.deletion_revision };
  // A stale known_last_seq (one behind) with the current other two: always a reset.
  history.staleTrio = { ...history.trio, lastSeq: String(HISTORY_MESSAGES - 1) };
  for (const [user, conversationId] of [
    [historyA, history.aConversation],
    [historyB, history.bConversation],
  ]) {
    const same = await callJson(baseUrl, 'GET', messagesPath(conversationId, history.trio), user.token);
    if (!same || same.outcome !== 'unchanged')
      throw new Error(
        `seeded history: calibration with the current trio answered ${same && same.outcome}, expected unchanged`,
      );
  }
  lap('checkMs');

  return {
    pairs,
    group,
    hub: { user: hub, ...hubSeed },
    history,
    summary: {
      friendPairs: pairs.length,
      groupMembers: group.members,
      groupSenders: group.senders.length,
      hubConversations: hubSeed.conversations,
      historyMessages: historySeed.messages,
      timingsMs: timings,
    },
  };
}

/** The sync reply of the seeded hub: a full first page, the right order, the seeded unread. */
function checkSync(data, hub) {
  if (!data || !data.conversations || !Array.isArray(data.conversations.items))
    return 'data.conversations.items missing';
  const items = data.conversations.items;
  if (items.length !== HOME_PAGE_SIZE) return `${items.length} items, expected ${HOME_PAGE_SIZE}`;
  if (data.conversations.has_more !== true || typeof data.conversations.next_cursor !== 'string')
    return 'has_more/next_cursor: expected more pages';
  if (!data.unread || data.unread.total !== hub.unreadTotal || data.unread.total_unmuted !== hub.unreadUnmuted) {
    return `unread ${JSON.stringify(data.unread)}, expected {total: ${hub.unreadTotal}, total_unmuted: ${hub.unreadUnmuted}}`;
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item.pinned !== i < hub.pinned)
      return `item ${i}: pinned ${item.pinned}, expected the ${hub.pinned} pinned conversations first`;
    if (!item.last_message || item.last_message.conversation_seq !== '2')
      return `item ${i}: last_message is not the seeded seq 2`;
    if (i > hub.pinned && item.last_activity_at > items[i - 1].last_activity_at)
      return `item ${i}: not ordered by last activity`;
  }
  return null;
}

/** A reset window of the history conversation: the latest 50 messages, in order, ending at last_seq. */
function checkResetWindow(data, lastSeq) {
  if (!data) return 'data missing';
  if (data.outcome !== 'reset') return `outcome ${data.outcome}, expected reset`;
  if (data.last_seq !== lastSeq) return `last_seq ${data.last_seq}, expected ${lastSeq}`;
  if (!Array.isArray(data.messages) || data.messages.length !== WINDOW_SIZE)
    return `${data.messages && data.messages.length} messages, expected ${WINDOW_SIZE}`;
  const last = BigInt(lastSeq);
  for (let i = 0; i < WINDOW_SIZE; i++) {
    const expected = String(last - BigInt(WINDOW_SIZE - 1 - i));
    if (data.messages[i].conversation_seq !== expected)
      return `message ${i}: seq ${data.messages[i].conversation_seq}, expected ${expected}`;
  }
  if (data.has_more_before !== true || data.has_more_after !== false) return 'has_more_before/after wrong';
  return null;
}

// ---------------------------------------------------------------------------------------------
// EXPLAIN (MariaDB/MySQL)

/**
 * Captures, through the general log, the statements the server runs for one request of each
 * messaging path (direct send, group send, sync, calibration unchanged/reset), and EXPLAINs
 * every SELECT, UPDATE and DELETE among them. The log is switched on only around the probes and
 * restored afterwards; only the server's own connections (those on the bench database) count.
 * Returns { statements: [{path, sql, kind, plan, scan}], scans, named }.
 */
async function explainMessaging({ baseUrl, mysqlUrl, messaging, runId }) {
  const mysql = require('mysql2/promise');
  const database = decodeURIComponent(new URL(mysqlUrl).pathname.replace(/^\//, ''));
  // dateStrings: log times are compared as the server's own NOW(6) text, microseconds included.
  const connection = await mysql.createConnection({
    uri: mysqlUrl,
    connectTimeout: 3000,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  const captured = [];
  let restoreLog = null;
  try {
    const [[before]] = await connection.query(
      'SELECT @@GLOBAL.general_log AS general_log, @@GLOBAL.log_output AS log_output',
    );
    const [[{ since }]] = await connection.query('SELECT NOW(6) AS since');
    if (String(before.log_output).toUpperCase() !== 'TABLE') await connection.query("SET GLOBAL log_output = 'TABLE'");
    if (Number(before.general_log) !== 1) await connection.query('SET GLOBAL general_log = 1');
    restoreLog = async () => {
      if (Number(before.general_log) !== 1) await connection.query('SET GLOBAL general_log = 0');
      if (String(before.log_output).toUpperCase() !== 'TABLE')
        await connection.query('SET GLOBAL log_output = ?', [before.log_output]);
    };

    const pair = messaging.pairs[0];
    const sender = messaging.group.senders[0];
    const h = messaging.history;
    const probes = [
      [
        'send (one-to-one)',
        () =>
          callJson(baseUrl, 'POST', '/app/sdk/messages/send', pair.a.token, {
            conversation_id: pair.aConversation,
            client_message_id: `bx.${runId}.explain.d`,
            type: 'text',
            content: { text: 'explain probe' },
          }),
      ],
      [
        'send (group)',
        () =>
          callJson(baseUrl, 'POST', '/app/sdk/messages/send', sender.token, {
            conversation_id: messaging.group.conversationId,
            client_message_id: `bx.${runId}.explain.g`,
            type: 'text',
            content: { text: 'explain probe' },
          }),
      ],
      ['sync', () => callJson(baseUrl, 'POST', '/app/sdk/sync', messaging.hub.user.token, {})],
      ['messages (unchanged)', () => callJson(baseUrl, 'GET', messagesPath(h.aConversation, h.trio), h.a.token)],
      ['messages (reset)', () => callJson(baseUrl, 'GET', messagesPath(h.aConversation, h.staleTrio), h.a.token)],
    ];
    let cursor = since;
    for (const [name, probe] of probes) {
      await probe();
      // The log is written as statements run; the request is answered after its last one.
      const [threads] = await connection.query(
        'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()',
        [database],
      );
      const ids = threads.map((t) => t.ID);
      const [[{ until }]] = await connection.query('SELECT NOW(6) AS until');
      if (ids.length) {
        const [rows] = await connection.query(
          // Prepared statements (sync's) are logged as 'Execute', with their parameters filled in.
          "SELECT event_time, argument FROM mysql.general_log WHERE event_time >= ? AND event_time <= ? AND command_type IN ('Query', 'Execute') AND thread_id IN (?) ORDER BY event_time",
          [cursor, until, ids],
        );
        for (const row of rows)
          captured.push({
            path: name,
            sql: Buffer.isBuffer(row.argument) ? row.argument.toString('utf8') : String(row.argument),
          });
      }
      cursor = until;
    }
  } catch (error) {
    if (restoreLog) await restoreLog().catch(() => undefined);
    await connection.end();
    throw error;
  }
  // EXPLAIN runs after the log is back to how it was.
  await restoreLog();

  try {
    const statements = [];
    const seen = new Set();
    for (const { path, sql } of captured) {
      const kind = (/^\s*(\w+)/.exec(sql) || [])[1];
      if (!kind || !['SELECT', 'UPDATE', 'DELETE'].includes(kind.toUpperCase())) continue;
      if (/^\s*SELECT\s+(VERSION\(\)|1\b|@@)/i.test(sql)) continue;
      const key = `${path}\u0000${sql}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const [plan] = await connection.query(`EXPLAIN ${sql}`).catch((error) => {
        throw new Error(`${error.message} (EXPLAIN of ${path}: ${sql.slice(0, 200)}…)`);
      });
      const rows = plan.map((r) => ({
        id: r.id,
        selectType: r.select_type,
        table: r.table,
        type: r.type,
        possibleKeys: r.possible_keys,
        key: r.key,
        rows: r.rows === null ? null : Number(r.rows),
        extra: r.Extra,
      }));
      if (kind.toUpperCase() === 'SELECT') {
        // MariaDB's ANALYZE runs the SELECT and adds the rows really read (r_rows) per table.
        try {
          const [analyzed] = await connection.query(`ANALYZE ${sql}`);
          analyzed.forEach((r, i) => {
            if (rows[i] && r.r_rows !== undefined && r.r_rows !== null) rows[i].rRows = Number(r.r_rows);
          });
        } catch {
          /* not MariaDB */
        }
      }
      // A derived table or union result (<derived2>, <union1,2>) is the statement's own temporary
      // result, read once in full by design; only stored tables count as scans.
      const stored = (r) => !/^<(derived|union|subquery)/.test(String(r.table));
      statements.push({
        path,
        kind: kind.toUpperCase(),
        sql,
        plan: rows,
        scan: rows.some((r) => r.type === 'ALL' && stored(r)),
      });
    }
    const named = {
      homeList:
        statements.find(
          (s) =>
            s.kind === 'SELECT' &&
            /FROM `?conversation_members`?/.test(s.sql) &&
            /ORDER BY (`?\w+`?\.)?`?pinned`? DESC/i.test(s.sql),
        ) || null,
      messageWindow:
        statements.find(
          (s) =>
            s.kind === 'SELECT' &&
            /FROM `messages`/.test(s.sql) &&
            /ORDER BY `m`\.`seq` DESC/i.test(s.sql) &&
            /LIMIT 50/.test(s.sql),
        ) || null,
      sendMemberUpdate:
        statements.find(
          (s) =>
            s.path.startsWith('send (one') &&
            s.kind === 'UPDATE' &&
            /^\s*UPDATE `?conversation_members`?/.test(s.sql) &&
            /`?conversation_id`?\s*=/.test(s.sql),
        ) || null,
      groupSendMemberUpdate:
        statements.find(
          (s) =>
            s.path.startsWith('send (group') &&
            s.kind === 'UPDATE' &&
            /^\s*UPDATE `?conversation_members`?/.test(s.sql),
        ) || null,
    };
    // Round trips per request, by statement kind (START TRANSACTION, SELECT, INSERT, UPDATE, COMMIT, ...).
    const perRequest = {};
    for (const { path, sql } of captured) {
      const kind = ((/^\s*(\w+)/.exec(sql) || [])[1] || '?').toUpperCase();
      const entry = (perRequest[path] = perRequest[path] || { total: 0, byKind: {}, sql: [] });
      entry.total++;
      entry.sql.push(sql);
      entry.byKind[kind] = (entry.byKind[kind] || 0) + 1;
    }
    return { captured: captured.length, perRequest, statements, scans: statements.filter((s) => s.scan).length, named };
  } finally {
    await connection.end();
  }
}

module.exports = {
  prepareMessaging,
  explainMessaging,
  // HTTP helpers of the fixtures, shared with the calls cases (bench/lib/calls.js).
  callJson,
  parallel,
  issueTokens,
  befriend,
  directConversationId,
  messagesPath,
  checkResetWindow,
  checkSync,
  PAIR_COUNT,
  GROUP_SIZE,
  HUB_CONVERSATIONS,
  HISTORY_MESSAGES,
  WINDOW_SIZE,
};
