import { USER_ID_RULES } from '../common/validation/field-rules';
import { textProblem } from '../common/validation/text-field.decorator';

/**
 * Conversation IDs as clients see them (spec 2.1): one-to-one `friend_` + unpadded Base64URL
 * of the peer's external user ID (so each side sees its own ID for the one conversation),
 * group `group_` + public group ID.
 */
export type ConversationRef = { type: 'direct'; peerExternalId: string } | { type: 'group'; publicGroupId: string };

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const GROUP_ID = /^[A-Za-z0-9._-]{1,32}$/;

export function directConversationId(peerExternalId: string): string {
  return `friend_${Buffer.from(peerExternalId, 'utf8').toString('base64url')}`;
}

export function groupConversationId(publicGroupId: string): string {
  return `group_${publicGroupId}`;
}

/** Parses a conversation ID; null when it is not one the server could have issued. */
export function parseConversationId(value: string): ConversationRef | null {
  if (value.startsWith('friend_')) {
    const encoded = value.slice('friend_'.length);
    if (!BASE64URL.test(encoded)) return null;
    const peer = Buffer.from(encoded, 'base64url').toString('utf8');
    // Only the canonical encoding is accepted, so one conversation has exactly one ID.
    if (directConversationId(peer) !== value || textProblem(peer, USER_ID_RULES) !== null) return null;
    return { type: 'direct', peerExternalId: peer };
  }
  if (value.startsWith('group_')) {
    const publicGroupId = value.slice('group_'.length);
    return GROUP_ID.test(publicGroupId) ? { type: 'group', publicGroupId } : null;
  }
  return null;
}

/** The unique key of the one-to-one conversation between two internal user IDs. */
export function directKey(userA: string, userB: string): string {
  const [low, high] = BigInt(userA) < BigInt(userB) ? [userA, userB] : [userB, userA];
  return `${low}:${high}`;
}
