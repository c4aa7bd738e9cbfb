/**
 * The idempotency key of a message the service writes on a member's behalf (a call summary).
 * It shares the sender's key space (one unique key on sender and client_message_id) but starts
 * with "#", a character CLIENT_MESSAGE_ID_RULES never accepts: no key a client used or will use
 * can collide with it, so writing it can never fail on the unique key.
 */
export const serverMessageKey = (kind: 'call' | 'host' | 'notice', id: string): string => `#${kind}:${id}`;

/**
 * The sender of system notices (server API): no user has ID 0, so a notice has no sender
 * (its sender_id reads as ""), can be recalled by nobody, and its key space is its own.
 */
export const SYSTEM_SENDER = { internalId: '0', externalId: '' } as const;
