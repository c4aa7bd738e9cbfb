import { Injectable } from '@nestjs/common';
import type { GroupActivity } from './group-activity';
import { ConversationsRepository } from './conversations.repository';

/**
 * Groups by their conversation's last message, for the operator console's Groups list: the
 * groups module owns the groups table and filters, this module owns last_message_at.
 */
@Injectable()
export class GroupActivityReader {
  constructor(private readonly conversations: ConversationsRepository) {}

  /**
   * Up to `limit` groups after `after`, most recently messaged first, then the never-messaged
   * ones (last_message_at 0); ties by group ID, descending. A keyset read of
   * IDX_conversations_type_last_message.
   */
  page(after: GroupActivity | null, limit: number): Promise<GroupActivity[]> {
    return this.conversations.groupsByLastMessage(after, limit);
  }

  /** The last message time of each of these groups (internal IDs) that has a conversation. */
  lastMessageAtOf(groupIds: readonly string[]): Promise<Map<string, number>> {
    return this.conversations.lastMessageAtOfGroups(groupIds);
  }
}
