import type { CursorPage } from './common.js';
import type { ConversationItem } from './conversations.js';
import type { MediaLimits } from './media.js';

export type ConversationPageReply = CursorPage<ConversationItem>;

export interface UnreadTotals {
  total: number;
  /** The badge: unread outside muted conversations. */
  total_unmuted: number;
}

/** Every capability the operator can close; a closed one answers 1202 on its endpoints. */
export interface Capabilities {
  friends: boolean;
  groups: boolean;
  calls: boolean;
  search: boolean;
  media: boolean;
}

/** `POST /app/sdk/sync`: one page of the home list with the absolute unread totals. */
export interface SyncReply {
  conversations: ConversationPageReply;
  unread: UnreadTotals;
  capabilities: Capabilities;
  media_limits: MediaLimits;
  server_time: number;
}

export interface UnreadEntryReply {
  conversation_id: string;
  unread: number;
  muted: boolean;
}

/** `GET /app/sdk/unread`: absolute, not capped. */
export interface UnreadReply extends UnreadTotals {
  conversations: UnreadEntryReply[];
  /** More conversations have unread messages than are listed (at most 100 are). */
  has_more: boolean;
}
