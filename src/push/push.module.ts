import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminModule } from '../admin/admin.module';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { UsersModule } from '../users/users.module';
import { PushAdminController } from './push-admin.controller';
import { PushAdminService } from './push-admin.service';
import { PushDeliveriesRepository } from './push-deliveries.repository';
import { PushDispatchRepository } from './push-dispatch.repository';
import { PushDispatcher } from './push-dispatcher.service';
import { PushFanout } from './push-fanout';
import { PushProviders } from './push-providers';
import { PushRegistrationsRepository } from './push-registrations.repository';
import { PushRetentionService } from './push-retention.service';
import { PushSender } from './push-sender.service';
import { PushSettingsRepository } from './push-settings.repository';
import { PushController } from './push.controller';
import { PushDeliveryEntity, PushDispatchEntity, PushRegistrationEntity, PushSettingsEntity } from './push.entities';
import { PushService } from './push.service';

/**
 * Offline push: device registrations and settings (SDK), the dispatcher that reads the outbox
 * for offline recipients, the per-provider senders (APNs, FCM, Huawei, Xiaomi), and the
 * console's status and test send. See docs/push.md.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([PushRegistrationEntity, PushSettingsEntity, PushDeliveryEntity, PushDispatchEntity]),
    ImTokenModule,
    UsersModule,
    ConversationsModule,
    ConversationViewsModule,
    RealtimeModule,
    AdminModule,
  ],
  controllers: [PushController, PushAdminController],
  providers: [
    PushRegistrationsRepository,
    PushSettingsRepository,
    PushDeliveriesRepository,
    PushDispatchRepository,
    PushProviders,
    PushFanout,
    PushSender,
    PushDispatcher,
    PushService,
    PushAdminService,
    PushRetentionService,
  ],
  exports: [PushService, PushRetentionService],
})
export class PushModule {}
