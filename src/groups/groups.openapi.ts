import { ApiProperty } from '@nestjs/swagger';
import { UserDoc } from '../auth/auth.openapi';

const ROLES = ['owner', 'admin', 'member'];
const EVENT_ID = 'ID of the event written with this change (spec 6); null when nothing changed (idempotent repeat).';

export class GroupDoc {
  @ApiProperty({ description: 'Public group ID.', example: 'team-1' }) group_id: string;
  @ApiProperty({ description: '`group_` + group_id.', example: 'group_team-1' }) conversation_id: string;
  @ApiProperty({ example: 'Weekend hikers' }) name: string;
  @ApiProperty({ description: 'URL; the default avatar when none was set.' }) avatar: string;
  @ApiProperty({ example: '' }) introduction: string;
  @ApiProperty({ description: 'External user ID of the owner.', example: 'u_10086' }) owner_user_id: string;
  @ApiProperty({ description: 'Current members, owner included.', example: 3 }) member_count: number;
  @ApiProperty({ enum: ROLES, description: 'The caller\'s role.' }) my_role: string;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({ description: 'Unix ms of the last change of name, avatar, introduction, owner or dismissal.' }) updated_at: number;
  @ApiProperty({ description: 'Always false in replies (a dismissed group answers 1209); true in the group.dismissed event.' }) dismissed: boolean;
}

export class GroupEnvelopeDoc {
  @ApiProperty({ type: GroupDoc }) group: GroupDoc;
}

export class GroupChangeDoc {
  @ApiProperty({ type: GroupDoc }) group: GroupDoc;
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class GroupPageDoc {
  @ApiProperty({ type: [GroupDoc] }) items: GroupDoc[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass unchanged as cursor while has_more is true.' }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export class GroupMemberDoc {
  @ApiProperty({ type: UserDoc }) user: UserDoc;
  @ApiProperty({ enum: ROLES }) role: string;
  @ApiProperty({ description: 'Unix ms of (re)joining.' }) joined_at: number;
  @ApiProperty({ description: 'Unix ms; the member cannot send while it is in the future. 0 = not muted.' }) muted_until: number;
}

export class GroupMemberPageDoc {
  @ApiProperty({ type: [GroupMemberDoc] }) items: GroupMemberDoc[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export class MembersAddedDoc {
  @ApiProperty({ type: [String], description: 'External IDs actually added (current members are skipped).' }) added: string[];
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class MembersRemovedDoc {
  @ApiProperty({ type: [String], description: 'External IDs actually removed (non-members are skipped).' }) removed: string[];
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class GroupLeaveDoc {
  @ApiProperty() group_id: string;
  @ApiProperty() event_id: string;
}

export class GroupDismissDoc {
  @ApiProperty() group_id: string;
  @ApiProperty({ description: 'Unix ms.' }) dismissed_at: number;
  @ApiProperty() event_id: string;
}

export class MemberRoleDoc {
  @ApiProperty() user_id: string;
  @ApiProperty({ enum: ['admin', 'member'] }) role: string;
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class MemberMuteDoc {
  @ApiProperty() user_id: string;
  @ApiProperty({ description: 'Unix ms; 0 when unmuted.' }) muted_until: number;
  @ApiProperty() event_id: string;
}

export class InvitationDoc {
  @ApiProperty({ description: 'Random unpadded Base64URL, 24 characters.' }) code: string;
  @ApiProperty() group_id: string;
  @ApiProperty({ description: 'Unix ms.' }) expires_at: number;
  @ApiProperty() event_id: string;
}
