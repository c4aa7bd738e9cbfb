import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthService } from '../auth/auth.service';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ImTokenModule } from '../im-token/im-token.module';
import { HostAccountErasure } from './host-account-erasure.service';
import { HostAccountsRepository } from './host-accounts.repository';
import { HostAppController } from './host-app.controller';
import { HostAppRetentionService } from './host-app-retention.service';
import { HostAccountEntity, HostSessionEntity, SmsCodeEntity } from './host-app.entities';
import { HostAuthService } from './host-auth.service';
import { HostSessionGuard } from './host-session.guard';
import { HostSessionStore } from './host-session-store';
import { HostSessionsRepository } from './host-sessions.repository';
import { RedisHostSessionStore } from './redis-host-session-store';
import { SmsCodesRepository } from './sms-codes.repository';
import { SmsPhoneSendEntity } from './sms-phone-send.entity';
import { HttpSmsSender, LogSmsSender, SmsSender } from './sms-sender';
import { SmsService } from './sms.service';

/**
 * The bundled host application under /app/auth: its own accounts, sessions and SMS codes,
 * linked to IM users through AuthService exactly as an external host backend is.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([HostAccountEntity, HostSessionEntity, SmsCodeEntity, SmsPhoneSendEntity]),
    ImTokenModule,
  ],
  controllers: [HostAppController],
  providers: [
    // The host backend's own upsert and token issue (src/auth), stateless, so a second instance is the same service.
    AuthService,
    HostAccountsRepository,
    HostSessionsRepository,
    SmsCodesRepository,
    SmsService,
    HostAuthService,
    HostAppRetentionService,
    HostAccountErasure,
    HostSessionGuard,
    {
      provide: HostSessionStore,
      inject: [APP_CONFIG, HostSessionsRepository],
      useFactory: (config: AppConfig, table: HostSessionsRepository): HostSessionStore =>
        config.hostApp.sessionStore === 'redis'
          ? new RedisHostSessionStore(
              config.messaging.redisUrl!,
              // A login may wait a little longer for Redis than a rate-limit check does.
              Math.max(config.operations.redisTimeoutMs, 1000),
              config.hostApp.sessionAbsoluteSeconds * 1000,
              config.messaging.redisPrefix.keys,
            )
          : table,
    },
    {
      provide: SmsSender,
      inject: [APP_CONFIG, Clock],
      useFactory: (config: AppConfig, clock: Clock): SmsSender =>
        config.hostApp.sms.driver === 'http'
          ? new HttpSmsSender(config.hostApp.sms)
          : new LogSmsSender(() => clock.now()),
    },
  ],
  // HostAccountErasure: the server API's user erasure.
  exports: [HostAppRetentionService, HostAccountErasure],
})
export class HostAppModule implements OnApplicationShutdown {
  constructor(@Inject(HostSessionStore) private readonly sessions: HostSessionStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.sessions.close();
  }
}
