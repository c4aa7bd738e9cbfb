import type {
  MessageChangeReply,
  MessageReply,
  SendReply,
  UnreadReply,
  UserReply,
} from '../../../src/contract/index.js';
import { CallsApi } from './api/calls-api.js';
import { ConversationsApi } from './api/conversations-api.js';
import { FriendsApi } from './api/friends-api.js';
import { GroupsApi } from './api/groups-api.js';
import { MediaApi } from './api/media-api.js';
import { LocalMessage, MessagesApi } from './api/messages-api.js';
import { PushApi } from './api/push-api.js';
import { ReportsApi } from './api/reports-api.js';
import type { ApiTransport } from './api/transport.js';
import { UsersApi } from './api/users-api.js';
import { AuthSession } from './auth-session.js';
import type { ClientOptions, ImClient } from './client-types.js';
import { CachedHome, loginKeys } from './cached-home.js';
import { Coalescer } from './coalescer.js';
import { ConversationWindow, ImMessage, ReadReply, WindowReply, WindowSnapshot } from './conversation-window.js';
import { defaultStateStore } from './state-store.js';
import { connectionDevice } from './device.js';
import { browserEnvironment, defaultSocketFactory } from './environment.js';
import { ImError } from './errors.js';
import { FirstConnection } from './first-connection.js';
import { EventDedup } from './event-dedup.js';
import { ClientEventMap, Emitter, RecoveryReason, ServerEvent } from './events.js';
import { HttpClient, Query } from './http.js';
import { RealtimeLink } from './realtime.js';
import { CallStore } from './stores/call-store.js';
import { ConversationListStore } from './stores/conversation-list-store.js';
import { PresenceStore } from './stores/presence-store.js';
import type { StoreDeps } from './stores/store-deps.js';
import { TypingStore } from './stores/typing-store.js';
import { BadgeState, UnreadBadge } from './unread-badge.js';

export type { ClientOptions, ImClient, SyncPage } from './client-types.js';

