import type { CallListReply, CallReply, ClientAck } from '../../../../src/contract/index.js';
import type { CallsApi } from '../api/calls-api.js';
import type { ConversationsApi } from '../api/conversations-api.js';
import type { FriendsApi } from '../api/friends-api.js';
import type { ClientEventMap } from '../events.js';

/**
 * The reads of the calls API that the call store reconciles with: the user's live calls
 * (`GET /app/sdk/calls/active`) and one call (`GET /app/sdk/calls/get`). Optional until the
 * calls namespace has them; without them the store follows events only.
 */
export interface CallReads {
  active(): Promise<CallListReply>;
  get(callId: string): Promise<CallReply>;
}

/** What the stores need from the client: its events, its API and the clock. */
export interface StoreDeps {
  /** Listens to a server event (typed by the contract) or an SDK event; returns the unsubscribe function. */
  on<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): () => void;
  /** The home list pages (`list`) and the absolute unread (`unread`). */
  conversations: Pick<ConversationsApi, 'list' | 'unread'>;
  friends: FriendsApi;
  calls: CallsApi & Partial<CallReads>;
  /** The logged-in user's IM ID, or null before login. */
  userId(): string | null;
  /**
   * This device's `device_id`, as the calls API sends it when starting and accepting calls:
   * an answer of the user from another device ends the call here as `other_device_accepted`.
   * Without it, every answer of the user counts as this device's.
   */
  deviceId?(): string | null;
  /** Sends `conversation.typing` over the live connection; rejects when there is none. */
  sendTyping(conversationId: string): Promise<ClientAck>;
  /** The clock (Unix ms) the stores time typing and throttling by. */
  now(): number;
}
