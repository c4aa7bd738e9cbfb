import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GroupInvitationEntity } from './group-invitation.entity';
import { GroupMemberEntity } from './group-member.entity';
import { GroupEntity } from './group.entity';
import { GroupDirectory } from './group-directory.service';
import { GroupsRepository } from './groups.repository';

/** Owns groups and their memberships; the group endpoints are GroupManagementModule's. */
@Module({
  imports: [TypeOrmModule.forFeature([GroupEntity, GroupMemberEntity, GroupInvitationEntity])],
  providers: [GroupsRepository, GroupDirectory],
  exports: [GroupDirectory],
})
export class GroupsModule {}
