import type { MessageReply } from './messages.js';

/** One entry of the home list, as its member sees it. */
export interface ConversationItem {
  conversation_id: string;
  type: 'direct' | 'group';
  title: string;
  avatar: string;
  peer_user_id: string | null;
  group_id: string | null;
  last_message: MessageReply | null;
  last_seq: string;
  read_seq: string;
  unread: number;
  pinned: boolean;
  muted: boolean;
  hidden: boolean;
  /** Content version (Unix ms): changes with every send, recall and delete. */
  updated_at: number;
  deletion_revision: string;
  last_activity_at: number;
  /** false after leaving or removal; the history up to then stays readable. */
  is_member: boolean;
}

/** `POST /app/sdk/conversations/pin`, `/mute` and `/hide`. */
export interface SettingsReply {
  conversation: ConversationItem;
  event_id: string | null;
}
