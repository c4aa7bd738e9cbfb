import type {
  ConversationItem,
  MediaUploadReply,
  MessageChangeReply,
  SendReply,
  SyncReply,
  UnreadReply,
  UnreadTotals,
} from '../../../src/contract/index.js';
import { AuthProvider, AuthSession } from './auth-session.js';
import { Coalescer } from './coalescer.js';
import {
  ConversationWindow,
  ImMessage,
  ReadReply,
  WindowReply,
  WindowSnapshot,
  WindowState,
} from './conversation-window.js';
import { StateStore, defaultStateStore } from './state-store.js';
import { ClientEnvironment, browserEnvironment } from './environment.js';
import { ImError } from './errors.js';
import { EventDedup } from './event-dedup.js';
import { ClientEventMap, Emitter, RecoveryReason, ServerEvent } from './events.js';
import { isHomePage, withTombstone } from './home-cache.js';
import { HttpClient, Query } from './http.js';
import { ImUser } from './jwt.js';
import { RealtimeLink } from './realtime.js';
import { BadgeState, UnreadBadge } from './unread-badge.js';

export interface ClientOptions {
  /** The service's origin, e.g. `https://im.example.com`. */
  baseUrl: string;
  /** Resolves with the `/app/sdk/token` reply (the envelope or its `data`) for the host's logged-in user (spec 5.8). */
  authProvider: AuthProvider;
  /** socket.io path (REALTIME_PATH). */
  realtimePath?: string;
  /** Renew this long before the token expires. */
  renewAheadMs?: number;
  environment?: ClientEnvironment;
  /** The readable cache across reloads: IndexedDB where available, memory otherwise. */
  store?: StateStore;
  fetch?: typeof fetch;
  now?: () => number;
}

export interface ImClient {
  login(): Promise<ImUser>;
  logout(): void;
  /** logout, and the instance is released (listeners, timers, environment hooks). */
  destroy(): void;
  /** Local display only (spec 5.7). */
  refreshCurrentUser(user: Partial<ImUser>): ImUser;
  readonly currentUser: ImUser | null;
  on<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): () => void;
  /** Registers the recovery (spec 4.7: `sync` and the visible chat's `messages`); triggers merge. */
  setRecovery(recover: (reasons: RecoveryReason[]) => Promise<void>): void;
  /** Asks for recovery, e.g. on pull to refresh or a detected gap. */
  recover(reason: RecoveryReason): Promise<void>;
  get<T = unknown>(path: string, query?: Query): Promise<T>;
  post<T = unknown>(path: string, body?: unknown): Promise<T>;
  /** Marks an event ID as processed (the `event_id` of an HTTP reply), so its real-time echo is skipped. */
  markProcessed(eventId: string): boolean;
  /**
   * The visible conversation's window (spec 4.7): calibrated now and at every recovery trigger,
   * fed by the real-time events. Close it when the chat leaves the screen.
   */
  openWindow(conversationId: string, onChange?: (state: WindowState) => void): ConversationWindow;
  closeWindow(window: ConversationWindow): void;
  /** `POST /app/sdk/sync` (one page of the home list); its absolute unread resets the badge. */
  sync<T extends SyncPage = SyncReply>(body?: { cursor?: string }): Promise<T>;
  /** The aggregate unread badge, capped at 100 and recalibrated with `unread` (spec 4.7). */
  readonly badge: BadgeState;
  onBadge(listener: (state: BadgeState) => void): () => void;
  /**
   * Sends a message (`POST /app/sdk/messages/send`). The reply's message goes into the open
   * window of its conversation at once and is emitted as `event` (`message.new`), and its event
   * ID is marked processed, so the real-time echo neither duplicates it nor is needed. A retry
   * with the same `client_message_id` returns the original message.
   */
  sendMessage(message: {
    conversation_id: string;
    type: string;
    content: Record<string, unknown>;
    client_message_id?: string;
  }): Promise<SendReply>;
  /**
   * Recall or delete (`/app/sdk/messages/recall` or `/delete`). The open window and the cached
   * home page (when it is the conversation's last message) show the tombstone at once, and the
   * change is emitted as `event` (`message.recalled` or `message.deleted`) once, as it would
   * reach another device.
   */
  changeMessage(action: 'recall' | 'delete', conversationId: string, mid: string): Promise<MessageChangeReply>;
  /** Uploads a file (`kind` image or file) and answers its `media` (`media_id` to send in a message). */
  uploadMedia(file: Blob, kind: 'image' | 'file', name?: string): Promise<MediaUploadReply>;
  /** The bytes of a media item, for `URL.createObjectURL` (the download needs the IM token). */
  downloadMedia(mediaId: string): Promise<Blob>;
  /** The last `sync` page this user saw (from the store), to show before the network answers. */
  cachedHome<T extends SyncPage = SyncReply>(): Promise<T | undefined>;
}

/** The part of a `sync` reply (`SyncReply`) the SDK reads; the rest is passed through to the app. */
export interface SyncPage {
  conversations: {
    items: Array<Pick<ConversationItem, 'conversation_id' | 'unread' | 'muted'> & { last_message?: ImMessage | null }>;
    next_cursor: string | null;
  };
  unread: UnreadTotals;
}

