import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallsModule } from '../calls/calls.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { UsersModule } from '../users/users.module';
import { AnalyticsActivityModule } from './analytics-activity.module';
import { AnalyticsJobsRepository } from './analytics-jobs.repository';
import { AnalyticsRollupJob } from './analytics-rollup-job.service';
import { AnalyticsRollupsRepository } from './analytics-rollups.repository';
import { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import {
  AnalyticsDailyEntity,
  AnalyticsHourlyEntity,
  AnalyticsJobEntity,
  AnalyticsUserDayEntity,
} from './analytics.entities';
import { AnalyticsService } from './analytics.service';

/**
 * Analytics from rollups: the scheduled job (messages, calls, peak connections, DAU/MAU of
 * finished days) and the reads of the console's analytics page and dashboard. What is counted
 * as it happens is AnalyticsActivityModule's.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([AnalyticsUserDayEntity, AnalyticsDailyEntity, AnalyticsHourlyEntity, AnalyticsJobEntity]),
    AnalyticsActivityModule,
    ConversationsModule,
    CallsModule,
    RealtimeModule,
    UsersModule,
  ],
  providers: [
    AnalyticsService,
    AnalyticsRollupJob,
    AnalyticsJobsRepository,
    AnalyticsRollupsRepository,
    AnalyticsUserDaysRepository,
  ],
  exports: [AnalyticsService, AnalyticsRollupJob, AnalyticsActivityModule],
})
export class AnalyticsModule {}
