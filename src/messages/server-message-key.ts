/**
 * The idempotency key of a message the service writes on a member's behalf (a call summary).
 * It shares the sender's key space (one unique key on sender and client_message_id) but starts
 * with "#", a character CLIENT_MESSAGE_ID_RULES never accepts: no key a client used or will use
 * can collide with it, so writing it can never fail on the unique key.
 */
export const serverMessageKey = (kind: 'call', id: string): string => `#${kind}:${id}`;
