export { createClient } from './client.js';
export type { ClientOptions, ImClient, SyncPage } from './client.js';
export type { AuthProvider } from './auth-session.js';
export { readAuthResult } from './auth-result.js';
export type { Query } from './http.js';
export type { ClientEnvironment } from './environment.js';
export { browserEnvironment } from './environment.js';
export { ErrorCode, ImError, kindOf } from './errors.js';
export type { ErrorKind } from './errors.js';
export type { ClientEventMap, ReadyInfo, RecoveryReason, ServerEvent } from './events.js';
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
