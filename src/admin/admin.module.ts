import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AnalyticsModule } from '../analytics/analytics.module';
import { ClientErrorsModule } from '../client-errors/client-errors.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { UsersModule } from '../users/users.module';
import { GroupManagementModule } from '../groups/group-management.module';
import { GroupsModule } from '../groups/groups.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { ReportsModule } from '../reports/reports.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminAnalyticsController } from './admin-analytics.controller';
import { AdminAccountsRepository } from './admin-accounts.repository';
import { AdminAccountsService } from './admin-accounts.service';
import { AdminAuditRepository } from './admin-audit.repository';
import { AdminAuditService } from './admin-audit.service';
import { AdminAuthController } from './admin-auth.controller';
import { AdminAuthService } from './admin-auth.service';
import { AdminDirectoryService } from './admin-directory.service';
import { AdminGroupMembersService } from './admin-group-members.service';
import { AdminGroupMembersController, AdminMessagesController } from './admin-enforcement.controller';
import { AdminMessagesService } from './admin-messages.service';
import { AdminBrowseService } from './admin-browse.service';
import { AdminBrowseExportService } from './admin-browse-export.service';
import { AdminProfileService } from './admin-profile.service';
import { AdminGroupBrowseController, AdminUserBrowseController } from './admin-browse.controller';
import { FriendsModule } from '../friends/friends.module';
import { MediaModule } from '../media/media.module';
import { AdminInsightsController } from './admin-insights.controller';
import { AdminInsightsService } from './admin-insights.service';
import { AdminClientErrorsController } from './admin-client-errors.controller';
import { AdminClientErrorsService } from './admin-client-errors.service';
import { AdminGroupsController, AdminReportsController, AdminUsersController } from './admin-moderation.controller';
import { AdminReportsService } from './admin-reports.service';
import { AdminReportActionsController } from './admin-report-actions.controller';
import { AdminReportActionsService } from './admin-report-actions.service';
import { AdminReportViewsService } from './admin-report-views.service';
import { AdminSettingsController } from './admin-settings.controller';
import { AdminSettingsService } from './admin-settings.service';
import { AdminTotpService } from './admin-totp.service';
import { AdminLocaleService } from './admin-locale.service';
import { AdminAccountEntity, AdminAuditEntity, AdminSessionEntity } from './admin.entities';
import { AdminGuard } from './admin.guard';

/** The admin console's JSON API under /app/admin: its own accounts, sessions and audit log. */
@Module({
  imports: [
    TypeOrmModule.forFeature([AdminAccountEntity, AdminSessionEntity, AdminAuditEntity]),
    ConversationsModule,
    UsersModule,
    GroupsModule,
    GroupManagementModule,
    ReportsModule,
    ClientErrorsModule,
    RealtimeModule,
    FriendsModule,
    MediaModule,
    AnalyticsModule,
  ],
  controllers: [
    AdminAuthController,
    AdminAccountsController,
    AdminReportsController,
    AdminReportActionsController,
    AdminUsersController,
    AdminGroupsController,
    AdminGroupMembersController,
    AdminMessagesController,
    AdminUserBrowseController,
    AdminGroupBrowseController,
    AdminInsightsController,
    AdminClientErrorsController,
    AdminAnalyticsController,
    AdminSettingsController,
  ],
  providers: [
    AdminAccountsRepository,
    AdminAuditRepository,
    AdminAuditService,
    AdminAuthService,
    AdminAccountsService,
    AdminReportsService,
    AdminReportActionsService,
    AdminReportViewsService,
    AdminDirectoryService,
    AdminGroupMembersService,
    AdminMessagesService,
    AdminBrowseService,
    AdminBrowseExportService,
    AdminProfileService,
    AdminInsightsService,
    AdminClientErrorsService,
    AdminSettingsService,
    AdminTotpService,
    AdminLocaleService,
    AdminGuard,
  ],
  // The server API audits the host's writes in the same log.
  // The guard (with what it needs) serves the admin routes of other modules too (webhooks).
  exports: [AdminAccountsService, AdminAuditService, AdminAuthService, AdminGuard],
})
export class AdminModule {}
