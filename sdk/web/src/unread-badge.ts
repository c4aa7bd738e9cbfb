import type { UnreadReply, UnreadTotals } from '../../../src/contract/index.js';
import { ServerEvent } from './events.js';

export type { UnreadTotals };

/** The badge's cap: past it the local count is no longer exact (spec 4.7). */
export const UNREAD_CAP = 100;

interface ConversationUnread {
  unread: number;
  muted: boolean;
}

export interface BadgeState {
  /** Unread outside muted conversations, at most UNREAD_CAP. */
  count: number;
  /** The count reached the cap: show "99+", and the next decrease asks the service. */
  capped: boolean;
}

/**
 * The aggregate unread badge (spec 4.7). `sync` and `unread` give absolute values; in between,
 * real-time events move it: a one-to-one event carries the conversation's exact unread, a
 * group message counts one, a read sets the conversation's count. The local value is capped at
 * 100: once capped, a decrease cannot be computed locally, so it asks `unread` for the absolute
 * value (`recalibrate`), and so does a change in a conversation whose count it does not know.
 */
export class UnreadBadge {
  private readonly conversations = new Map<string, ConversationUnread>();
  private count = 0;
  private capped = false;
  private recalibrating: Promise<void> | null = null;

  constructor(
    private readonly myUserId: () => string | null,
    private readonly fetchAbsolute: () => Promise<Pick<UnreadReply, 'total' | 'total_unmuted' | 'conversations'>>,
    private readonly onChange: (state: BadgeState) => void = () => undefined,
  ) {}

  get state(): BadgeState {
    return { count: this.count, capped: this.capped };
  }

  /** An absolute aggregate (a `sync` reply), with the conversations of that page. */
  setAbsolute(
    totals: UnreadTotals,
    items: Array<{ conversation_id: string; unread: number; muted: boolean }> = [],
  ): void {
    for (const item of items) this.conversations.set(item.conversation_id, { unread: item.unread, muted: item.muted });
    this.setCount(totals.total_unmuted);
  }

  /** Asks the service for the absolute value; concurrent calls share one request. */
  recalibrate(): Promise<void> {
    this.recalibrating ??= this.fetchAbsolute()
      .then((reply) => this.setAbsolute(reply, reply.conversations))
      .finally(() => (this.recalibrating = null));
    return this.recalibrating;
  }

  onEvent(event: ServerEvent): void {
    const data = event.data as {
      conversation_id?: string;
      unread?: number | null;
      read_seq?: string;
      muted?: boolean;
      message?: { sender_id?: string; status?: string; conversation_id?: string };
    };
    const id = data.conversation_id ?? data.message?.conversation_id;
    if (!id) return;
    if (event.type === 'conversation.updated' && typeof data.muted === 'boolean') {
      const known = this.conversations.get(id);
      if (!known) return void this.recalibrate().catch(() => undefined);
      if (known.muted !== data.muted) {
        this.conversations.set(id, { ...known, muted: data.muted });
        this.move(data.muted ? -known.unread : known.unread);
      }
      return;
    }
    if (event.type === 'conversation.read' && typeof data.unread === 'number') {
      this.setConversation(id, data.unread);
      return;
    }
    if (event.type !== 'message.new') return;
    if (typeof data.unread === 'number') {
      // One-to-one: the exact count of the conversation after this message.
      this.setConversation(id, data.unread);
    } else if (data.message?.sender_id !== this.myUserId() && data.message?.status === 'normal') {
      // Group events carry no private state (spec 2.2): one more unread.
      const known = this.conversations.get(id);
      if (known) this.setConversation(id, known.unread + 1);
      else void this.recalibrate().catch(() => undefined);
    }
  }

  private setConversation(id: string, unread: number): void {
    const known = this.conversations.get(id);
    if (!known) {
      this.conversations.set(id, { unread, muted: false });
      // Its earlier count (and mute) are unknown: only the service can say what changed.
      void this.recalibrate().catch(() => undefined);
      return;
    }
    this.conversations.set(id, { ...known, unread });
    if (!known.muted) this.move(unread - known.unread);
  }

  private move(delta: number): void {
    if (delta === 0) return;
    if (delta < 0 && this.capped) {
      void this.recalibrate().catch(() => undefined);
      return;
    }
    this.setCount(this.count + delta);
  }

  private setCount(value: number): void {
    this.capped = value >= UNREAD_CAP;
    this.count = Math.max(0, Math.min(UNREAD_CAP, value));
    this.onChange(this.state);
  }
}
