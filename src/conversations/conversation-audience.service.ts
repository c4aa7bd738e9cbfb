import { Injectable, OnModuleInit } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { ConversationAudience, ConversationAudienceRef, ConversationEventRef } from '../outbox/conversation-audience';
import { canHearEvent, eventVisibleSql } from './visibility';

/** Rows per statement when many conversations' members are read at once. */
const ID_BATCH = 500;

/**
 * The outbox's ConversationAudience: a message event goes to the members whose visible range
 * holds its sequence and, for a former member, who left after it was written (visibility.ts).
 */
@Injectable()
export class ConversationAudienceService implements ConversationAudience, OnModuleInit {
  constructor(private readonly ref: ConversationAudienceRef) {}

  onModuleInit(): void {
    this.ref.use(this);
  }

  memberEventsSql(e: string): { from: string; forUser: string } {
    return {
      from: `conversation_members m JOIN outbox_events ${e} ON ${e}.conversation_id = m.conversation_id AND ${eventVisibleSql('m', e)}`,
      forUser: 'm.user_id = ?',
    };
  }

  async recipientsOf(manager: EntityManager, events: readonly ConversationEventRef[]): Promise<Map<bigint, string[]>> {
    const conversationIds = [...new Set(events.map((event) => event.conversationId))];
    const members = new Map<string, Array<Parameters<typeof canHearEvent>[0] & { userId: string }>>();
    for (let i = 0; i < conversationIds.length; i += ID_BATCH) {
      const batch = conversationIds.slice(i, i + ID_BATCH);
      const rows = (await manager.query(
        `SELECT conversation_id, user_id, visible_from_seq, visible_to_seq, visible_to_position FROM conversation_members WHERE conversation_id IN (${batch.map(() => '?').join(', ')})`,
        batch,
      )) as Array<{
        conversation_id: string | number;
        user_id: string | number;
        visible_from_seq: string | number;
        visible_to_seq: string | number | null;
        visible_to_position: string | number | null;
      }>;
      for (const m of rows) {
        const list = members.get(String(m.conversation_id)) ?? [];
        list.push({
          userId: String(m.user_id),
          visibleFromSeq: String(m.visible_from_seq),
          visibleToSeq: m.visible_to_seq === null ? null : String(m.visible_to_seq),
          visibleToPosition: m.visible_to_position === null ? null : String(m.visible_to_position),
        });
        members.set(String(m.conversation_id), list);
      }
    }
    const recipients = new Map<bigint, string[]>();
    for (const event of events) {
      const hearing: string[] = [];
      for (const member of members.get(event.conversationId) ?? [])
        if (canHearEvent(member, event.seq, event.rowId)) hearing.push(member.userId);
      recipients.set(event.rowId, hearing);
    }
    return recipients;
  }
}
