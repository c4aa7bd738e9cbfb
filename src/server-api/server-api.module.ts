import { Module } from '@nestjs/common';
import { AdminModule } from '../admin/admin.module';
import { SecretGuard } from '../auth/secret.guard';
import { ConversationsModule } from '../conversations/conversations.module';
import { FriendsModule } from '../friends/friends.module';
import { GroupManagementModule } from '../groups/group-management.module';
import { GroupsModule } from '../groups/groups.module';
import { MessagesModule } from '../messages/messages.module';
import { SyncModule } from '../sync/sync.module';
import { UsersModule } from '../users/users.module';
import { ServerApiRateLimitGuard } from './server-api-rate-limit.guard';
import { ServerGroupsController } from './server-groups.controller';
import { ServerGroupsService } from './server-groups.service';
import { ServerMessagesController } from './server-messages.controller';
import { ServerMessagesService } from './server-messages.service';
import { ServerRequestsModule } from './server-requests.module';
import { ServerWrites } from './server-writes.service';
import { UserErasureModule } from './user-erasure.module';

/**
 * The server API: endpoints a host backend calls with the SDK secret to act on its users'
 * conversations (sends, notices, groups, friendships, listings, erasure, export).
 */
@Module({
  imports: [
    UserErasureModule,
    ServerRequestsModule,
    AdminModule,
    UsersModule,
    ConversationsModule,
    GroupsModule,
    GroupManagementModule,
    FriendsModule,
    MessagesModule,
    SyncModule,
  ],
  controllers: [ServerMessagesController, ServerGroupsController],
  providers: [SecretGuard, ServerApiRateLimitGuard, ServerWrites, ServerMessagesService, ServerGroupsService],
})
export class ServerApiModule {}
