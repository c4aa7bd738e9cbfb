import type { DurableEventMap, DurableEventType } from '../contract/events';

/** What every recipient of an event of type T receives alike. */
export type SharedPart<T extends DurableEventType> = DurableEventMap[T]['shared'];
/** What one recipient of an event of type T receives on top of the shared part (null for most types). */
export type PrivatePart<T extends DurableEventType> = DurableEventMap[T]['private'];

/** One recipient of an event, with their private part. */
export interface EventRecipient<T extends DurableEventType = DurableEventType> {
  userId: string;
  private: PrivatePart<T> | null;
}

/** A sequenced event of one type, with everyone who receives it. */
export interface SequencedEventOf<T extends DurableEventType> {
  position: string;
  eventId: string;
  type: T;
  payload: SharedPart<T>;
  createdAt: number;
  recipients: Array<EventRecipient<T>>;
  /** Message events: the conversation's row ID (readers that look up per-conversation state, such as push). */
  conversationRowId?: string;
}

/** A sequenced event with its recipients, discriminated by `type`: payload and private parts follow the event map. */
export type SequencedEvent = { [T in DurableEventType]: SequencedEventOf<T> }[DurableEventType];

/** One user's copy of a sequenced event (a replay): the shared part and that user's private part. */
export interface DeliverableEventOf<T extends DurableEventType> {
  position: string;
  eventId: string;
  type: T;
  payload: SharedPart<T>;
  private: PrivatePart<T> | null;
  createdAt: number;
}

export type DeliverableEvent = { [T in DurableEventType]: DeliverableEventOf<T> }[DurableEventType];

/** Events given positions in one round: contiguous positions (after, upTo]. */
export interface SequencedBatch {
  after: string;
  upTo: string;
  events: SequencedEvent[];
}

// A record over the map's keys, so a type added to the map without being added here fails to compile.
const KNOWN: Record<DurableEventType, true> = {
  'message.new': true,
  'message.recalled': true,
  'message.deleted': true,
  'conversation.read': true,
  'conversation.peer_read': true,
  'conversation.updated': true,
  'friend.request_created': true,
  'friend.request_accepted': true,
  'friend.request_rejected': true,
  'friend.added': true,
  'friend.deleted': true,
  'friend.blocked': true,
  'friend.unblocked': true,
  'user.profile_updated': true,
  'group.created': true,
  'group.updated': true,
  'group.owner_transferred': true,
  'group.dismissed': true,
  'group.members_added': true,
  'group.members_removed': true,
  'group.member_left': true,
  'group.member_joined': true,
  'group.admin_changed': true,
  'group.member_muted': true,
  'group.invitation_created': true,
  'call.invited': true,
  'call.ringing': true,
  'call.accepted': true,
  'call.rejected': true,
  'call.canceled': true,
  'call.participant_joined': true,
  'call.participant_left': true,
  'call.ended': true,
  'report.created': true,
};

function isDurableEventType(type: string): type is DurableEventType {
  return Object.prototype.hasOwnProperty.call(KNOWN, type);
}

/**
 * The columns of a stored event as the driver returns them. Every reader of the stream turns
 * them into typed events here and nowhere else: the text was written from the event map's
 * types by the outbox (OutboxRepository), in the same transaction as the change.
 */
export interface StoredEventRow {
  position?: string | number | null;
  conversation_id?: string | number | null;
  event_id: string;
  type: string;
  payload: string;
  created_at: string | number;
}

/** Parsed private parts by user ID: one-to-one message events store every member's in the event row. */
export type PrivateParts = Record<string, PrivatePart<DurableEventType>>;

/**
 * The event of a stored row with its recipients (a sequenced event). The one assertion of the
 * stream's types: the row's type names its payload's and private parts' shapes, as the outbox
 * wrote them.
 */
export function sequencedEventOf(
  row: StoredEventRow,
  recipients: (type: DurableEventType) => Array<EventRecipient<DurableEventType>>,
): SequencedEvent {
  const type = storedType(row.type);
  return {
    position: String(row.position),
    eventId: row.event_id,
    type,
    payload: parseShared(row.payload),
    createdAt: Number(row.created_at),
    recipients: recipients(type),
    ...(row.conversation_id !== null && row.conversation_id !== undefined
      ? { conversationRowId: String(row.conversation_id) }
      : {}),
  } as SequencedEvent;
}

/** One user's copy of a stored event: the shared part and their private part. */
export function deliverableEventOf(
  row: StoredEventRow,
  privatePart: PrivatePart<DurableEventType> | null,
): DeliverableEvent {
  const type = storedType(row.type);
  return {
    position: String(row.position),
    eventId: row.event_id,
    type,
    payload: parseShared(row.payload),
    private: privatePart,
    createdAt: Number(row.created_at),
  } as DeliverableEvent;
}

/** Every member's private part of a conversation event (null when the event has none). */
export function privatePartsOf(json: string | null): PrivateParts | null {
  return json ? (JSON.parse(json) as PrivateParts) : null;
}

/** A recipient row holds its own private part; a conversation event row holds every member's, by user ID. */
export function privatePartOf(
  json: string,
  fromConversation: number | string | boolean,
  userId: string,
): PrivatePart<DurableEventType> | null {
  if (Number(fromConversation) !== 1) return JSON.parse(json) as PrivatePart<DurableEventType>;
  return privatePartsOf(json)?.[userId] ?? null;
}

function storedType(type: string): DurableEventType {
  // The column is written from the map only; anything else is a corrupt row, not an event to guess at.
  if (!isDurableEventType(type)) throw new Error(`outbox: unknown event type "${type}"`);
  return type;
}

function parseShared(json: string): SharedPart<DurableEventType> {
  return JSON.parse(json) as SharedPart<DurableEventType>;
}
