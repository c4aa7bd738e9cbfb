import { createHash } from 'node:crypto';

/** The width of messages.client_message_id. */
const MAX_KEY_LENGTH = 64;

/**
 * The idempotency key of a message the service writes (a call summary, a server API send or
 * notice, keyed by the call or the request_id).
 * It shares the sender's key space (one unique key on sender and client_message_id) but starts
 * with "#", a character CLIENT_MESSAGE_ID_RULES never accepts: no key a client used or will use
 * can collide with it, so writing it can never fail on the unique key.
 */
export function serverMessageKey(kind: 'call' | 'host' | 'notice', id: string): string {
  const key = `#${kind}:${id}`;
  if (key.length <= MAX_KEY_LENGTH) return key;
  // A server API request_id may take the whole 64 characters: a long one is keyed by its hash,
  // marked by a second "#" that no request_id contains, so it never meets a literal key.
  return `#${kind}:#${createHash('sha256').update(id).digest('base64url').slice(0, 40)}`;
}

/**
 * The sender of system notices (server API): no user has ID 0, so a notice has no sender
 * (its sender_id reads as ""), can be recalled by nobody, and its key space is its own.
 */
export const SYSTEM_SENDER = { internalId: '0', externalId: '' } as const;
