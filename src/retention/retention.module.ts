import { Module } from '@nestjs/common';
import { ClientErrorsModule } from '../client-errors/client-errors.module';
import { HostAppModule } from '../host-app/host-app.module';
import { RtcCallbackModule } from '../rtc-callback/rtc-callback.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { PushModule } from '../push/push.module';
import { ServerRequestsModule } from '../server-api/server-requests.module';
import { AnalyticsActivityModule } from '../analytics/analytics-activity.module';
import { RetentionService } from './retention.service';

/** Prunes old client errors, room events and idempotency records; each module deletes its own rows. */
@Module({
  imports: [
    ClientErrorsModule,
    RtcCallbackModule,
    HostAppModule,
    ServerRequestsModule,
    WebhooksModule,
    PushModule,
    AnalyticsActivityModule,
  ],
  providers: [RetentionService],
  exports: [RetentionService],
})
export class RetentionModule {}
