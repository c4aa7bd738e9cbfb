import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '../conversations/conversations.module';
import { GroupsModule } from '../groups/groups.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { UsersModule } from '../users/users.module';
import { ReportContextService } from './report-context.service';
import { ReportLookups } from './report-lookups.service';
import { ReportLookupsRepository } from './report-lookups.repository';
import { ReportQueue } from './report-queue.service';
import { ReportTargetsRepository } from './report-targets.repository';
import { ReportEntity } from './report.entity';
import { ReportsController } from './reports.controller';
import { ReportsRepository } from './reports.repository';
import { ReportsService } from './reports.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([ReportEntity]),
    ImTokenModule,
    GroupsModule,
    ConversationsModule,
    ConversationViewsModule,
    UsersModule,
  ],
  controllers: [ReportsController],
  providers: [
    ReportsRepository,
    ReportTargetsRepository,
    ReportsService,
    ReportQueue,
    ReportContextService,
    ReportLookupsRepository,
    ReportLookups,
  ],
  exports: [ReportsService, ReportQueue, ReportContextService, ReportLookups],
})
export class ReportsModule {}
