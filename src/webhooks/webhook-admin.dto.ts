import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, ValidateIf } from 'class-validator';
import { Optional, Required } from '../common/validation/presence.decorators';
import { IsText, TextRules } from '../common/validation/text-field.decorator';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { WEBHOOK_DESCRIPTION_MAX, WEBHOOK_URL_MAX } from '../config/webhook-delivery-config';
import {
  CreateWebhookRequest,
  ReplayWebhookRequest,
  UpdateWebhookRequest,
  WEBHOOK_EVENT_TYPES,
  WebhookDeliveriesQuery,
  WebhookDeliveryStatus,
  WebhookEventType,
  WebhookRefRequest,
} from '../contract/webhooks';

const ID: TextRules = { min: 1, max: 19, pattern: { regex: /^[1-9][0-9]*$/, description: 'a decimal ID' } };
const URL_RULES: TextRules = { min: 1, max: WEBHOOK_URL_MAX, noControl: true, noEdgeWhitespace: true };
const DESCRIPTION: TextRules = { min: 0, max: WEBHOOK_DESCRIPTION_MAX, noControl: true };
export const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = [
  'delivered',
  'retrying',
  'dead',
  'replaying',
  'replayed',
];
export const REPLAY_MAX = 100;

/** Absent: unchanged; null: every type (no Optional() here, which would turn null into absent). */
function EventTypes(): PropertyDecorator {
  return (target, key) => {
    ValidateIf((_o: object, value: unknown) => value !== undefined && value !== null)(target, key);
    IsArray({ message: 'event_types must be a JSON array of event types, or null for every type' })(target, key);
    ArrayMinSize(1, { message: 'event_types must name at least one type (null: every type)' })(target, key);
    ArrayMaxSize(WEBHOOK_EVENT_TYPES.length, {
      message: `event_types has at most ${WEBHOOK_EVENT_TYPES.length} entries`,
    })(target, key);
    IsIn(WEBHOOK_EVENT_TYPES, {
      each: true,
      message: `event_types entries must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
    })(target, key);
  };
}

const TYPES_DOC = {
  enum: WEBHOOK_EVENT_TYPES,
  isArray: true,
  nullable: true,
  description: 'The types delivered; null or absent (create): every type.',
};

@RefuseUnknownFields()
export class CreateWebhookDto implements CreateWebhookRequest {
  @ApiProperty({ example: 'https://host.example.com/im/webhooks' }) @Required() @IsText(URL_RULES) url: string;
  @ApiPropertyOptional({ maxLength: WEBHOOK_DESCRIPTION_MAX }) @Optional() @IsText(DESCRIPTION) description?: string;
  @ApiPropertyOptional(TYPES_DOC) @EventTypes() event_types?: WebhookEventType[] | null;
}

@RefuseUnknownFields()
export class WebhookRefDto implements WebhookRefRequest {
  @ApiProperty({ example: '1' }) @Required() @IsText(ID) id: string;
}

@RefuseUnknownFields()
export class UpdateWebhookDto implements UpdateWebhookRequest {
  @ApiProperty({ example: '1' }) @Required() @IsText(ID) id: string;
  @ApiPropertyOptional() @Optional() @IsText(URL_RULES) url?: string;
  @ApiPropertyOptional({ maxLength: WEBHOOK_DESCRIPTION_MAX }) @Optional() @IsText(DESCRIPTION) description?: string;
  @ApiPropertyOptional(TYPES_DOC) @EventTypes() event_types?: WebhookEventType[] | null;
}

export class WebhookDeliveriesQueryDto implements WebhookDeliveriesQuery {
  @ApiProperty({ example: '1' }) @Required() @IsText(ID) endpoint_id: string;
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @Optional()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: WebhookDeliveryStatus;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page, unchanged.' })
  @Optional()
  @IsText(ID)
  cursor?: string;
}

@RefuseUnknownFields()
export class ReplayWebhookDto implements ReplayWebhookRequest {
  @ApiProperty({ example: '1' }) @Required() @IsText(ID) endpoint_id: string;
  @ApiProperty({ type: [String], maxItems: REPLAY_MAX, description: 'IDs of dead deliveries of the endpoint.' })
  @Required()
  @IsArray({ message: 'delivery_ids must be a JSON array of delivery IDs' })
  @ArrayMinSize(1, { message: 'delivery_ids must name at least one delivery' })
  @ArrayMaxSize(REPLAY_MAX, { message: `delivery_ids must have at most ${REPLAY_MAX} entries` })
  @IsText(ID, { each: true })
  delivery_ids: string[];
}
