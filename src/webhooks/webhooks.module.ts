import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminModule } from '../admin/admin.module';
import { UsersModule } from '../users/users.module';
import { WebhookAdminController } from './webhook-admin.controller';
import { WebhookAdminService } from './webhook-admin.service';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { WebhookRetentionService } from './webhook-retention.service';
import { WebhookSeeder } from './webhook-seeder';
import { WebhookDeliveryEntity, WebhookEndpointEntity } from './webhook.entities';

/**
 * Webhooks: host endpoints that receive the outbox's events, signed, in order, at least once,
 * each endpoint from its own loop on the instance holding its lease (see WebhookDispatcher).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEndpointEntity, WebhookDeliveryEntity]), AdminModule, UsersModule],
  controllers: [WebhookAdminController],
  providers: [
    WebhookEndpointsRepository,
    WebhookDeliveriesRepository,
    WebhookSeeder,
    WebhookDispatcher,
    WebhookAdminService,
    WebhookRetentionService,
  ],
  exports: [WebhookRetentionService],
})
export class WebhooksModule {}
