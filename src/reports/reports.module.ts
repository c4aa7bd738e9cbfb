import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '../conversations/conversations.module';
import { GroupsModule } from '../groups/groups.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { UsersModule } from '../users/users.module';
import { ReportQueue } from './report-queue.service';
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
  providers: [ReportsRepository, ReportsService, ReportQueue],
  exports: [ReportsService, ReportQueue],
})
export class ReportsModule {}
