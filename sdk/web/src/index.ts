export { createClient } from './client.js';
export type { ClientOptions, ImClient, SyncPage } from './client-types.js';
export { CallsApi } from './api/calls-api.js';
export { ConversationsApi } from './api/conversations-api.js';
export { FriendsApi } from './api/friends-api.js';
export { GroupsApi } from './api/groups-api.js';
export { MediaApi } from './api/media-api.js';
export type { MediaUploadOptions } from './api/media-api.js';
export { MessagesApi } from './api/messages-api.js';
export type { LocalMessage, MessageSearchQuery, MessageWindowQuery, SendRequest } from './api/messages-api.js';
export { PushApi } from './api/push-api.js';
export type { PushHooks, PushRegistration } from './api/push-api.js';
export { ReportsApi } from './api/reports-api.js';
export { UsersApi } from './api/users-api.js';
export type { ApiTransport, UploadOptions, UploadProgress } from './api/transport.js';
export type { ConversationsHooks } from './api/conversations-api.js';
export type { MessageHooks } from './api/messages-api.js';
export { CallStore, ENDED_CALLS_KEPT } from './stores/call-store.js';
export type { CallEndReason, CallPhase, CallSnapshot, CallView } from './stores/call-store.js';
export { ConversationListStore } from './stores/conversation-list-store.js';
export type {
  ConversationListItem,
  ConversationListSnapshot,
  ConversationListStatus,
} from './stores/conversation-list-store.js';
export { PresenceStore } from './stores/presence-store.js';
export type { Presence, PresenceSnapshot } from './stores/presence-store.js';
export { TYPING_EXPIRY_MS, TYPING_NOTIFY_INTERVAL_MS, TypingStore } from './stores/typing-store.js';
export type { TypingSnapshot } from './stores/typing-store.js';
export { Observable } from './stores/observable.js';
export type { AuthProvider } from './auth-session.js';
export { readAuthResult } from './auth-result.js';
export type { Query } from './http.js';
export type { ClientEnvironment, SocketFactory, UploadRequest, UploadResponse } from './environment.js';
export { browserEnvironment, defaultSocketFactory } from './environment.js';
export { ErrorCode, ImError, kindOf } from './errors.js';
export type { ErrorKind } from './errors.js';
export type {
  ClientEventMap,
  ReadyInfo,
  RecoveryReason,
  SdkEventMap,
  ServerEvent,
  ServerEventOf,
  ServerEventType,
  SessionEventData,
  StreamOptions,
} from './events.js';
export type { ImAuth, ImUser } from './jwt.js';
export { checkAuth } from './jwt.js';
export { reconnectDelay } from './backoff.js';
export { ConversationWindow } from './conversation-window.js';
export type { ImMessage, ReadReply, WindowReply, WindowState, WindowTransport } from './conversation-window.js';
export { UNREAD_CAP, UnreadBadge } from './unread-badge.js';
export type { BadgeState, UnreadTotals } from './unread-badge.js';
export { IndexedDbStateStore, MemoryStateStore, defaultStateStore } from './state-store.js';
export type {
  IdbDatabase,
  IdbFactoryLike,
  IdbKeyRangeLike,
  IdbObjectStore,
  IdbOpenRequest,
  IdbRequest,
  StateStore,
} from './state-store.js';
export type { CalibrationTrio, WindowCache, WindowSnapshot } from './conversation-window.js';
/** Every reply body and real-time event payload of the service, as the server declares them (src/contract). */
export type * as Contract from '../../../src/contract/index.js';
export { createHostAppAuth } from './host-app.js';
export { isNotice } from './notice.js';
export type { NoticeMessage } from './notice.js';
export type { HostAppAuth, HostAppAuthOptions } from './host-app.js';
