import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GroupInvitationEntity } from './group-invitation.entity';
import { GroupMemberEntity } from './group-member.entity';
import { GroupEntity } from './group.entity';
import { GroupDirectory } from './group-directory.service';
import { GroupsRepository } from './groups.repository';
import { GroupBrowser } from './group-browser.service';
import { GroupsBrowseRepository } from './groups-browse.repository';

/** Owns groups and their memberships; the group endpoints are GroupManagementModule's. */
@Module({
  imports: [TypeOrmModule.forFeature([GroupEntity, GroupMemberEntity, GroupInvitationEntity])],
  providers: [GroupsRepository, GroupDirectory, GroupsBrowseRepository, GroupBrowser],
  exports: [GroupDirectory, GroupBrowser],
})
export class GroupsModule {}
