import { ApiProperty } from '@nestjs/swagger';
import type {
  WebhookBreakerState,
  WebhookDeliveriesReply as DeliveriesShape,
  WebhookDeliveryReply as DeliveryShape,
  WebhookDeliveryStatus,
  WebhookEndpointReply as EndpointShape,
  WebhookEndpointReplyWrap,
  WebhookEndpointsReply as EndpointsShape,
  WebhookEventType,
  WebhookReplayReply as ReplayShape,
  WebhookSecretReply as SecretShape,
} from '../contract/webhooks';
import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks';
import { keyFingerprint } from '../settings/runtime-settings';
import type { WebhookDeliveryEntity, WebhookEndpointEntity } from './webhook.entities';
import { DELIVERY_STATUSES } from './webhook-admin.dto';

export class WebhookEndpointReply implements EndpointShape {
  @ApiProperty({ example: '1' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty() description: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, nullable: true, description: 'null: every type.' })
  event_types: WebhookEventType[] | null;
  @ApiProperty({ description: 'false while paused by an operator.' }) enabled: boolean;
  @ApiProperty({ enum: ['closed', 'open', 'half_open'] }) breaker: WebhookBreakerState;
  @ApiProperty({ description: 'First 12 hex digits of the current secret’s SHA-256.' }) secret_fingerprint: string;
  @ApiProperty({ type: String, nullable: true, description: 'During a rotation: the previous secret, still signing.' })
  previous_secret_fingerprint: string | null;
  @ApiProperty({ type: Number, nullable: true }) rotation_ends_at: number | null;
  @ApiProperty({ example: '42' }) cursor_position: string;
  @ApiProperty() lag_events: number;
  @ApiProperty() lag_ms: number;
  @ApiProperty({ type: Number, nullable: true }) last_delivery_at: number | null;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class WebhookEndpointsReply implements EndpointsShape {
  @ApiProperty({ type: [WebhookEndpointReply] }) endpoints: WebhookEndpointReply[];
}

export class WebhookEndpointWrapReply implements WebhookEndpointReplyWrap {
  @ApiProperty({ type: WebhookEndpointReply }) endpoint: WebhookEndpointReply;
}

export class WebhookSecretReply implements SecretShape {
  @ApiProperty({ type: WebhookEndpointReply }) endpoint: WebhookEndpointReply;
  @ApiProperty({ description: 'The signing secret, shown this once.', example: 'whsec_…' }) secret: string;
}

export class WebhookDeliveryReply implements DeliveryShape {
  @ApiProperty() id: string;
  @ApiProperty() event_id: string;
  @ApiProperty() type: string;
  @ApiProperty() position: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: WebhookDeliveryStatus;
  @ApiProperty() attempts: number;
  @ApiProperty({ type: Number, nullable: true }) last_status_code: number | null;
  @ApiProperty({ type: String, nullable: true }) last_error: string | null;
  @ApiProperty({ type: Number, nullable: true }) latency_ms: number | null;
  @ApiProperty() first_attempt_at: number;
  @ApiProperty() last_attempt_at: number;
  @ApiProperty({ type: Number, nullable: true }) next_attempt_at: number | null;
}

export class WebhookDeliveriesReply implements DeliveriesShape {
  @ApiProperty({ type: [WebhookDeliveryReply] }) items: WebhookDeliveryReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
}

export class WebhookReplayReply implements ReplayShape {
  @ApiProperty({ description: 'Dead letters queued for one more attempt.' }) queued: number;
}

export interface EndpointFacts {
  breaker: WebhookBreakerState;
  lagEvents: number;
  lagMs: number;
  now: number;
}

export function toWebhookEndpointReply(row: WebhookEndpointEntity, facts: EndpointFacts): WebhookEndpointReply {
  const rotating = row.previousSecret !== null && (row.previousSecretUntil ?? 0) > facts.now;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes === null ? null : (JSON.parse(row.eventTypes) as WebhookEventType[]),
    enabled: !row.paused,
    breaker: facts.breaker,
    secret_fingerprint: keyFingerprint(row.secret),
    previous_secret_fingerprint: rotating ? keyFingerprint(row.previousSecret!) : null,
    rotation_ends_at: rotating ? row.previousSecretUntil : null,
    cursor_position: row.cursorPosition,
    lag_events: facts.lagEvents,
    lag_ms: facts.lagMs,
    last_delivery_at: row.lastDeliveryAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function toWebhookDeliveryReply(row: WebhookDeliveryEntity): WebhookDeliveryReply {
  return {
    id: row.id,
    event_id: row.eventId,
    type: row.type,
    position: row.position,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    latency_ms: row.latencyMs,
    first_attempt_at: row.firstAttemptAt,
    last_attempt_at: row.lastAttemptAt,
    next_attempt_at: row.nextAttemptAt,
  };
}
