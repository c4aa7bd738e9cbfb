import { Injectable } from '@nestjs/common';
import type { ConversationMember } from '../conversations/conversation';
import type { HomeEntry, HomePosition, HomeViewer, UnreadTotals } from '../conversations/home-list';
import { ViewerConversationsRepository } from './viewer-conversations.repository';

/** The home list and unread badge as one viewer sees them (sync's reads), each one statement. */
@Injectable()
export class HomeListService {
  constructor(private readonly conversations: ViewerConversationsRepository) {}

  /** One page of the home list after `after`, with the viewer's unread totals. */
  page(
    viewer: HomeViewer,
    after: HomePosition | null,
    limit: number,
  ): Promise<{ entries: HomeEntry[]; totals: UnreadTotals }> {
    return this.conversations.homePage(viewer, after, limit);
  }

  /** One conversation's home-list entry for the viewer, or null. */
  entry(viewer: HomeViewer, conversationId: string): Promise<HomeEntry | null> {
    return this.conversations.homeEntry(viewer, conversationId);
  }

  unreadTotals(userId: string): Promise<UnreadTotals> {
    return this.conversations.unreadTotals(userId);
  }

  /** Up to `count` of the viewer's memberships with unread messages. */
  withUnread(userId: string, count: number): Promise<ConversationMember[]> {
    return this.conversations.withUnread(userId, count);
  }
}
