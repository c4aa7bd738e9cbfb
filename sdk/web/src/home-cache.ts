import type { ConversationItem } from '../../../src/contract/index.js';
import { ImMessage } from './conversation-window.js';

/** The part of a cached `sync` page that a recall or delete changes. */
export interface HomePageLike {
  conversations: { items: Array<Pick<ConversationItem, 'conversation_id'> & { last_message?: ImMessage | null }> };
}

/**
 * A recall or delete applied to a cached `sync` page: when the changed message is the
 * conversation's last one, its tombstone replaces it as `last_message`, as the service's next
 * `sync` shows it, so recalled text is not shown from the cache. Returns the new page, or null
 * when the page does not show that message or already shows this version (`updated_at`) or a
 * newer one.
 */
export function withTombstone<T extends HomePageLike>(page: T, conversationId: string, message: ImMessage): T | null {
  const items = page.conversations.items;
  const index = items.findIndex((item) => item.conversation_id === conversationId);
  const last = index < 0 ? null : items[index].last_message;
  if (!last || last.mid !== message.mid || last.updated_at > message.updated_at) return null;
  if (last.updated_at === message.updated_at && last.status === message.status) return null;
  const changed = { ...items[index], last_message: { ...message, conversation_id: last.conversation_id } };
  return {
    ...page,
    conversations: { ...page.conversations, items: items.map((item, i) => (i === index ? changed : item)) },
  };
}

/** Whether a stored value is a `sync` page this code can patch (the store may hold anything). */
export function isHomePage(value: unknown): value is HomePageLike {
  const conversations = (value as { conversations?: { items?: unknown } } | null)?.conversations;
  return Array.isArray(conversations?.items);
}
