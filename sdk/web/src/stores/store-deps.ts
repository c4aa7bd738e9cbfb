import type { ClientAck } from '../../../../src/contract/index.js';
import type { CallsApi } from '../api/calls-api.js';
import type { ConversationsApi } from '../api/conversations-api.js';
import type { FriendsApi } from '../api/friends-api.js';
import type { ClientEventMap } from '../events.js';

/** What the stores need from the client: its events, its API and the clock. */
export interface StoreDeps {
  on<K extends keyof ClientEventMap>(type: K, listener: (payload: ClientEventMap[K]) => void): () => void;
  conversations: ConversationsApi;
  friends: FriendsApi;
  calls: CallsApi;
  /** The logged-in user's IM ID, or null before login. */
  userId(): string | null;
  /** Sends `conversation.typing` over the live connection; rejects when there is none. */
  sendTyping(conversationId: string): Promise<ClientAck>;
  now(): number;
}
