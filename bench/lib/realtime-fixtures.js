'use strict';

/**
 * Fixtures of the real-time benchmark, made through the HTTP API as clients would: users with
 * IM tokens (POST /app/sdk/token creates them), one group of GROUP_SIZE members (the first
 * users), one-to-one pairs of the following users (friend request + accept, which also
 * creates each pair's conversation), and the pair of the resume case (the last two users).
 */

const GROUP_SIZE = 200;

// The HTTP helpers of the messaging fixtures (callJson, parallel, befriend, conversation IDs).
const { callJson, parallel, befriend, directConversationId } = require('./messaging');

/**
 * @param {object} o
 * @param {number} o.users       users in all (the memory case connects this many sockets)
 * @param {number} o.fanoutUsers the group's members plus the pairs' users (even count after the group)
 * @returns {{users, group: {members, conversationId}, pairs, resumePair, timingsMs}}
 *   where members and pair ends are indexes into `users`.
 */
async function seedRealtime({ baseUrl, sdkSecret, runId, users: count, fanoutUsers }) {
  if (fanoutUsers <= GROUP_SIZE || (fanoutUsers - GROUP_SIZE) % 2 !== 0)
    throw new Error('realtime fixtures: fan-out users must be the group plus an even number');
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
    const data = await callJson(baseUrl, 'POST', '/app/sdk/token', sdkSecret, {
      user_id: userId,
      nickname: `Realtime User ${i}`,
    });
    if (!data || !data.user || data.user.user_id !== userId || typeof data.token !== 'string')
      throw new Error(`token for ${userId}: unexpected reply`);
    users[i] = { userId, token: data.token };
  });
  lap('tokensMs');

  const groupId = `rg${runId}`;
  const members = Array.from({ length: GROUP_SIZE }, (_, i) => i);
  const created = await callJson(baseUrl, 'POST', '/app/sdk/groups/create', users[0].token, {
    group_id: groupId,
    name: 'Bench realtime group',
    member_ids: members.slice(1).map((i) => users[i].userId),
  });
  if (
    created &&
    created.group &&
    created.group.member_count !== undefined &&
    created.group.member_count !== GROUP_SIZE
  ) {
    throw new Error(`group create: member_count ${created.group.member_count}, expected ${GROUP_SIZE}`);
  }
  lap('groupMs');

  const pairs = [];
  for (let i = GROUP_SIZE; i < fanoutUsers; i += 2) {
    pairs.push({
      a: i,
      b: i + 1,
      aConversation: directConversationId(users[i + 1].userId),
      bConversation: directConversationId(users[i].userId),
    });
  }
  const resumePair = { a: count - 2, b: count - 1, aConversation: directConversationId(users[count - 1].userId) };
  await parallel([...pairs, resumePair], 20, (pair, k) =>
    befriend(baseUrl, users[pair.a], users[pair.b], `rtf.${runId}.${k}`),
  );
  lap('pairsMs');

  return { users, group: { members, conversationId: `group_${groupId}` }, pairs, resumePair, timingsMs };
}

module.exports = { seedRealtime, GROUP_SIZE };
