import type { ConversationItem, GroupSummary, MessageReply, UserReply } from '../../../../src/contract/index.js';
import type { LocalMessage } from '../api/messages-api.js';
import type { ServerEventOf } from '../events.js';

/** One conversation of the home list, as `sync` answers it, with this client's local echo. */
export interface ConversationListItem extends ConversationItem {
  /**
   * The newest message this client is sending (`status: 'sending'`) or failed to send
   * (`'failed'`) in this conversation, to show as the preview until the stored message
   * arrives; null otherwise.
   */
  pending: LocalMessage | null;
}

/** The payload of a message event (new, recalled, deleted) as a client receives it. */
export type MessageEventData = ServerEventOf<'message.new' | 'message.recalled' | 'message.deleted'>['data'];

/**
 * What a recall or delete carries besides the contract's fields: the conversation's content
 * version, deletion revision and last sequence after the change (docs/messaging.md, "Message
 * events"). Absent from the client's own replies turned into events.
 */
interface TombstoneVersions {
  updated_at?: number;
  deletion_revision?: string;
  last_seq?: string;
}

/** An item's change and what the store must do about what it cannot compute. */
export interface ItemChange {
  item: ConversationListItem;
  /** The unread count may be wrong: ask the service for the absolute values. */
  recalibrate: boolean;
}

const big = (value: string): bigint => BigInt(value);

/** A conversation's ID as a message event names it: the private part's, else the message's. */
export function conversationOf(data: MessageEventData): string | undefined {
  return data.conversation_id ?? data.message.conversation_id;
}

/** The message as the home list shows it: named by the reader's own conversation ID. */
function asLastMessage(data: MessageEventData, conversationId: string): MessageReply {
  return { ...data.message, conversation_id: conversationId };
}

/**
 * `message.new`: the message becomes the last one, the conversation moves up (and shows again
 * if hidden), and unread follows: one-to-one events carry the exact count, a group message of
 * someone else counts one. A message at or below the item's `last_seq` is a duplicate or was
 * already in the page the item came from: nothing changes. Answers null when nothing changes.
 */
export function withNewMessage(
  item: ConversationListItem,
  data: MessageEventData,
  me: string | null,
): ConversationListItem | null {
  const message = data.message;
  const seq = big(message.conversation_seq);
  if (seq <= big(item.last_seq)) return withoutPending(item, message.client_message_id, message.sender_id === me);
  let unread = item.unread;
  // A read already past this message (one that arrived first) is the newer count: kept.
  const alreadyRead = seq <= big(item.read_seq);
  if (typeof data.unread === 'number') {
    if (!alreadyRead) unread = data.unread;
  } else if (message.sender_id !== me && message.status === 'normal' && !alreadyRead) {
    unread += 1;
  }
  const ownEcho =
    item.pending !== null && message.sender_id === me && item.pending.client_message_id === message.client_message_id;
  return {
    ...item,
    last_message: asLastMessage(data, item.conversation_id),
    last_seq: message.conversation_seq,
    unread,
    hidden: false,
    last_activity_at: Math.max(item.last_activity_at, message.created_at),
    updated_at: Math.max(item.updated_at, message.updated_at),
    pending: ownEcho ? null : item.pending,
  };
}

/** The local echo dropped once its stored message is known. */
function withoutPending(
  item: ConversationListItem,
  clientMessageId: string,
  mine: boolean,
): ConversationListItem | null {
  if (!mine || item.pending?.client_message_id !== clientMessageId) return null;
  return { ...item, pending: null };
}

/**
 * `message.recalled` / `message.deleted`: the tombstone replaces the last message when it is
 * that one, the content version moves, and an unread message of someone else stops counting.
 * One-to-one events carry the exact count. In a group the count drops by one when the message
 * surely counted (a recall: only normal messages are recalled; a delete of the message shown as
 * last while it was normal); otherwise (a delete of a message that may have been recalled
 * before) the change asks for recalibration. The event is skipped when the item's content
 * version already includes it.
 */
