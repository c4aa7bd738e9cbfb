import type { SettingsReply, SyncReply, UnreadReply } from '../../../../src/contract/index.js';
import type { ApiTransport } from './transport.js';

/** What the client does with each home-list page (badge, readable cache, stores). */
export interface ConversationsHooks {
  synced(page: SyncReply, firstPage: boolean): void;
}

/** The SDK endpoints for conversation settings (pin, mute, hide), the home list page and unread totals. */
export class ConversationsApi {
  constructor(
    private readonly transport: ApiTransport,
    private readonly hooks: ConversationsHooks,
  ) {}

  /**
   * One page of the home list (`sync`: pinned first, then by last activity), with the unread
   * totals, capabilities and media limits. Without a cursor this is the first page, which also
   * resets the unread badge and the readable cache.
   */
  async list(options: { cursor?: string } = {}): Promise<SyncReply> {
    const body = options.cursor === undefined ? {} : { cursor: options.cursor };
    const page = await this.transport.post<SyncReply>('/app/sdk/sync', body);
    this.hooks.synced(page, options.cursor === undefined);
    return page;
  }

  /** Unread totals and the conversations that have unread messages. */
  unread(): Promise<UnreadReply> {
    return this.transport.get<UnreadReply>('/app/sdk/unread');
  }

  /** Pins (true) or unpins (false) a conversation for this user. */
  pin(conversationId: string, pinned: boolean): Promise<SettingsReply> {
    return this.setting('pin', { conversation_id: conversationId, pinned });
  }

  /** Mutes or unmutes a conversation for this user: muted conversations leave `total_unmuted`. */
  mute(conversationId: string, muted: boolean): Promise<SettingsReply> {
    return this.setting('mute', { conversation_id: conversationId, muted });
  }

  /** Hides or shows a conversation in this user's home list; a new message shows it again. */
  hide(conversationId: string, hidden: boolean): Promise<SettingsReply> {
    return this.setting('hide', { conversation_id: conversationId, hidden });
  }

  private setting(name: 'pin' | 'mute' | 'hide', body: Record<string, unknown>): Promise<SettingsReply> {
    // The change also arrives as conversation.updated (here and on the user's other devices),
    // which keeps the conversation list store current.
    return this.transport.post<SettingsReply>(`/app/sdk/conversations/${name}`, body);
  }
}