/** A client_message_id for a send (retries of one send must reuse it). */
function randomId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID
    ? crypto.randomUUID()
    : `c-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

export function createClient(options: ClientOptions): ImClient {
  const emitter = new Emitter<ClientEventMap>();
  const dedup = new EventDedup();
  const environment = options.environment ?? browserEnvironment();
  const store = options.store ?? defaultStateStore();
  /** A store key of the current login's user; writes of an earlier login are dropped. */
  const saver = () => {
    const user = session.user?.user_id;
    const generation = session.generation;
    return user === undefined
      ? null
      : {
          prefix: `${user}/`,
          save: (key: string, value: unknown) => {
            if (generation === session.generation) void store.save(`${user}/${key}`, value).catch(() => undefined);
          },
        };
  };
  let recovery: (reasons: RecoveryReason[]) => Promise<void> = async () => undefined;
  /** The last first `sync` page of this login, as saved: tombstones patch it in order. */
  let home: { generation: number; page: SyncPage } | null = null;
  const windows = new Set<ConversationWindow>();
  const badgeListeners = new Set<(state: BadgeState) => void>();
  const session = new AuthSession({
    provider: options.authProvider,
    renewAheadMs: options.renewAheadMs ?? 60_000,
    now: options.now ?? (() => Date.now()),
    onIdentityChanged: (previous, next) => {
      link.stop();
      void store.clear(`${previous.user_id}/`).catch(() => undefined);
      emitter.emit('identity.changed', { previous_user_id: previous.user_id, next_user_id: next.user_id });
    },
    onRenewed: (auth) => link.renewed(auth.token),
  });
  const http = new HttpClient(options.baseUrl, session, options.fetch ?? fetch.bind(globalThis));
  const badge = new UnreadBadge(
    () => session.user?.user_id ?? null,
    () => guarded(() => http.get<UnreadReply>('/app/sdk/unread')),
    (state) => badgeListeners.forEach((listener) => listener(state)),
  );
  const coalescer = new Coalescer<RecoveryReason>(async (reasons) => {
    if (!session.active) return;
    emitter.emit('recover', { reasons });
    // The home list and the visible chat are two independent chains (4.7): both run now.
    await Promise.all([recovery(reasons), ...[...windows].map((w) => w.calibrate(reasons.join(',')))]);
  });
  const link = new RealtimeLink(options.baseUrl, options.realtimePath ?? '/socket.io', session, dedup, {
    ready: (info) => {
      emitter.emit('ready', info);
      void coalescer.trigger('connection.ready').catch(() => undefined);
    },
    event: (event) => deliver(event),
    disconnected: (reason) => emitter.emit('disconnected', { reason }),
    fatal: (error) => {
      session.stop();
      emitter.emit('session.ended', { code: error.code, kind: error.kind, message: error.message });
    },
  });
  const unhook = [
    environment.onForeground(() => {
      if (session.active) void coalescer.trigger('foreground').catch(() => undefined);
    }),
    environment.onOnline(() => {
      if (!session.active) return;
      link.retryNow();
      // Spec 4.7: at once, without waiting for the connection.
      void coalescer.trigger('online').catch(() => undefined);
    }),
  ];

  const logout = (): void => {
    // Spec 4.7 rule 7: logout clears the account's session, its readable cache included.
    const user = session.user?.user_id;
    if (user !== undefined) void store.clear(`${user}/`).catch(() => undefined);
    for (const w of windows) w.close();
    windows.clear();
    home = null;
    session.stop();
    link.stop();
    dedup.clear();
  };

  return {
    async login() {
      logout();
      const auth = await session.login();
      link.start();
      void coalescer.trigger('login').catch(() => undefined);
      return auth.user;
    },
    logout,
    destroy() {
      logout();
      for (const off of unhook) off();
      emitter.clear();
    },
    refreshCurrentUser: (user) => session.refreshUser(user),
    get currentUser() {
      return session.user;
    },
    on: (type, listener) => emitter.on(type, listener),
    setRecovery(recover) {
      recovery = recover;
    },
    recover: (reason) => coalescer.trigger(reason),
    get: <T>(path: string, query?: Query) => guarded(() => http.get<T>(path, query)),
    post: <T>(path: string, body?: unknown) => guarded(() => http.post<T>(path, body)),
    markProcessed: (eventId) => dedup.firstTime(eventId),
    openWindow(conversationId, onChange) {
      const keys = saver();
      const cacheKey = `window/${conversationId}`;
      const w = new ConversationWindow(
        conversationId,
        {
          messages: (query) => guarded(() => http.get<WindowReply>('/app/sdk/messages', query)),
          read: (id, readSeq) =>
            guarded(() => http.post<ReadReply>('/app/sdk/messages/read', { conversation_id: id, read_seq: readSeq })),
        },
        onChange,
        keys && {
          load: () => store.load(`${keys.prefix}${cacheKey}`),
          save: (snapshot: WindowSnapshot) => keys.save(cacheKey, snapshot),
        },
      );
      windows.add(w);
      void w
        .restore()
        .then(() => w.calibrate('open'))
        .catch(() => undefined);
      return w;
    },
    closeWindow(w) {
      w.close();
      windows.delete(w);
    },
    async sync<T extends SyncPage>(body: { cursor?: string } = {}) {
      const page = await guarded(() => http.post<T>('/app/sdk/sync', body));
      badge.setAbsolute(page.unread, page.conversations.items);
      const keys = saver();
      if (!body.cursor && keys) {
        home = { generation: session.generation, page };
        keys.save('home', page);
      }
      return page;
    },
    get badge() {
      return badge.state;
    },
    async sendMessage(message) {
      const body = { client_message_id: randomId(), ...message };
      const reply = await guarded(() => http.post<SendReply>('/app/sdk/messages/send', body));
      applyOwn('message.new', message.conversation_id, reply.message, reply.event_id);
      return reply;
    },
    async changeMessage(action, conversationId, mid) {
      const reply = await guarded(() =>
        http.post<MessageChangeReply>(`/app/sdk/messages/${action}`, {
          conversation_id: conversationId,
          mid,
        }),
      );
      applyOwn(
        action === 'recall' ? 'message.recalled' : 'message.deleted',
        conversationId,
        reply.message,
        reply.event_id,
      );
      return reply;
    },
    uploadMedia(file, kind, name = 'upload') {
      const form = new FormData();
      form.append('kind', kind);
      form.append('file', file, name);
      return guarded(() => http.upload<MediaUploadReply>('/app/sdk/media/upload', form));
    },
    downloadMedia: (mediaId) => guarded(() => http.download(`/app/sdk/media/${encodeURIComponent(mediaId)}`)),
    async cachedHome<T extends SyncPage>() {
      const keys = saver();
      return keys ? ((await store.load(`${keys.prefix}home`)) as T | undefined) : undefined;
    },
    onBadge(listener) {
      badgeListeners.add(listener);
      return () => badgeListeners.delete(listener);
    },
  };

  /** A server event, once: into the windows, the badge and the cached home page, then to the app. */
  function deliver(event: ServerEvent): void {
    applyToState(event);
    badge.onEvent(event);
    if (event.type === 'conversation.read') {
      const data = event.data as { conversation_id?: string; read_seq?: string; unread?: number };
      for (const w of windows)
        if (w.conversationId === data.conversation_id && data.read_seq !== undefined)
          w.applyReadState(BigInt(data.read_seq), Number(data.unread ?? 0));
    }
    emitter.emit('event', event);
  }

  function applyToState(event: ServerEvent): void {
    for (const w of windows) w.onEvent(event);
    if (event.type !== 'message.recalled' && event.type !== 'message.deleted') return;
    const data = event.data as { conversation_id?: string; message?: ImMessage };
    const conversationId = data.conversation_id ?? data.message?.conversation_id;
    if (conversationId && data.message) patchHome(conversationId, data.message);
  }

  /**
   * A tombstone into the cached home page (see withTombstone). The page in memory is patched at
   * once so that patches and a `sync` landing meanwhile save in order; before the first `sync`
   * of this login, the stored page (from before a reload) is read first.
   */
  function patchHome(conversationId: string, message: ImMessage): void {
    const keys = saver();
    if (!keys) return;
    const generation = session.generation;
    const apply = (page: SyncPage) => {
      const next = withTombstone(page, conversationId, message);
      if (!next) return;
      home = { generation, page: next };
      keys.save('home', next);
    };
    if (home?.generation === generation) return apply(home.page);
    void store
      .load(`${keys.prefix}home`)
      .then((stored) => {
        if (generation !== session.generation) return;
        if (home?.generation === generation) apply(home.page);
        else if (isHomePage(stored)) apply(stored as SyncPage);
      })
      .catch(() => undefined);
  }

  /**
   * A change this client made: into the open windows and the cached home page now, and to the
   * app as the event it is; its real-time echo is then skipped (or, when the echo came first,
   * this reply is).
   */
  function applyOwn(type: string, conversationId: string, message: ImMessage, eventId: string | null): void {
    if (eventId !== null && !dedup.firstTime(eventId)) return;
    const event: ServerEvent = {
      event_id: eventId ?? `local-${message.mid}-${message.updated_at}`,
      type,
      position: null,
      created_at: message.updated_at,
      data: { conversation_id: conversationId, message, by: session.user?.user_id },
    };
    // No event ID: the message was already in this state and no event went out; the app has
    // nothing new to hear, but the local copies still catch up.
    if (eventId === null) applyToState(event);
    else deliver(event);
  }

  async function guarded<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      // A renewal that failed for good ends the session the same way a refused socket does.
      if (error instanceof ImError && (error.kind === 'auth' || error.kind === 'disabled') && session.active) {
        logout();
        emitter.emit('session.ended', { code: error.code, kind: error.kind, message: error.message });
      }
      throw error;
    }
  }
}
