import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ConversationStore } from '../conversations/conversation-store.service';
import { MessageHistory } from '../conversations/message-history.service';
import { TransactionRunner } from '../database/transaction-runner';
import { MediaAttachments } from '../media/media-attachments.service';
import type { User } from '../users/user';
import { ErasureConversations } from './user-erasure-conversations';

const PAGE = 100;

/**
 * Turns every message the user sent into a tombstone of status `deleted`, exactly as the
 * sender's own "delete for everyone" does (ConversationStore.tombstoneMessage: content removed,
 * unread counts and versions moved, `message.deleted` to the members), one message per
 * transaction so that a large history never holds locks for long. Pages by message ID, so a
 * user with 100k messages is never loaded at once; a message already deleted is skipped, so a
 * resumed erasure continues where the last one stopped.
 */
@Injectable()
export class ErasureMessages {
  constructor(
    private readonly history: MessageHistory,
    private readonly store: ConversationStore,
    private readonly media: MediaAttachments,
    private readonly conversations: ErasureConversations,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** How many messages became tombstones; `onPage` runs between pages (the erasure keeps its lease). */
  async tombstoneAll(user: User, onPage: () => Promise<void>): Promise<number> {
    const actor = { internalId: user.id, externalId: user.externalId };
    let count = 0;
    let after: string | null = null;
    for (;;) {
      const page = await this.history.listBySender(user.id, after, PAGE, true);
      if (page.length === 0) return count;
      const named = await this.conversations.name(
        user,
        page.map((m) => m.conversationId),
      );
      for (const message of page) {
        const conversation = named.get(message.conversationId);
        if (!conversation) continue;
        const changed = await this.tx.run(async (manager) => {
          const eventId = await this.store.tombstoneMessage(manager, {
            conversation: conversation.conversation,
            idFor: conversation.idFor,
            actor,
            message,
            senderExternalId: user.externalId,
            to: 'deleted',
            now: this.clock.now(),
          });
          // As a delete does: the tombstone no longer lends access to its upload.
          if (eventId !== null && (message.type === 'image' || message.type === 'file'))
            await this.media.unlinkMessage(manager, conversation.conversation.id, message.seq);
          return eventId !== null;
        });
        if (changed) count++;
      }
      after = page[page.length - 1].id;
      await onPage();
    }
  }
}
