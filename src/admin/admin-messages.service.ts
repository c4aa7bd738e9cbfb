import { Injectable } from '@nestjs/common';
import type { AdminActor } from './admin-actor';
import { AdminMessagesChangeReply } from './admin-enforcement.reply';

/** Messages as the operator changes them: a recall or delete for everyone, audited. */
@Injectable()
export class AdminMessagesService {
  recall(
    actor: AdminActor,
    conversationId: string,
    messageIds: string[],
    reportId?: string,
  ): Promise<AdminMessagesChangeReply> {
    void [actor, conversationId, messageIds, reportId];
    throw new Error('not yet');
  }

  delete(
    actor: AdminActor,
    conversationId: string,
    messageIds: string[],
    reportId?: string,
  ): Promise<AdminMessagesChangeReply> {
    void [actor, conversationId, messageIds, reportId];
    throw new Error('not yet');
  }
}
