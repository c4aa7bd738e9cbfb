import type { GroupSummary, SyncReply, UnreadReply, UnreadTotals } from '../../../../src/contract/index.js';
import type { LocalMessage } from '../api/messages-api.js';
import type { ClientEventMap } from '../events.js';
import {
  ConversationListItem,
  asFormerMember,
  conversationOf,
  fromPage,
  homeOrder,
  withGroup,
  withNewMessage,
  withPeerProfile,
  withPending,
  withRead,
  withSettings,
  withTombstone,
} from './list-item-updates.js';

/** A server event, discriminated by type. */
export type ListEvent = ClientEventMap['event'];

/**
 * What an event left for the store to ask the service, because the list cannot compute it:
 * - `reload`: a conversation the list does not hold appeared or moved up (a new friend or
 *   group, a rejoined group, one shown again, a message in one beyond the loaded pages); the
 *   first page says where and how it shows, with the absolute unread;
 * - `unread`: unread moved by an amount the list cannot know (a read or mute beyond the loaded
 *   pages, a group delete of a message that may have been recalled before); `unread` answers.
 */
export type ListNeed = 'reload' | 'unread' | null;

/**
 * The home list's data: every conversation known (hidden ones too, whose unread still counts),
 * the unread totals, and the display order. Events and pages go in; the store around it does
 * the asking and the publishing.
 */
export class ListState {
  private known = new Map<string, ConversationListItem>();
  /** The display order last computed, which ties keep (the service's tiebreak is internal). */
  private order: string[] = [];
  private totals: UnreadTotals = { total: 0, total_unmuted: 0 };
  /** Changes with every event that moves unread: an `unread` reply that crossed one is stale. */
  unreadEpoch = 0;

  constructor(private readonly me: () => string | null) {}

  /** The unread totals over every conversation of the user. */
  get unread(): UnreadTotals {
    return this.totals;
  }

  get(conversationId: string): ConversationListItem | undefined {
    return this.known.get(conversationId);
  }

  /** The shown conversations (not hidden) in display order: pinned first, then by last activity. */
  shown(): ConversationListItem[] {
    const rank = new Map(this.order.map((id, index) => [id, index]));
    const items = [...this.known.values()].filter((item) => !item.hidden);
    items.sort((a, b) => homeOrder(a, b) || (rank.get(a.conversation_id) ?? -1) - (rank.get(b.conversation_id) ?? -1));
    this.order = items.map((item) => item.conversation_id);
    return items;
  }

  /**
   * A first page. `replace` keeps nothing else (recovery: what the store held may have missed
   * events). `merge` keeps the hidden conversations and, when the page is not the whole list,
   * those that sort after it (events kept them current); one that sorts inside the page but is
   * not in it is gone (hidden on another device).
   */
  takeFirstPage(page: SyncReply, mode: 'replace' | 'merge'): void {
    const items = page.conversations.items.map(fromPage);
    const inPage = new Set(items.map((item) => item.conversation_id));
    const previous = this.known;
    this.known = new Map();
    // The local echo is this client's own state, which no page has.
    for (const item of items)
      this.known.set(item.conversation_id, { ...item, pending: previous.get(item.conversation_id)?.pending ?? null });
    if (mode === 'merge') {
      const last = items.length > 0 ? items[items.length - 1] : undefined;
      for (const [id, item] of previous) {
        if (inPage.has(id)) continue;
        if (item.hidden || (page.conversations.has_more && last !== undefined && homeOrder(item, last) >= 0))
          this.known.set(id, item);
      }
    }
    this.order = items.map((item) => item.conversation_id);
    this.totals = { ...page.unread };
    this.unreadEpoch += 1;
  }

  /** A later page: conversations held already are current (events moved them), so the page's copy is older. */
  takeMorePage(page: SyncReply): void {
    for (const item of page.conversations.items)
      if (!this.known.has(item.conversation_id)) this.known.set(item.conversation_id, fromPage(item));
  }

  /** An `unread` reply: absolute totals, and the counts of the conversations it lists (the others have none). */
  takeUnread(reply: UnreadReply): void {
    const listed = new Map(reply.conversations.map((entry) => [entry.conversation_id, entry]));
    for (const item of this.known.values()) {
      const entry = listed.get(item.conversation_id);
      const unread = entry ? entry.unread : reply.has_more ? item.unread : 0;
      const muted = entry ? entry.muted : item.muted;
      if (unread !== item.unread || muted !== item.muted)
        this.known.set(item.conversation_id, { ...item, unread, muted });
    }
    this.totals = { total: reply.total, total_unmuted: reply.total_unmuted };
  }

