import type { MessageStatus } from '../contract/messages';

export type { MessageStatus };

/** A stored message as other modules see it (see conversation.ts). */
export interface Message {
  /** The message's `mid`. */
  id: string;
  conversationId: string;
  seq: string;
  senderId: string;
  clientMessageId: string;
  type: string;
  /** JSON of the message body; emptied when the message becomes a tombstone. */
  content: string;
  /** SHA-256 of type and content as first sent: a client_message_id retry must match it. */
  contentHash: string;
  /** Lower-cased searchable text (text messages, file names); NULL for tombstones. */
  searchText: string | null;
  /** The outbox event of the send, so a retry answers with the same event_id. */
  eventId: string;
  status: MessageStatus;
  createdAt: number;
  updatedAt: number;
}
