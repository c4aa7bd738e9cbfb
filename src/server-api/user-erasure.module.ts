import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminModule } from '../admin/admin.module';
import { AnalyticsActivityModule } from '../analytics/analytics-activity.module';
import { SecretGuard } from '../auth/secret.guard';
import { ClientErrorsModule } from '../client-errors/client-errors.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { FriendsModule } from '../friends/friends.module';
import { GroupManagementModule } from '../groups/group-management.module';
import { GroupsModule } from '../groups/groups.module';
import { HostAppModule } from '../host-app/host-app.module';
import { MediaModule } from '../media/media.module';
import { ReportsModule } from '../reports/reports.module';
import { UsersModule } from '../users/users.module';
import { ServerApiRateLimitGuard } from './server-api-rate-limit.guard';
import { ServerRequestsModule } from './server-requests.module';
import { ServerUsersController } from './server-users.controller';
import { ErasureConversations } from './user-erasure-conversations';
import { UserErasureEntity } from './user-erasure.entity';
import { ErasureMessages } from './user-erasure-messages';
import { UserErasureRepository } from './user-erasure.repository';
import { UserErasureService } from './user-erasure.service';
import { PushModule } from '../push/push.module';
import { UserExportService } from './user-export.service';

/**
 * The server API's data-protection endpoints (erase, export). A module of its own inside the
 * server API because it reaches into almost every feature module, each through the narrow
 * erasure service that module exports.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([UserErasureEntity]),
    AdminModule,
    AnalyticsActivityModule,
    ClientErrorsModule,
    ConversationsModule,
    FriendsModule,
    GroupManagementModule,
    GroupsModule,
    HostAppModule,
    MediaModule,
    PushModule,
    ReportsModule,
    ServerRequestsModule,
    UsersModule,
  ],
  controllers: [ServerUsersController],
  providers: [
    SecretGuard,
    ServerApiRateLimitGuard,
    UserErasureRepository,
    UserErasureService,
    UserExportService,
    ErasureMessages,
    ErasureConversations,
  ],
})
export class UserErasureModule {}
