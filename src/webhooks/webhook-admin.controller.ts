import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AdminActor, CurrentAdmin } from '../admin/admin-actor';
import { AdminApi } from '../admin/admin-api.decorator';
import { AdminRoles } from '../admin/admin.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import {
  CreateWebhookDto,
  ReplayWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveriesQueryDto,
  WebhookRefDto,
} from './webhook-admin.dto';
import {
  WebhookDeliveriesReply,
  WebhookEndpointsReply,
  WebhookEndpointWrapReply,
  WebhookReplayReply,
  WebhookSecretReply,
} from './webhook-admin.reply';
import { WebhookAdminService } from './webhook-admin.service';

/** Webhook endpoints and their deliveries: any admin role reads, the owner changes (audited). */
@AdminApi()
@Controller('app/admin/webhooks')
export class WebhookAdminController {
  constructor(private readonly webhooks: WebhookAdminService) {}

  @Get()
  @AdminRoles('viewer')
  @ApiOperation({
    summary: 'Every endpoint with its breaker, secret fingerprints, cursor and lag behind the newest event.',
  })
  @ApiEnvelope(WebhookEndpointsReply, ENDPOINT_ERRORS.adminWebhooks.list)
  list(): Promise<WebhookEndpointsReply> {
    return this.webhooks.list();
  }

  @Post('create')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Add an endpoint; it receives events from now on. The signing secret is shown this once.' })
  @ApiEnvelope(WebhookSecretReply, ENDPOINT_ERRORS.adminWebhooks.create)
  create(@CurrentAdmin() actor: AdminActor, @Body() dto: CreateWebhookDto): Promise<WebhookSecretReply> {
    return this.webhooks.create(actor, dto);
  }

  @Post('update')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Change the URL, description or event types (null: every type).' })
  @ApiEnvelope(WebhookEndpointWrapReply, ENDPOINT_ERRORS.adminWebhooks.update)
  update(@CurrentAdmin() actor: AdminActor, @Body() dto: UpdateWebhookDto): Promise<WebhookEndpointWrapReply> {
    return this.webhooks.update(actor, dto);
  }

  @Post('pause')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Stop delivering to the endpoint (the event in flight finishes).' })
  @ApiEnvelope(WebhookEndpointWrapReply, ENDPOINT_ERRORS.adminWebhooks.change)
  pause(@CurrentAdmin() actor: AdminActor, @Body() dto: WebhookRefDto): Promise<WebhookEndpointWrapReply> {
    return this.webhooks.pause(actor, dto.id);
  }

  @Post('resume')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Deliver again from the cursor, with a closed breaker.' })
  @ApiEnvelope(WebhookEndpointWrapReply, ENDPOINT_ERRORS.adminWebhooks.change)
  resume(@CurrentAdmin() actor: AdminActor, @Body() dto: WebhookRefDto): Promise<WebhookEndpointWrapReply> {
    return this.webhooks.resume(actor, dto.id);
  }

  @Post('delete')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Remove the endpoint and its delivery records; answers it as it was.' })
  @ApiEnvelope(WebhookEndpointWrapReply, ENDPOINT_ERRORS.adminWebhooks.change)
  remove(@CurrentAdmin() actor: AdminActor, @Body() dto: WebhookRefDto): Promise<WebhookEndpointWrapReply> {
    return this.webhooks.remove(actor, dto.id);
  }

  @Post('rotate-secret')
  @AdminRoles('owner')
  @ApiOperation({
    summary: 'A new signing secret, shown this once; the previous one keeps signing for WEBHOOK_SECRET_ROTATION_HOURS.',
  })
  @ApiEnvelope(WebhookSecretReply, ENDPOINT_ERRORS.adminWebhooks.change)
  rotate(@CurrentAdmin() actor: AdminActor, @Body() dto: WebhookRefDto): Promise<WebhookSecretReply> {
    return this.webhooks.rotateSecret(actor, dto.id);
  }

  @Get('deliveries')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'The endpoint’s deliveries, newest first, 50 a page.' })
  @ApiEnvelope(WebhookDeliveriesReply, ENDPOINT_ERRORS.adminWebhooks.deliveries)
  deliveries(@Query() query: WebhookDeliveriesQueryDto): Promise<WebhookDeliveriesReply> {
    return this.webhooks.listDeliveries(query);
  }

  @Post('replay')
  @AdminRoles('owner')
  @ApiOperation({
    summary: 'Send dead letters once more, out of the ordered stream; a failure leaves them dead with the new error.',
  })
  @ApiEnvelope(WebhookReplayReply, ENDPOINT_ERRORS.adminWebhooks.replay)
  replay(@CurrentAdmin() actor: AdminActor, @Body() dto: ReplayWebhookDto): Promise<WebhookReplayReply> {
    return this.webhooks.replay(actor, dto);
  }
}
