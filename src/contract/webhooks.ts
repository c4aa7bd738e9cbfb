import type { DurableEventMap, DurableEventType } from './events.js';

/**
 * Webhooks: what the service POSTs to a host endpoint, and the admin console's replies about
 * endpoints and their deliveries (`/app/admin/webhooks*`).
 */

/** Per-user state with no shared part (read positions, pins): a host has nothing to act on, so these are not delivered. */
export type UndeliveredWebhookType = 'conversation.read' | 'conversation.peer_read' | 'conversation.updated';
export type WebhookEventType = Exclude<DurableEventType, UndeliveredWebhookType>;

/**
 * The body of one delivery: the event as the real-time gateway emits it, with the part every
 * recipient shares as `data`. One-to-one message events add `user_ids`, the conversation's two
 * members (external IDs), which sockets learn from their own private part instead.
 */
export interface WebhookDelivery<T extends WebhookEventType = WebhookEventType> {
  event_id: string;
  type: T;
  /** The event's place in the service's one sequence (decimal string); increasing per endpoint. */
  position: string;
  created_at: number;
  data: DurableEventMap[T]['shared'] & { user_ids?: string[] };
}

export type WebhookBreakerState = 'closed' | 'open' | 'half_open';

export interface WebhookEndpointReply {
  id: string;
  url: string;
  description: string;
  /** null: every type. */
  event_types: WebhookEventType[] | null;
  /** false while paused by an operator. */
  enabled: boolean;
  breaker: WebhookBreakerState;
  secret_fingerprint: string;
  /** During a rotation: the fingerprint of the previous secret, which still signs until rotation_ends_at. */
  previous_secret_fingerprint: string | null;
  rotation_ends_at: number | null;
  cursor_position: string;
  /** Events sequenced after the cursor (of every type). */
  lag_events: number;
  /** Age of the oldest event after the cursor; 0 when caught up. */
  lag_ms: number;
  last_delivery_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface WebhookEndpointsReply {
  endpoints: WebhookEndpointReply[];
}

export interface WebhookEndpointReplyWrap {
  endpoint: WebhookEndpointReply;
}

/** Create and rotate-secret: the new secret, shown this once. */
export interface WebhookSecretReply {
  endpoint: WebhookEndpointReply;
  secret: string;
}

export type WebhookDeliveryStatus = 'delivered' | 'retrying' | 'dead' | 'replaying' | 'replayed';

export interface WebhookDeliveryReply {
  id: string;
  event_id: string;
  type: string;
  position: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  latency_ms: number | null;
  first_attempt_at: number;
  last_attempt_at: number;
  next_attempt_at: number | null;
}

export interface WebhookDeliveriesReply {
  items: WebhookDeliveryReply[];
  next_cursor: string | null;
}

export interface WebhookReplayReply {
  /** The deliveries queued for one more attempt (dead letters only). */
  queued: number;
}

export interface CreateWebhookRequest {
  url: string;
  description?: string;
  event_types?: WebhookEventType[] | null;
}

export interface UpdateWebhookRequest {
  id: string;
  url?: string;
  description?: string;
  event_types?: WebhookEventType[] | null;
}

export interface WebhookRefRequest {
  id: string;
}

export interface WebhookDeliveriesQuery {
  endpoint_id: string;
  status?: WebhookDeliveryStatus;
  /** Pages are 50 deliveries (`limit` is refused service-wide, like page and offset). */
  cursor?: string;
}

export interface ReplayWebhookRequest {
  endpoint_id: string;
  delivery_ids: string[];
}

// A record over the types, so a durable type added to the map is a compile error here until it is decided.
const WEBHOOK_TYPES: Record<WebhookEventType, true> = {
  'message.new': true,
  'message.recalled': true,
  'message.deleted': true,
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

/** Every type an endpoint can ask for. */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_TYPES) as WebhookEventType[];

export function isWebhookEventType(type: string): type is WebhookEventType {
  return Object.prototype.hasOwnProperty.call(WEBHOOK_TYPES, type);
}
