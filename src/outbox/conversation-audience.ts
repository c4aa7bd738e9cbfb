import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A message event of a conversation, as the audience is asked about it. */
export interface ConversationEventRef {
  conversationId: string;
  seq: bigint;
  /** The event's row ID (a former member hears only events written before they left). */
  rowId: bigint;
}

/**
 * Who receives a conversation's message events. A message event is stored once for its
 * conversation; which members hear it is the conversations module's rule (what each member may
 * see), so the outbox asks this port and knows no membership of its own. The conversations
 * module provides the implementation and connects it at start-up (ConversationAudienceRef.use).
 */
export interface ConversationAudience {
  /**
   * SQL joining the membership rows of one user to the message events `e` (an outbox_events
   * alias) that user may hear: a FROM clause, and a condition with one `?` for the user's ID.
   */
  memberEventsSql(e: string): { from: string; forUser: string };
  /** For each event, the internal IDs of the users who hear it. */
  recipientsOf(manager: EntityManager, events: readonly ConversationEventRef[]): Promise<Map<bigint, string[]>>;
}

/** Where the outbox finds the ConversationAudience the conversations module connected. */
@Injectable()
export class ConversationAudienceRef {
  private audience: ConversationAudience | null = null;

  use(audience: ConversationAudience): void {
    this.audience = audience;
  }

  get(): ConversationAudience {
    if (!this.audience) throw new Error('no ConversationAudience is connected (ConversationsModule provides it)');
    return this.audience;
  }
}
