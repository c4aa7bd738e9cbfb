import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { Logger as PinoRoot } from 'pino';
import { AdminModule } from './admin/admin.module';
import { AdminConsoleModule } from './admin-console/admin-console.module';
import { DemoModule } from './demo/demo.module';
import { RuntimeSettingsModule } from './settings/runtime-settings.module';
import { AuthModule } from './auth/auth.module';
import { ClientErrorsModule } from './client-errors/client-errors.module';
import { CapabilityGuard } from './common/capability.guard';
import { Clock } from './common/clock';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { EnvelopeInterceptor } from './common/http/envelope.interceptor';
import { StrictValidationPipe } from './common/validation/strict-validation.pipe';
import { AppConfig } from './config/app-config';
import { CoreModule } from './config/core.module';
import { DatabaseModule } from './database/database.module';
import { ConversationsModule } from './conversations/conversations.module';
import { FriendsModule } from './friends/friends.module';
import { GroupManagementModule } from './groups/group-management.module';
import { GroupsModule } from './groups/groups.module';
import { HealthModule } from './health/health.module';
import { HostAppModule } from './host-app/host-app.module';
import { MediaModule } from './media/media.module';
import { MessagesModule } from './messages/messages.module';
import { MetricsModule } from './metrics/metrics.module';
import { ProfileModule } from './profile/profile.module';
import { OutboxModule } from './outbox/outbox.module';
import { RealtimeModule } from './realtime/realtime.module';
import { CallsModule } from './calls/calls.module';
import { ReportsModule } from './reports/reports.module';
import { RetentionModule } from './retention/retention.module';
import { RtcCallbackModule } from './rtc-callback/rtc-callback.module';
import { SyncModule } from './sync/sync.module';
import { ServerApiModule } from './server-api/server-api.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { PushModule } from './push/push.module';

export interface AppOverrides {
  clock?: Clock;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, overrides: AppOverrides, root: PinoRoot): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MetricsModule,
        CoreModule.forRoot(config, root, overrides.clock),
        DatabaseModule.forRoot(config),
        RuntimeSettingsModule,
        OutboxModule,
        RateLimitModule,
        HealthModule,
        AuthModule,
        ProfileModule,
        FriendsModule,
        GroupsModule,
        GroupManagementModule,
        ConversationsModule,
        MediaModule,
        MessagesModule,
        SyncModule,
        ClientErrorsModule,
        ReportsModule,
        RtcCallbackModule,
        RetentionModule,
        RealtimeModule,
        CallsModule,
        AdminModule,
        AdminConsoleModule,
        DemoModule,
        HostAppModule,
        ServerApiModule,
        WebhooksModule,
        PushModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useClass: StrictValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_GUARD, useClass: CapabilityGuard },
      ],
    };
  }
}
