'use strict';

/**
 * Fixtures of the real-time benchmark, made through the HTTP API as clients would: users with
 * IM tokens (POST /app/sdk/token creates them), one group of GROUP_SIZE members (the first
 * users), one-to-one pairs of the following users (friend request + accept, which also
 * creates each pair's conversation), and the pair of the resume case (the last two users).
 */

const GROUP_SIZE = 200;

async function callJson(baseUrl, urlPath, bearer, body) {
  const response = await fetch(baseUrl + urlPath, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`POST ${urlPath}: HTTP ${response.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (response.status !== 200 || json.code !== 0) throw new Error(`POST ${urlPath}: HTTP ${response.status} ${text.slice(0, 300)}`);
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

/** The ID of the one-to-one conversation with `peerExternalId`, as its other member sees it. */
function directConversationId(peerExternalId) {
  return `friend_${Buffer.from(peerExternalId, 'utf8').toString('base64url')}`;
}

async function befriend(baseUrl, a, b, requestId) {
  const sent = await callJson(baseUrl, '/app/sdk/friends/requests', a.token, { user_id: b.userId, request_id: requestId, message: 'bench' });
  if (!sent || !sent.request || typeof sent.request.id !== 'string') throw new Error(`friend request ${a.userId} -> ${b.userId}: no request id in reply`);
  await callJson(baseUrl, '/app/sdk/friends/requests/accept', b.token, { id: sent.request.id });
}

/**
 * @param {object} o
 * @param {number} o.users       users in all (the memory case connects this many sockets)
 * @param {number} o.fanoutUsers the group's members plus the pairs' users (even count after the group)
 * @returns {{users, group: {members, conversationId}, pairs, resumePair, timingsMs}}
 *   where members and pair ends are indexes into `users`.
 */
async function seedRealtime({ baseUrl, sdkSecret, runId, users: count, fanoutUsers }) {
  if (fanoutUsers <= GROUP_SIZE || (fanoutUsers - GROUP_SIZE) % 2 !== 0) throw new Error('realtime fixtures: fan-out users must be the group plus an even number');
  if (count < fanoutUsers + 2) throw new Error('realtime fixtures: too few users for the resume pair');
  const timingsMs = {};
  let mark = Date.now();
  const lap = (name) => {
    timingsMs[name] = Date.now() - mark;
    mark = Date.now();
  };

  const users = new Array(count);
  await parallel(users, 20, async (_, i) => {
    const userId = `rt-${runId}-${String(i).padStart(4, '0')}`;
    const data = await callJson(baseUrl, '/app/sdk/token', sdkSecret, { user_id: userId, nickname: `Realtime User ${i}` });
    if (!data || !data.user || data.user.user_id !== userId || typeof data.token !== 'string') throw new Error(`token for ${userId}: unexpected reply`);
    users[i] = { userId, token: data.token };
  });
  lap('tokensMs');

  const groupId = `rg${runId}`;
  const members = Array.from({ length: GROUP_SIZE }, (_, i) => i);
  const created = await callJson(baseUrl, '/app/sdk/groups/create', users[0].token, {
    group_id: groupId,
    name: 'Bench realtime group',
    member_ids: members.slice(1).map((i) => users[i].userId),
  });
  if (created && created.group && created.group.member_count !== undefined && created.group.member_count !== GROUP_SIZE) {
    throw new Error(`group create: member_count ${created.group.member_count}, expected ${GROUP_SIZE}`);
  }
  lap('groupMs');

  const pairs = [];
  for (let i = GROUP_SIZE; i < fanoutUsers; i += 2) {
    pairs.push({ a: i, b: i + 1, aConversation: directConversationId(users[i + 1].userId), bConversation: directConversationId(users[i].userId) });
  }
  const resumePair = { a: count - 2, b: count - 1, aConversation: directConversationId(users[count - 1].userId) };
  await parallel([...pairs, resumePair], 20, (pair, k) => befriend(baseUrl, users[pair.a], users[pair.b], `rtf.${runId}.${k}`));
  lap('pairsMs');

  return { users, group: { members, conversationId: `group_${groupId}` }, pairs, resumePair, timingsMs };
}

module.exports = { seedRealtime, GROUP_SIZE };