export function withTombstone(
  item: ConversationListItem,
  data: MessageEventData & TombstoneVersions,
  type: 'message.recalled' | 'message.deleted',
  me: string | null,
): ItemChange | null {
  const message = data.message;
  const version = data.updated_at ?? message.updated_at;
  if (version <= item.updated_at) return null;
  const seq = big(message.conversation_seq);
  const isLast = item.last_message?.mid === message.mid;
  let unread = item.unread;
  let recalibrate = false;
  if (typeof data.unread === 'number') {
    unread = data.unread;
  } else if (message.sender_id !== me && seq > big(item.read_seq)) {
    const wasNormal = type === 'message.recalled' ? true : isLast ? item.last_message?.status === 'normal' : undefined;
    if (wasNormal === undefined) recalibrate = true;
    else if (wasNormal) unread = Math.max(0, unread - 1);
  }
  return {
    item: {
      ...item,
      last_message: isLast ? asLastMessage(data, item.conversation_id) : item.last_message,
      unread,
      updated_at: version,
      deletion_revision: data.deletion_revision ?? item.deletion_revision,
    },
    recalibrate,
  };
}

/** `conversation.read` (this user, any device): the exact unread after a read further on; an older read changes nothing. */
export function withRead(
  item: ConversationListItem,
  data: ServerEventOf<'conversation.read'>['data'],
): ConversationListItem | null {
  if (big(data.read_seq) <= big(item.read_seq)) return null;
  return { ...item, read_seq: data.read_seq, unread: data.unread };
}

/** `conversation.updated`: this user's pin, mute and hide. */
export function withSettings(
  item: ConversationListItem,
  data: ServerEventOf<'conversation.updated'>['data'],
): ConversationListItem | null {
  if (item.pinned === data.pinned && item.muted === data.muted && item.hidden === data.hidden) return null;
  return { ...item, pinned: data.pinned, muted: data.muted, hidden: data.hidden };
}

/** A group event's group as the home list shows it: its name as the title, its avatar. */
export function withGroup(item: ConversationListItem, group: GroupSummary): ConversationListItem | null {
  if (item.title === group.name && item.avatar === group.avatar) return null;
  return { ...item, title: group.name, avatar: group.avatar };
}

/**
 * The user is no longer a member (left, removed, the group dismissed): the history up to then
 * stays readable, and so do its last message and unread of that time (no later message event
 * reaches a former member).
 */
export function asFormerMember(item: ConversationListItem): ConversationListItem | null {
  if (!item.is_member) return null;
  return { ...item, is_member: false, pending: null };
}

/** `user.profile_updated` of the peer of a one-to-one conversation: its title and avatar. */
export function withPeerProfile(item: ConversationListItem, user: UserReply): ConversationListItem | null {
  if (item.peer_user_id !== user.user_id) return null;
  if (item.title === user.nickname && item.avatar === user.avatar) return null;
  return { ...item, title: user.nickname, avatar: user.avatar };
}

/** The local echo of a send (pending or failed) as the preview; a later local message wins. */
export function withPending(item: ConversationListItem, message: LocalMessage): ConversationListItem | null {
  const current = item.pending;
  if (current === message) return null;
  if (current && current.client_message_id !== message.client_message_id && current.created_at > message.created_at)
    return null;
  return { ...item, pending: message };
}

/** Home-list order (the service's): pinned first, then by last activity, newest first. Stable for ties. */
export function homeOrder(a: ConversationListItem, b: ConversationListItem): number {
  if (a.pinned !== b.pinned) return a.pinned ? -1 : 1;
  return b.last_activity_at - a.last_activity_at;
}

/** An item of a `sync` page, with no local echo yet. */
export function fromPage(item: ConversationItem): ConversationListItem {
  return { ...item, pending: null };
}
