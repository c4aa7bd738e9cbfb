import type { DurableEventMap, DurableEventType, MessageEventType } from '../contract/events';

/** What a module appends to the outbox (OutboxWriter). */

export interface OutboxRecipient<T extends DurableEventType = DurableEventType> {
  userId: string;
  /** Private state of this recipient (unread, pinned, muted); omit or null for shared events. */
  private?: DurableEventMap[T]['private'] | null;
}

export interface OutboxEventInput<T extends DurableEventType> {
  type: T;
  payload: DurableEventMap[T]['shared'];
  recipients: Array<OutboxRecipient<T>>;
}

export interface ConversationEventInput<T extends MessageEventType> {
  type: T;
  payload: DurableEventMap[T]['shared'];
  conversationId: string;
  /** The sequence of the message the event is about. */
  seq: string;
  /** One-to-one events: each member's private part (their conversation ID, unread), by internal user ID. */
  privateParts?: Record<string, NonNullable<DurableEventMap[T]['private']>> | null;
  /**
   * Or the same parts as an SQL expression that yields their JSON, evaluated by the insert itself
   * (a scalar subquery over the caller's own tables, inside the same transaction): the read costs
   * no round trip of its own.
   */
  privatePartsSql?: SqlExpression;
}

/** An SQL expression with its `?` parameters. */
export interface SqlExpression {
  sql: string;
  params: readonly unknown[];
}
