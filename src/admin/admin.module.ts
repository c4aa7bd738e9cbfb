import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClientErrorsModule } from '../client-errors/client-errors.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { UsersModule } from '../users/users.module';
import { GroupManagementModule } from '../groups/group-management.module';
import { GroupsModule } from '../groups/groups.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { ReportsModule } from '../reports/reports.module';
import { AdminAccountsController } from './admin-accounts.controller';
import { AdminAccountsRepository } from './admin-accounts.repository';
import { AdminAccountsService } from './admin-accounts.service';
import { AdminAuditRepository } from './admin-audit.repository';
import { AdminAuditService } from './admin-audit.service';
import { AdminAuthController } from './admin-auth.controller';
import { AdminAuthService } from './admin-auth.service';
import { AdminDirectoryService } from './admin-directory.service';
import { AdminInsightsController } from './admin-insights.controller';
import { AdminInsightsService } from './admin-insights.service';
import { AdminGroupsController, AdminReportsController, AdminUsersController } from './admin-moderation.controller';
import { AdminReportsService } from './admin-reports.service';
import { AdminSettingsController } from './admin-settings.controller';
import { AdminSettingsService } from './admin-settings.service';
import { AdminTotpService } from './admin-totp.service';
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
  ],
  controllers: [
    AdminAuthController,
    AdminAccountsController,
    AdminReportsController,
    AdminUsersController,
    AdminGroupsController,
    AdminInsightsController,
    AdminSettingsController,
  ],
  providers: [
    AdminAccountsRepository,
    AdminAuditRepository,
    AdminAuditService,
    AdminAuthService,
    AdminAccountsService,
    AdminReportsService,
    AdminDirectoryService,
    AdminInsightsService,
    AdminSettingsService,
    AdminTotpService,
    AdminGuard,
  ],
  // The server API audits the host's writes in the same log.
  // The guard (with what it needs) serves the admin routes of other modules too (webhooks).
  exports: [AdminAccountsService, AdminAuditService, AdminAuthService, AdminGuard],
})
export class AdminModule {}
