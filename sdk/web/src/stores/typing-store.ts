import { conversationOf } from './list-item-updates.js';
import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/**
 * How long a `conversation.typing` shows someone as typing without another one. The service
 * relays at most one notice per second per typer and conversation (docs/realtime.md), counted
 * in fixed one-second windows, so a typer who keeps typing is heard about every 1 to 2 seconds;
 * 3 seconds covers one relay lost to that window's edge.
 */
export const TYPING_EXPIRY_MS = 3000;

/** {@link TypingStore.notify} sends at most one notice per this interval and conversation: the service relays no more. */
export const TYPING_NOTIFY_INTERVAL_MS = 1000;

/**
 * What {@link TypingStore} shows: conversation ID → the external IDs of who is typing there,
 * in the order they started. Conversations where nobody types are absent. A new map at every change.
 */
export type TypingSnapshot = ReadonlyMap<string, readonly string[]>;

const EMPTY: TypingSnapshot = new Map();
const NOBODY: readonly string[] = Object.freeze([]);

/**
 * Who is typing in each conversation, from `conversation.typing` (ephemeral, never replayed),
 * and the user's own typing notices, throttled to what the service relays.
 *
 * Someone shows as typing for {@link TYPING_EXPIRY_MS} after their last notice, or until their
 * message arrives (`message.new` from them in that conversation). The user themself is never
 * shown (the service does not relay one's typing to one's own devices either).
 */
export class TypingStore extends Observable<TypingSnapshot> {
  /** conversation → typer → when their entry expires (`deps.now()` time). */
  private expiries = new Map<string, Map<string, number>>();
  /** conversation → when this client last sent a notice there. */
  private sent = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  /**
   * The client makes its stores (`client.conversationList`, `presence`, `typing`, `callState`).
   * @hidden
   */
  constructor(private readonly deps: StoreDeps) {
    super(EMPTY);
    deps.on('conversation.typing', ({ data }) => {
      if (data.user_id === deps.userId()) return;
      this.typing(data.conversation_id, data.user_id);
    });
    deps.on('message.new', ({ data }) => {
      const conversationId = conversationOf(data);
      if (conversationId !== undefined) this.stopped(conversationId, data.message.sender_id);
    });
  }

  /** Who is typing in a conversation (external user IDs), in the order they started; the same empty array when nobody. */
  usersIn(conversationId: string): readonly string[] {
    return this.getSnapshot().get(conversationId) ?? NOBODY;
  }

  /**
   * Call on each keystroke in a conversation's composer: sends `conversation.typing` at most
   * once per {@link TYPING_NOTIFY_INTERVAL_MS} per conversation (the rest are dropped, as the
   * service would drop them). Resolves true when a notice went out and the service took it;
   * false when it was throttled, refused (e.g. not a member, 1201; no longer friends, 1203) or
   * there was no connection. Never rejects.
   */
  async notify(conversationId: string): Promise<boolean> {
    const now = this.deps.now();
    const last = this.sent.get(conversationId);
    if (last !== undefined && now - last < TYPING_NOTIFY_INTERVAL_MS && now >= last) return false;
    this.sent.set(conversationId, now);
    for (const [id, at] of this.sent) if (now - at >= TYPING_NOTIFY_INTERVAL_MS) this.sent.delete(id);
    try {
      const ack = await this.deps.sendTyping(conversationId);
      return ack.code === 0;
    } catch {
      // Nothing went out (no connection): the next keystroke may try at once.
      if (this.sent.get(conversationId) === now) this.sent.delete(conversationId);
      return false;
    }
  }

  /** Forgets everything (logout, or another user logged in). */
  reset(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.expiries = new Map();
    this.sent = new Map();
    this.set(EMPTY);
  }

  private typing(conversationId: string, userId: string): void {
    let typers = this.expiries.get(conversationId);
    if (!typers) this.expiries.set(conversationId, (typers = new Map()));
    const known = typers.has(userId);
    typers.set(userId, this.deps.now() + TYPING_EXPIRY_MS);
    if (!known) this.publish();
    this.schedule();
  }

  private stopped(conversationId: string, userId: string): void {
    const typers = this.expiries.get(conversationId);
    if (!typers?.delete(userId)) return;
    if (typers.size === 0) this.expiries.delete(conversationId);
    this.publish();
    this.schedule();
  }

  /** One timer, for the next expiry. */
  private schedule(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    let next = Infinity;
    for (const typers of this.expiries.values()) for (const at of typers.values()) next = Math.min(next, at);
    if (next === Infinity) return;
    this.timer = setTimeout(() => this.expire(), Math.max(0, next - this.deps.now()));
    // An indicator is no reason to keep a Node process (a bot, a test) alive.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private expire(): void {
    this.timer = null;
    const now = this.deps.now();
    let changed = false;
    for (const [conversationId, typers] of this.expiries) {
      for (const [userId, at] of typers)
        if (at <= now) {
          typers.delete(userId);
          changed = true;
        }
      if (typers.size === 0) this.expiries.delete(conversationId);
    }
    if (changed) this.publish();
    this.schedule();
  }

  private publish(): void {
    const current = this.getSnapshot();
    const next = new Map<string, readonly string[]>();
    for (const [conversationId, typers] of this.expiries) {
      const users = [...typers.keys()];
      const before = current.get(conversationId);
      const same = before && before.length === users.length && before.every((id, i) => id === users[i]);
      next.set(conversationId, same ? before : Object.freeze(users));
    }
    this.set(next);
  }
}
