import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import type { Conversation } from '../conversations/conversation';
import { directConversationId, groupConversationId } from '../conversations/conversation-id';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { MemberConversationIds } from '../conversations/message-event-writer';
import { TransactionRunner } from '../database/transaction-runner';
import { GroupDirectory } from '../groups/group-directory.service';
import { MediaAttachments } from '../media/media-attachments.service';
import { UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import type { ReportLink } from './report-link';
import { AdminAuditService } from './admin-audit.service';
import { AdminMessageChangeItem, AdminMessagesChangeReply } from './admin-enforcement.reply';
import { MAX_ADMIN_MESSAGE_IDS } from './admin-enforcement.dto';

type Change = 'recalled' | 'deleted';

const DECIMAL_ID = /^[1-9][0-9]{0,18}$/;

/**
 * Messages recalled or deleted for everyone by the operator: the sender's own change
 * (ConversationStore.tombstoneMessage: content removed, mid and sequence kept, out of unread
 * counts, versions raised, `message.recalled` / `message.deleted` to every member) with no
 * recall window, and the sender named as `by` in the event, as erasure does (the event has no
 * notion of a console operator; the audit log says who). A delete also applies to a recalled
 * message (its tombstone becomes `deleted`, which clients drop from the history); a recall of
 * a deleted message changes nothing. Every message of a call changes in one transaction.
 */
@Injectable()
export class AdminMessagesService {
  constructor(
    private readonly store: ConversationStore,
    private readonly groups: GroupDirectory,
    private readonly users: UsersService,
    private readonly media: MediaAttachments,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  recall(
    actor: AdminActor,
    conversationId: string,
    messageIds: string[],
    report?: ReportLink,
  ): Promise<AdminMessagesChangeReply> {
    return this.change(actor, conversationId, messageIds, 'recalled', report);
  }

  delete(
    actor: AdminActor,
    conversationId: string,
    messageIds: string[],
    report?: ReportLink,
  ): Promise<AdminMessagesChangeReply> {
    return this.change(actor, conversationId, messageIds, 'deleted', report);
  }

  private async change(
    actor: AdminActor,
    conversationRef: string,
    messageIds: string[],
    to: Change,
    report: ReportLink | undefined,
  ): Promise<AdminMessagesChangeReply> {
    const ids = checkedIds(messageIds);
    const { conversation, idFor } = await this.resolve(conversationRef);
    const items = await this.tx.run(async (manager) => {
      const found = new Map((await this.store.lockMessages(manager, conversation.id, ids)).map((m) => [m.id, m]));
      const missing = ids.find((id) => !found.has(id));
      if (missing !== undefined)
        throw new AppError(ErrorCode.MESSAGE_ABSENT, `message_ids: no message ${missing} in this conversation`);
      const senders = await this.senderIds(
        manager,
        ids.map((id) => found.get(id)!.senderId),
      );
      const results: AdminMessageChangeItem[] = [];
      const before: Record<string, string> = {};
      for (const id of ids) {
        const message = found.get(id)!;
        before[id] = message.status;
        const sender = { internalId: message.senderId, externalId: senders.get(message.senderId) ?? '' };
        const eventId =
          message.status === to || (to === 'recalled' && message.status === 'deleted')
            ? null
            : await this.store.tombstoneMessage(manager, {
                conversation,
                idFor,
                actor: sender,
                message,
                senderExternalId: sender.externalId,
                to,
                now: this.clock.now(),
              });
        // As the sender's change does: the tombstone no longer lends access to its upload.
        if (eventId !== null && (message.type === 'image' || message.type === 'file'))
          await this.media.unlinkMessage(manager, conversation.id, message.seq);
        results.push({
          message_id: id,
          status: eventId === null ? message.status : to,
          changed: eventId !== null,
          event_id: eventId,
        });
      }
      await this.audit.record(manager, actor, {
        action: to === 'recalled' ? 'message.recalled' : 'message.deleted',
        targetType: 'conversation',
        targetId: conversation.id,
        before: { messages: before },
        after: { messages: Object.fromEntries(results.map((r) => [r.message_id, r.status])) },
        reportId: report?.id,
      });
      await report?.linked(manager);
      return results;
    });
    return { conversation_id: conversation.id, items };
  }

  /**
   * The internal conversation ID, or a group's `group_<id>`; with each member's ID for it (a
   * one-to-one conversation is named after the other side, a group's alike for everyone).
   */
  private async resolve(ref: string): Promise<{ conversation: Conversation; idFor: MemberConversationIds }> {
    const absent = () => new AppError(ErrorCode.CONVERSATION_INACCESSIBLE, 'conversation_id: no such conversation');
    let conversation: Conversation | null;
    if (ref.startsWith('group_')) {
      const group = await this.groups.findByPublicId(ref.slice('group_'.length));
      conversation = group ? await this.store.findByGroupId(group.id) : null;
    } else {
      conversation = DECIMAL_ID.test(ref) ? await this.store.findById(ref) : null;
    }
    if (!conversation) throw absent();
    if (conversation.type === 'group') {
      const [group] = await this.groups.findByIds([conversation.groupId ?? '']);
      if (!group) throw absent();
      const id = groupConversationId(group.publicId);
      return { conversation, idFor: () => id };
    }
    const [low, high] = (conversation.directKey ?? '').split(':');
    const external = await this.users.externalIds([low, high]);
    const sees = (userId: string) => directConversationId(external.get(userId === low ? high : low) ?? '');
    return { conversation, idFor: sees };
  }

  /** Through the transaction's manager: a pooled read here would queue behind the locks it holds. */
  private async senderIds(manager: EntityManager, ids: string[]): Promise<Map<string, string>> {
    const external = new Map<string, string>();
    for (const id of new Set(ids)) {
      const user = await this.users.findById(id, manager);
      if (user) external.set(id, user.externalId);
    }
    return external;
  }
}

/** 1 to 50 decimal IDs, no repeats: checked here too, for callers without a request body. */
function checkedIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_ADMIN_MESSAGE_IDS)
    throw AppError.invalid('message_ids', `must be 1 to ${MAX_ADMIN_MESSAGE_IDS} message IDs`);
  const bad = ids.find((id) => typeof id !== 'string' || !DECIMAL_ID.test(id));
  if (bad !== undefined) throw AppError.invalid('message_ids', `${String(bad)} is not a message ID`);
  if (new Set(ids).size !== ids.length) throw AppError.invalid('message_ids', 'must not repeat an ID');
  return ids as string[];
}
