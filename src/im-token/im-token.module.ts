import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { createSecretKey } from 'node:crypto';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AnalyticsActivityModule } from '../analytics/analytics-activity.module';
import { UsersModule } from '../users/users.module';
import { ImTokenGuard } from './im-token.guard';
import { ImTokenService } from './im-token.service';

/** The IM token, shared by every SDK-facing module (and, next, the real-time gateway). */
@Module({
  imports: [
    // A prepared key: given a string, jsonwebtoken first tries (and fails) to parse it as a PEM
    // key on every sign and verify, which costs about a millisecond of CPU per request.
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({ secret: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) }),
    }),
    UsersModule,
    AnalyticsActivityModule,
  ],
  providers: [ImTokenService, ImTokenGuard],
  // The guard's tracker goes with it: every module that uses the guard resolves it.
  exports: [ImTokenService, ImTokenGuard, UsersModule, AnalyticsActivityModule],
})
export class ImTokenModule {}
