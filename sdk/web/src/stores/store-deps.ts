import type { ClientAck } from '../../../../src/contract/index.js';
import type { CallsApi } from '../api/calls-api.js';
import type { ConversationsApi } from '../api/conversations-api.js';
import type { FriendsApi } from '../api/friends-api.js';
import type { UsersApi } from '../api/users-api.js';
import type { ClientEventMap } from '../events.js';

/** What the stores need from the client: its events, its API and the clock. */
export interface StoreDeps {
  /** Listens to a server event (typed by the contract) or an SDK event; returns the unsubscribe function. */
  on<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): () => void;
  /** The home list pages (`list`) and the absolute unread (`unread`). */
  conversations: Pick<ConversationsApi, 'list' | 'unread'>;
  /** The friend list (`list`), whose presence the presence store reads. */
  friends: Pick<FriendsApi, 'list'>;
  /** Friends' presence now (`presence`). */
  users: Pick<UsersApi, 'presence'>;
  /** The call store's reconciliation (`active`, `get`) and this device's ID (`deviceId`). */
  calls: Pick<CallsApi, 'active' | 'get' | 'deviceId'>;
  /** The logged-in user's external user ID (`user_id`), or null before login. */
  userId(): string | null;
  /** Sends `conversation.typing` over the live connection; rejects when there is none. */
  sendTyping(conversationId: string): Promise<ClientAck>;
  /** The clock (Unix ms) the stores time typing and throttling by. */
  now(): number;
}
