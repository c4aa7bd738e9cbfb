import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '../conversations/conversations.module';
import { RelationshipChangesModule } from '../relationship-changes/relationship-changes.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { GroupAccess } from './group-access.service';
import { GroupErasure } from './group-erasure.service';
import { GroupInvitationEntity } from './group-invitation.entity';
import { GroupInvitationsService } from './group-invitations.service';
import { GroupMemberEntity } from './group-member.entity';
import { GroupMembersService } from './group-members.service';
import { GroupEntity } from './group.entity';
import { GroupsController } from './groups.controller';
import { GroupsRepository } from './groups.repository';
import { GroupsService } from './groups.service';
import { GroupOperatorService } from './group-operator.service';

/**
 * The group endpoints. Separate from GroupsModule (which owns the tables and is imported by
 * ConversationsModule) so that it can use the conversations repositories without a circular
 * import. It keeps its own GroupsRepository (stateless), as GroupsModule exports services only.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([GroupEntity, GroupMemberEntity, GroupInvitationEntity]),
    ConversationsModule,
    ImTokenModule,
    RelationshipChangesModule,
  ],
  controllers: [GroupsController],
  providers: [
    GroupsRepository,
    GroupAccess,
    GroupsService,
    GroupMembersService,
    GroupInvitationsService,
    GroupErasure,
    GroupOperatorService,
  ],
  // The admin console dismisses groups as the owner would.
  // The server API erases users (and exports their memberships) through GroupErasure.
  // The server API acts on groups as their owner through GroupsService and GroupMembersService.
  // The admin console mutes, removes and transfers as the owner would through GroupOperatorService.
  exports: [GroupsService, GroupErasure, GroupMembersService, GroupOperatorService],
})
export class GroupManagementModule {}
