import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { ActivityTracker } from './activity-tracker.service';
import { AnalyticsRetentionService } from './analytics-retention.service';
import { AnalyticsRollupsRepository } from './analytics-rollups.repository';
import { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import { AnalyticsDailyEntity, AnalyticsHourlyEntity, AnalyticsUserDayEntity } from './analytics.entities';
import { ApiTraffic } from './api-traffic.service';

/**
 * What analytics counts as things happen: active users (the IM token guard and the socket
 * gateway call ActivityTracker) and API replies (the request middleware calls ApiTraffic).
 * Kept apart from AnalyticsModule, which reads messages and calls (modules that depend on the
 * IM token), so the token module can depend on this one without a loop.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([AnalyticsUserDayEntity, AnalyticsDailyEntity, AnalyticsHourlyEntity]),
    UsersModule,
  ],
  providers: [
    ActivityTracker,
    ApiTraffic,
    AnalyticsRetentionService,
    AnalyticsUserDaysRepository,
    AnalyticsRollupsRepository,
  ],
  exports: [ActivityTracker, ApiTraffic, AnalyticsRetentionService],
})
export class AnalyticsActivityModule {}
