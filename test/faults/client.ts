// The API as a client of the fault tests uses it: users, friends, a group, sends retried with the
// same client_message_id until acknowledged, and the exactly-once check of a conversation.
import { randomBytes, randomUUID } from 'node:crypto';
import { sleep } from './processes';
import { FAULT_SECRETS, HttpReply, ServiceProcess } from './service-process';

export interface FaultUser {
  userId: string;
  id: string;
  token: string;
}

export const randomSuffix = (): string => randomBytes(6).toString('hex');
export const uuid = (): string => randomUUID();
export const friendConversationId = (peer: { userId: string }): string =>
  `friend_${Buffer.from(peer.userId).toString('base64url')}`;

/** data of a code-0 reply, or an error naming the reply. */
export function ok<T>(reply: HttpReply, what: string): T {
  if (reply.status !== 200 || reply.body.code !== 0)
    throw new Error(`${what}: HTTP ${reply.status} ${reply.text.slice(0, 500)}`);
  return reply.body.data as T;
}

export async function issueUser(service: ServiceProcess, prefix = 'f'): Promise<FaultUser> {
  const userId = `${prefix}_${randomSuffix()}`;
  const reply = await service.request('POST', '/app/sdk/token', {
    headers: { Authorization: `Bearer ${FAULT_SECRETS.SDK_SECRET}` },
    body: { user_id: userId, nickname: `Nick ${userId.slice(-4)}` },
  });
  const data = ok<{ user: { id: string }; token: string }>(reply, `token for ${userId}`);
  return { userId, id: data.user.id, token: data.token };
}

/** Two requests crossing make a friendship at once (the second accepts the first). */
export async function makeFriends(service: ServiceProcess, a: FaultUser, b: FaultUser): Promise<void> {
  ok(
    await service.request('POST', '/app/sdk/friends/requests', {
      token: a.token,
      body: { user_id: b.userId, request_id: `fr-${randomSuffix()}` },
    }),
    'friend request a->b',
  );
  const reply = ok<{ friend: unknown }>(
    await service.request('POST', '/app/sdk/friends/requests', {
      token: b.token,
      body: { user_id: a.userId, request_id: `fr-${randomSuffix()}` },
    }),
    'friend request b->a',
  );
  if (!reply.friend) throw new Error('the crossing friend requests did not make a friendship');
}

export async function createGroup(service: ServiceProcess, owner: FaultUser, members: FaultUser[]): Promise<string> {
  const data = ok<{ group: { conversation_id: string } }>(
    await service.request('POST', '/app/sdk/groups/create', {
      token: owner.token,
      body: { name: `Faults ${randomSuffix()}`, member_ids: members.map((m) => m.userId) },
    }),
    'group create',
  );
  return data.group.conversation_id;
}

export interface StoredMessage {
  mid: string;
  conversation_seq: string;
  sender_id: string;
  client_message_id: string;
  type: string;
  content: { text?: string } | null;
  status: string;
}

/** Every message of a conversation as `reader` sees it, in sequence order (pages of after_seq). */
export async function readAll(
  service: ServiceProcess,
  reader: FaultUser,
  conversationId: string,
): Promise<{ messages: StoredMessage[]; lastSeq: number }> {
  const messages: StoredMessage[] = [];
  let after = '0';
  let lastSeq = 0;
  for (let guard = 0; guard < 1000; guard += 1) {
    const window = ok<{ messages: StoredMessage[]; has_more_after: boolean; last_seq: string }>(
      await service.request('GET', '/app/sdk/messages', {
        token: reader.token,
        query: { conversation_id: conversationId, after_seq: after },
      }),
      `messages of ${conversationId} after ${after}`,
    );
    messages.push(...window.messages);
    lastSeq = Number(window.last_seq);
    if (!window.has_more_after || window.messages.length === 0) break;
    after = window.messages[window.messages.length - 1].conversation_seq;
  }
  return { messages, lastSeq };
}

export interface Ack {
  sender: FaultUser;
  conversationId: string;
  clientMessageId: string;
  text: string;
  mid: string;
  seq: number;
}

/**
 * What a client does: send, and on a network error or a 503/1500 retry with the same
 * client_message_id until acknowledged. Any other reply fails.
 */
export async function sendUntilAcked(
  service: ServiceProcess,
  sender: FaultUser,
  conversationId: string,
  clientMessageId: string,
  text: string,
  stats: { retries: number; networkErrors: number; unavailable: number } = {
    retries: 0,
    networkErrors: 0,
    unavailable: 0,
  },
  deadlineMs = 90_000,
): Promise<Ack> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 0; ; attempt += 1) {
    if (attempt > 0) {
      stats.retries += 1;
      await sleep(Math.min(50 * attempt, 300));
    }
    if (Date.now() > deadline) throw new Error(`send ${clientMessageId} not acknowledged within ${deadlineMs} ms`);
    let reply: HttpReply;
    try {
      reply = await service.request('POST', '/app/sdk/messages/send', {
        token: sender.token,
        body: { conversation_id: conversationId, client_message_id: clientMessageId, type: 'text', content: { text } },
        timeoutMs: 10_000,
      });
    } catch {
      stats.networkErrors += 1;
      continue;
    }
    if (reply.status === 200 && reply.body.code === 0) {
      const message = (reply.body.data as { message: StoredMessage }).message;
      return { sender, conversationId, clientMessageId, text, mid: message.mid, seq: Number(message.conversation_seq) };
    }
    if (reply.status === 503 && reply.body.code === 1500) {
      stats.unavailable += 1;
      continue;
    }
    throw new Error(`send ${clientMessageId} refused: HTTP ${reply.status} ${reply.text.slice(0, 300)}`);
  }
}

/**
 * Checks one conversation against the acknowledgements: sequences 1..N with no gap or
 * duplicate, every acknowledged message stored once with its content, nothing else stored.
 */
export async function expectExactlyOnce(
  service: ServiceProcess,
  reader: FaultUser,
  conversationId: string,
  acks: Ack[],
): Promise<void> {
  const { messages, lastSeq } = await readAll(service, reader, conversationId);
  const seqs = messages.map((m) => Number(m.conversation_seq));
  const expectedSeqs = Array.from({ length: acks.length }, (_, i) => i + 1);
  expect({ conversationId, seqs, lastSeq }).toEqual({ conversationId, seqs: expectedSeqs, lastSeq: acks.length });
  const byMid = new Map(messages.map((m) => [m.mid, m]));
  const keys = new Set(messages.map((m) => `${m.sender_id}/${m.client_message_id}`));
  expect({ conversationId, distinctSenderKeys: keys.size }).toEqual({
    conversationId,
    distinctSenderKeys: messages.length,
  });
  const problems: string[] = [];
  for (const ack of acks) {
    const stored = byMid.get(ack.mid);
    if (!stored) {
      problems.push(`acknowledged ${ack.clientMessageId} (mid ${ack.mid}) is missing`);
      continue;
    }
    const seen = {
      seq: Number(stored.conversation_seq),
      sender: stored.sender_id,
      cmid: stored.client_message_id,
      text: stored.content?.text,
      status: stored.status,
    };
    const want = {
      seq: ack.seq,
      sender: ack.sender.userId,
      cmid: ack.clientMessageId,
      text: ack.text,
      status: 'normal',
    };
    if (JSON.stringify(seen) !== JSON.stringify(want))
      problems.push(`mid ${ack.mid}: stored ${JSON.stringify(seen)}, acknowledged ${JSON.stringify(want)}`);
  }
  expect({ conversationId, problems }).toEqual({ conversationId, problems: [] });
}
