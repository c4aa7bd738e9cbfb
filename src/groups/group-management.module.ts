import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { RelationshipChangesModule } from '../calls/relationship-changes.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { GroupAccess } from './group-access.service';
import { GroupInvitationsService } from './group-invitations.service';
import { GroupMembersService } from './group-members.service';
import { GroupsController } from './groups.controller';
import { GroupsModule } from './groups.module';
import { GroupsService } from './groups.service';

/**
 * The group endpoints. Separate from GroupsModule (which owns the tables and is imported by
 * ConversationsModule) so that it can use the conversations repositories without a circular
 * import.
 */
@Module({
  imports: [GroupsModule, ConversationsModule, ImTokenModule, RelationshipChangesModule],
  controllers: [GroupsController],
  providers: [GroupAccess, GroupsService, GroupMembersService, GroupInvitationsService],
  // The admin console dismisses groups as the owner would.
  exports: [GroupsService],
})
export class GroupManagementModule {}
