import type { CursorPage } from './common.js';

export type MessageStatus = 'normal' | 'recalled' | 'deleted';

/** A message as its reader sees it; tombstones (recalled, deleted) keep `mid` and `conversation_seq`. */
export interface MessageReply {
  /** Message ID (decimal string). */
  mid: string;
  /** The reader's ID of the conversation. */
  conversation_id: string;
  /** Position in the conversation: 1, 2, 3… with no gap (decimal string). */
  conversation_seq: string;
  /** External user ID of the sender. */
  sender_id: string;
  client_message_id: string;
  /**
   * `text`, `image`, `file`, `custom`, `call` (a call summary written by the service) or
   * `notice` (a system notice from the host backend: NoticeContent, sender_id "").
   */
  type: string;
  /** null for recalled or deleted messages. */
  content: Record<string, unknown> | null;
  status: MessageStatus;
  created_at: number;
  /** Content version: a recall or delete raises it. The higher one wins. */
  updated_at: number;
}

/**
 * The content of a `notice` message: a system notice the host backend posts through the server
 * API. Rendered as a notice line, not a chat bubble; it has no sender and clients cannot send one.
 */
export interface NoticeContent {
  text: string;
  /** Host-defined details (a link, an action), ≤ 8192 characters as JSON. */
  data?: Record<string, unknown>;
}

/** `POST /app/sdk/messages/send`: a retry answers the original message and event. */
export interface SendReply {
  message: MessageReply;
  event_id: string;
}

/** `POST /app/sdk/messages/recall` and `/delete`: `event_id` is null when nothing changed. */
export interface MessageChangeReply {
  message: MessageReply;
  event_id: string | null;
}

/** `POST /app/sdk/messages/read`: the read position and the exact unread after it. */
export interface ReadReply {
  conversation_id: string;
  read_seq: string;
  unread: number;
  event_id: string | null;
}

/** unchanged: keep the current window; reset: replace it with `messages`; page: a history or locate window. */
export type WindowOutcome = 'unchanged' | 'reset' | 'page';

/** `GET /app/sdk/messages`. */
export interface MessageWindowReply {
  conversation_id: string;
  outcome: WindowOutcome;
  /** In sequence order; tombstones included. */
  messages: MessageReply[];
  /** Whether older / newer visible messages exist beyond this window; null when unchanged. */
  has_more_before: boolean | null;
  has_more_after: boolean | null;
  /** Calibration value: the last visible sequence. */
  last_seq: string;
  /** Calibration value: the content version (Unix ms, strictly increasing). */
  updated_at: number;
  /** Calibration value: raised by every delete. */
  deletion_revision: string;
  read_seq: string;
  unread: number;
}

/** `GET /app/sdk/messages/search`. */
export interface SearchPageReply extends CursorPage<MessageReply> {
  /** Pass as before_mid for the next page. */
  next_before_mid: string | null;
}