  /** The local echo of a send (`message.pending`, `message.failed`). */
  local(message: LocalMessage): void {
    const item = this.known.get(message.conversation_id);
    if (item) this.put(withPending(item, message));
  }

  /** A send stored (`message.sent`) or discarded: its echo goes (a stored message comes as `message.new`). */
  sent(local: LocalMessage): void {
    const item = this.known.get(local.conversation_id);
    if (item && item.pending?.client_message_id === local.client_message_id) this.put({ ...item, pending: null });
  }

  /** One event into the list; answers what the list could not compute from it. */
  apply(event: ListEvent): ListNeed {
    const me = this.me();
    switch (event.type) {
      case 'message.new': {
        const id = conversationOf(event.data);
        if (id === undefined) return null;
        const item = this.known.get(id);
        if (!item) return 'reload';
        this.put(withNewMessage(item, event.data, me));
        return null;
      }
      case 'message.recalled':
      case 'message.deleted': {
        const id = conversationOf(event.data);
        const item = id === undefined ? undefined : this.known.get(id);
        if (!item) return 'unread';
        const change = withTombstone(item, event.data, event.type, me);
        if (change) this.put(change.item);
        return change?.recalibrate ? 'unread' : null;
      }
      case 'conversation.read': {
        const item = this.known.get(event.data.conversation_id);
        if (!item) return 'unread';
        this.put(withRead(item, event.data));
        return null;
      }
      case 'conversation.updated': {
        const item = this.known.get(event.data.conversation_id);
        if (item) this.put(withSettings(item, event.data));
        // Shown again, or muted or unmuted, beyond what the list holds.
        return item ? null : event.data.hidden ? 'unread' : 'reload';
      }
      case 'group.created':
        return this.group(event.data, 'joined');
      case 'group.members_added':
        return this.group(event.data, event.data.user_ids.includes(me ?? '') ? 'joined' : null);
      case 'group.member_joined':
        return this.group(event.data, event.data.user_id === me ? 'joined' : null);
      case 'group.members_removed':
        return this.group(event.data, event.data.user_ids.includes(me ?? '') ? 'gone' : null);
      case 'group.member_left':
        return this.group(event.data, event.data.user_id === me ? 'gone' : null);
      case 'group.dismissed':
        return this.group(event.data, 'gone');
      case 'group.updated':
      case 'group.owner_transferred':
        return this.group(event.data, null);
      case 'friend.added':
        // A new one-to-one conversation (after a re-friending, the old one is held already).
        return this.known.has(event.data.friend.conversation_id) ? null : 'reload';
      case 'user.profile_updated':
        for (const item of this.known.values())
          if (item.type === 'direct') this.put(withPeerProfile(item, event.data.user));
        return null;
      default:
        return null;
    }
  }

  /**
   * A group event: the group's name and avatar, and the user's membership when the event is
   * about them (`joined`: created with them, added, joined; `gone`: left, removed, dismissed).
   */
  private group(
    data: { conversation_id: string; group: GroupSummary },
    membership: 'joined' | 'gone' | null,
  ): ListNeed {
    const item = this.known.get(data.conversation_id);
    // A new conversation, or a rejoined one whose visible history starts again.
    if (!item || (membership === 'joined' && !item.is_member)) return membership === 'joined' ? 'reload' : null;
    const renamed = withGroup(item, data.group) ?? item;
    this.put(membership === 'gone' ? (asFormerMember(renamed) ?? renamed) : renamed);
    return null;
  }

  /** An item's new version, with the totals moved by its unread and mute. */
  private put(next: ConversationListItem | null): void {
    if (!next) return;
    const previous = this.known.get(next.conversation_id);
    this.known.set(next.conversation_id, next);
    if (!previous) return;
    const before = previous.muted ? 0 : previous.unread;
    const after = next.muted ? 0 : next.unread;
    if (previous.unread === next.unread && before === after) return;
    this.unreadEpoch += 1;
    this.totals = {
      total: Math.max(0, this.totals.total + next.unread - previous.unread),
      total_unmuted: Math.max(0, this.totals.total_unmuted + after - before),
    };
  }
}