export function createClient(options: ClientOptions): ImClient {
  const emitter = new Emitter<ClientEventMap>();
  const dedup = new EventDedup();
  const environment = options.environment ?? browserEnvironment();
  const store = options.store ?? environment.storage ?? defaultStateStore();
  const now = options.now ?? (() => Date.now());
  let recovery: (reasons: RecoveryReason[]) => Promise<void> = async () => undefined;
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  /** `login()` resolves once its first connection is ready: listeners added after it miss no event. */
  const firstConnection = new FirstConnection();
  /** Whether the connection is up (between `connection.ready` and its loss). */
  let online = false;
  let destroyed = false;
  const windows = new Set<ConversationWindow>();
  const badgeListeners = new Set<(state: BadgeState) => void>();
  const session = new AuthSession({
    provider: options.authProvider,
    renewAheadMs: options.renewAheadMs ?? 60_000,
    now,
    onIdentityChanged: (previous, next) => {
      link.stop();
      void store.clear(`${previous.user_id}/`).catch(() => undefined);
      resetState();
      emitter.emit('identity.changed', { previous_user_id: previous.user_id, next_user_id: next.user_id });
    },
    onRenewed: (auth) => {
      push.renewed();
      link.renewed(auth.token);
    },
  });
  const cachedHome = new CachedHome(store, session);
  const http = new HttpClient(options.baseUrl, session, options.fetch ?? environment.fetch ?? fetch.bind(globalThis), {
    upload: environment.upload,
  });
  const transport: ApiTransport = {
    get: (path, query) => guarded(() => http.get(path, query)),
    post: (path, body) => guarded(() => http.post(path, body)),
    upload: (path, form, uploadOptions) => guarded(() => http.upload(path, form, uploadOptions)),
    download: (path) => guarded(() => http.download(path)),
    userId: () => session.user?.user_id ?? null,
    markProcessed: (eventId) => dedup.firstTime(eventId),
  };
  const badge = new UnreadBadge(
    () => session.user?.user_id ?? null,
    () => transport.get<UnreadReply>('/app/sdk/unread'),
    (state) => badgeListeners.forEach((listener) => listener(state)),
  );
  const conversations = new ConversationsApi(transport, {
    synced: (page, firstPage) => {
      badge.setAbsolute(page.unread, page.conversations.items);
      if (firstPage) cachedHome.save(page);
    },
  });
  const media = new MediaApi(transport);
  const messages = new MessagesApi(
    transport,
    media,
    {
      pending: (message) => emitter.emit('message.pending', message),
      progress: (message) => emitter.emit('message.progress', message),
      discarded: (message) => emitter.emit('message.discarded', message),
      settled: (message, stored) => emitter.emit('message.sent', { local: message, message: stored }),
      failed: (message) => emitter.emit('message.failed', message),
      sent: (message, reply) => sent(message, reply),
      changed: (action, conversationId, reply) => changed(action, conversationId, reply),
    },
    now,
  );
  const friends = new FriendsApi(transport);
  const calls = new CallsApi(transport, options.deviceId);
  // One device ID for the whole client: the service ties a call's answer and a push registration to it.
  const push = new PushApi(transport, calls.deviceId, {
    failed: (provider, error) =>
      emitter.emit('push.failed', { provider, code: error.code, kind: error.kind, message: error.message }),
  });
  const users = new UsersApi(transport, (user) => ownProfile(user));
  const coalescer = new Coalescer<RecoveryReason>(async (reasons) => {
    if (!session.active) return;
    emitter.emit('recover', { reasons });
    // The home list and the visible chat are two independent chains (4.7): both run now.
    await Promise.all([recovery(reasons), ...[...windows].map((w) => w.calibrate(reasons.join(',')))]);
  });
  const link = new RealtimeLink(
    options.baseUrl,
    options.realtimePath ?? '/socket.io',
    session,
    dedup,
    {
      ready: (info) => {
        online = true;
        emitter.emit('connection.ready', info);
        firstConnection.settle(null);
        void coalescer.trigger('connection.ready').catch(() => undefined);
        push.reconnected();
      },
      event: (event) => deliver(event),
      disconnected: (reason) => {
        // Once per outage: the failed attempts of one reconnect are not news to the app.
        if (!online) return;
        online = false;
        emitter.emit('connection.lost', { reason });
      },
      session: (event) => emit(event),
      fatal: (error) => {
        session.stop();
        firstConnection.settle(error);
        emitter.emit('session.ended', { code: error.code, kind: error.kind, message: error.message });
      },
    },
    environment.connect ?? defaultSocketFactory,
    connectionDevice(calls.deviceId, options.appVersion),
  );
  const storeDeps: StoreDeps = {
    on: (type, listener) => emitter.on(type, listener),
    conversations,
    friends,
    users,
    calls,
    userId: () => session.user?.user_id ?? null,
    sendTyping: (conversationId) => link.send('conversation.typing', { conversation_id: conversationId }),
    now,
  };
  const conversationList = new ConversationListStore(storeDeps);
  const presence = new PresenceStore(storeDeps);
  const typing = new TypingStore(storeDeps);
  const callState = new CallStore(storeDeps);
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

  /** Everything held for one login, dropped at logout and at an identity change. */
  function resetState(): void {
    for (const w of windows) w.close();
    windows.clear();
    cachedHome.reset();
    messages.reset();
    media.revokeUrls();
    conversationList.reset();
    presence.reset();
    typing.reset();
    callState.reset();
    push.reset();
  }

  const logout = (): void => {
    firstConnection.settle(new ImError('stale', 0, 'logout (or a newer login) ended this login'));
    online = false;
    // Spec 4.7 rule 7: logout clears the account's session, its readable cache included.
    const user = session.user?.user_id;
    if (user !== undefined) void store.clear(`${user}/`).catch(() => undefined);
    resetState();
    session.stop();
    link.stop();
    dedup.clear();
  };

  return {
    async login() {
      if (destroyed) throw new ImError('invalid', 0, 'this client was destroyed; create another');
      logout();
      const auth = await session.login();
      const connected = firstConnection.wait(connectTimeoutMs);
      link.start();
      void coalescer.trigger('login').catch(() => undefined);
      try {
        await connected;
      } catch (error) {
        // No connection in time: nothing half-started stays behind (the app may log in again).
        if (!(error instanceof ImError && error.kind === 'stale')) logout();
        throw error;
      }
      return auth.user;
    },
    logout,
    destroy() {
      destroyed = true;
      logout();
      for (const off of unhook) off();
      emitter.clear();
    },
    refreshCurrentUser: (user) => session.refreshUser(user),
    get currentUser() {
      return session.user;
    },
    get connected() {
      return link.connected;
    },
    on: (type, listener) => emitter.on(type, listener),
    once: (type, listener) => emitter.once(type, listener),
    off: (type, listener) => emitter.off(type, listener),
    events: (type, streamOptions) => emitter.stream(type, streamOptions),
    conversations,
    messages,
    friends,
    groups: new GroupsApi(transport),
    users,
    media,
    calls,
    reports: new ReportsApi(transport),
    push,
    conversationList,
    presence,
    typing,
    callState,
    setRecovery(recover) {
      recovery = recover;
    },
    recover: (reason) => coalescer.trigger(reason),
    get: <T>(path: string, query?: Query) => transport.get<T>(path, query),
    post: <T>(path: string, body?: unknown) => transport.post<T>(path, body),
    markProcessed: (eventId) => dedup.firstTime(eventId),
    openWindow(conversationId, onChange) {
      const keys = loginKeys(store, session);
      const cacheKey = `window/${conversationId}`;
      const w = new ConversationWindow(
        conversationId,
        {
          messages: (query) => transport.get<WindowReply>('/app/sdk/messages', query),
          read: (id, readSeq) =>
            transport.post<ReadReply>('/app/sdk/messages/read', { conversation_id: id, read_seq: readSeq }),
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
    sync: (body = {}) => conversations.list(body),
    get badge() {
      return badge.state;
    },
    cachedHome: () => cachedHome.load(),
    onBadge(listener) {
      badgeListeners.add(listener);
      return () => badgeListeners.delete(listener);
    },
  };

  /** One event to the catch-all channel and to its type's listeners. */
  function emit(event: ServerEvent): void {
    const typed = event as ClientEventMap['event'];
    emitter.emit('event', typed);
    emitter.emit(typed.type, typed as never);
  }

  /** The user's own profile changed (here or on another device): `currentUser` follows. */
  function ownProfile(user: UserReply): void {
    if (!session.active || user.user_id !== session.user?.user_id) return;
    session.refreshUser({
      nickname: user.nickname,
      username: user.username,
      avatar: user.avatar,
      signature: user.signature,
    });
  }

  /** A server event, once: into the windows, the badge and the cached home page, then to the app. */
  function deliver(event: ServerEvent): void {
    if (event.type === 'user.profile_updated') ownProfile((event.data as { user: UserReply }).user);
    if (event.type === 'message.new') messages.settle((event.data as { message: ImMessage }).message as MessageReply);
    applyToState(event);
    badge.onEvent(event);
    if (event.type === 'conversation.read') {
      const data = event.data as { conversation_id?: string; read_seq?: string; unread?: number };
      for (const w of windows)
        if (w.conversationId === data.conversation_id && data.read_seq !== undefined)
          w.applyReadState(BigInt(data.read_seq), Number(data.unread ?? 0));
    }
    emit(event);
  }

  function applyToState(event: ServerEvent): void {
    for (const w of windows) w.onEvent(event);
    if (event.type !== 'message.recalled' && event.type !== 'message.deleted') return;
    const data = event.data as { conversation_id?: string; message?: ImMessage };
    const conversationId = data.conversation_id ?? data.message?.conversation_id;
    if (conversationId && data.message) cachedHome.patch(conversationId, data.message);
  }

  function sent(message: LocalMessage, reply: SendReply): void {
    emitter.emit('message.sent', { local: message, message: reply.message });
    applyOwn('message.new', message.conversation_id, reply.message, reply.event_id);
  }

  function changed(action: 'recall' | 'delete', conversationId: string, reply: MessageChangeReply): void {
    applyOwn(
      action === 'recall' ? 'message.recalled' : 'message.deleted',
      conversationId,
      reply.message,
      reply.event_id,
    );
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
