import type { ConversationItem, SyncReply, UnreadTotals } from '../../../src/contract/index.js';
import type { CallsApi } from './api/calls-api.js';
import type { ConversationsApi } from './api/conversations-api.js';
import type { FriendsApi } from './api/friends-api.js';
import type { GroupsApi } from './api/groups-api.js';
import type { MediaApi } from './api/media-api.js';
import type { MessagesApi } from './api/messages-api.js';
import type { PushApi } from './api/push-api.js';
import type { ReportsApi } from './api/reports-api.js';
import type { UsersApi } from './api/users-api.js';
import type { AuthProvider } from './auth-session.js';
import type { ConversationWindow, ImMessage, WindowState } from './conversation-window.js';
import type { ClientEnvironment } from './environment.js';
import type { ClientEventMap, RecoveryReason, StreamOptions } from './events.js';
import type { Query } from './http.js';
import type { ImUser } from './jwt.js';
import type { StateStore } from './state-store.js';
import type { CallStore } from './stores/call-store.js';
import type { ConversationListStore } from './stores/conversation-list-store.js';
import type { PresenceStore } from './stores/presence-store.js';
import type { TypingStore } from './stores/typing-store.js';
import type { BadgeState } from './unread-badge.js';

export interface ClientOptions {
  /** The service's origin, e.g. `https://im.example.com`. */
  baseUrl: string;
  /** Resolves with the `/app/sdk/token` reply (the envelope or its `data`) for the host's logged-in user (spec 5.8). */
  authProvider: AuthProvider;
  /** socket.io path (REALTIME_PATH). */
  realtimePath?: string;
  /** Renew this long before the token expires (at most half the token's lifetime). Default 60 s. */
  renewAheadMs?: number;
  /** How long `login()` waits for its first connection before it rejects with kind `network`. Default 15 s. */
  connectTimeoutMs?: number;
  /** Where the SDK runs: lifecycle hooks, HTTP, uploads, the socket and storage (defaults: the browser's, or Node's). */
  environment?: ClientEnvironment;
  /** The readable cache across reloads: IndexedDB where available, memory otherwise. Same as `environment.storage`. */
  store?: StateStore;
  /** Same as `environment.fetch`. */
  fetch?: typeof fetch;
  now?: () => number;
  /**
   * This device's ID for calls (which device answered) and push registrations. Pass a stable
   * one (kept in `localStorage`, say, or the native shell's installation ID) so a reload is the
   * same device; a random `web-…` ID otherwise. Push needs 1–64 letters, digits, `.`, `_`, `:` or `-`.
   */
  deviceId?: string;
  /**
   * Your app's version, sent with `deviceId` at every connect so operators see which build each
   * of a user's connections runs (admin console, user page): 1–32 letters, digits, `.`, `_`,
   * `+`, `/` or `-`. Default: the SDK's own, `web-sdk/<version>`.
   */
  appVersion?: string;
}

export interface ImClient {
  /**
   * Asks the auth provider for a credential, connects, and starts recovery (`recover`).
   * Resolves once the connection is ready, so listeners added right after it miss no event;
   * rejects with the provider's or the service's refusal, or kind `network` when the service
   * cannot be reached within `connectTimeoutMs` (the login is then undone).
   */
  login(): Promise<ImUser>;
  /** Ends this login: the connection, the local state and this user's readable cache. */
  logout(): void;
  /** logout, and the instance is released (listeners, timers, environment hooks). */
  destroy(): void;
  /** Local display only (spec 5.7). */
  refreshCurrentUser(user: Partial<ImUser>): ImUser;
  readonly currentUser: ImUser | null;
  /** Whether the real-time connection is up. */
  readonly connected: boolean;

  /** Listens to a server event type (typed by the contract) or an SDK event; returns the unsubscribe function. */
  on<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): () => void;
  /** Listens to the next event of `type` only. */
  once<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): () => void;
  off<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): void;
  /** The events of `type` as an async iterator (`for await`), until `signal` aborts or the loop breaks. */
  events<K extends keyof ClientEventMap>(type: K, options?: StreamOptions): AsyncIterableIterator<ClientEventMap[K]>;

  /** Conversation settings, the home list page and unread totals. */
  readonly conversations: ConversationsApi;
  /** Sending (with a local echo and retry), recall, delete, search, windows and read marks. */
  readonly messages: MessagesApi;
  /** Friends, friend requests and blocks. */
  readonly friends: FriendsApi;
  /** Groups, members, roles and invitations. */
  readonly groups: GroupsApi;
  /** Profiles and lookup by username. */
  readonly users: UsersApi;
  /** Uploads with progress and abort; downloads and object URLs. */
  readonly media: MediaApi;
  /** Audio and video calls. */
  readonly calls: CallsApi;
  /** Abuse reports. */
  readonly reports: ReportsApi;
  /** Offline push: the native side's provider token for this device, preview level and quiet hours. */
  readonly push: PushApi;

  /** The home list kept current from events: order, last message, unread, badge. */
  readonly conversationList: ConversationListStore;
  /** Friends' presence. */
  readonly presence: PresenceStore;
  /** Who is typing in each conversation; `typing.notify(conversationId)` as the user types. */
  readonly typing: TypingStore;
  /** Each call's state machine, driven by `call.*` events. */
  readonly callState: CallStore;

  /** Registers the recovery (spec 4.7: `sync` and the visible chat's `messages`); triggers merge. */
  setRecovery(recover: (reasons: RecoveryReason[]) => Promise<void>): void;
  /** Asks for recovery, e.g. on pull to refresh or a detected gap. */
  recover(reason: RecoveryReason): Promise<void>;
  /**
   * The visible conversation's window (spec 4.7): calibrated now and at every recovery trigger,
   * fed by the real-time events. Close it when the chat leaves the screen.
   */
  openWindow(conversationId: string, onChange?: (state: WindowState) => void): ConversationWindow;
  closeWindow(window: ConversationWindow): void;
  /** `POST /app/sdk/sync`, as `conversations.list`. */
  sync(body?: { cursor?: string }): Promise<SyncReply>;
  /** The aggregate unread badge, capped at 100 and recalibrated with `unread` (spec 4.7). */
  readonly badge: BadgeState;
  onBadge(listener: (state: BadgeState) => void): () => void;
  /** The last `sync` page this user saw (from the store), to show before the network answers. */
  cachedHome(): Promise<SyncReply | undefined>;
  /** Marks an event ID as processed (the `event_id` of an HTTP reply), so its real-time echo is skipped. */
  markProcessed(eventId: string): boolean;

  /** An SDK endpoint this version has no method for yet (renewal, backoff and typed errors apply). */
  get<T = unknown>(path: string, query?: Query): Promise<T>;
  /** An SDK endpoint this version has no method for yet. */
  post<T = unknown>(path: string, body?: unknown): Promise<T>;
}

/** The part of a `sync` reply (`SyncReply`) the SDK reads; the rest is passed through to the app. */
export interface SyncPage {
  conversations: {
    items: Array<Pick<ConversationItem, 'conversation_id' | 'unread' | 'muted'> & { last_message?: ImMessage | null }>;
    next_cursor: string | null;
  };
  unread: UnreadTotals;
}
