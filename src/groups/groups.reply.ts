import { ApiProperty } from '@nestjs/swagger';
import type { GroupRole } from './group-member.entity';
import { GroupMemberReply, GroupReply } from './group.mapper';
import { CursorPageReply } from '../common/pagination/cursor-page.reply';

const EVENT_ID = 'ID of the event written with this change (spec 6); null when nothing changed (idempotent repeat).';

export class GroupEnvelopeReply {
  @ApiProperty({ type: GroupReply }) group: GroupReply;
}

export class GroupChangeReply {
  @ApiProperty({ type: GroupReply }) group: GroupReply;
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class GroupPageReply extends CursorPageReply {
  @ApiProperty({ type: [GroupReply] }) items: GroupReply[];
}

export class GroupMemberPageReply extends CursorPageReply {
  @ApiProperty({ type: [GroupMemberReply] }) items: GroupMemberReply[];
}

export class MembersAddedReply {
  @ApiProperty({ type: [String], description: 'External IDs actually added (current members are skipped).' })
  added: string[];
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class MembersRemovedReply {
  @ApiProperty({ type: [String], description: 'External IDs actually removed (non-members are skipped).' })
  removed: string[];
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class GroupLeaveReply {
  @ApiProperty() group_id: string;
  @ApiProperty() event_id: string;
}

export class GroupDismissReply {
  @ApiProperty() group_id: string;
  @ApiProperty({ description: 'Unix ms.' }) dismissed_at: number;
  @ApiProperty() event_id: string;
}

export class MemberRoleReply {
  @ApiProperty() user_id: string;
  @ApiProperty({ enum: ['admin', 'member'] }) role: GroupRole;
  @ApiProperty({ type: String, nullable: true, description: EVENT_ID }) event_id: string | null;
}

export class MemberMuteReply {
  @ApiProperty() user_id: string;
  @ApiProperty({ description: 'Unix ms; 0 when unmuted.' }) muted_until: number;
  @ApiProperty() event_id: string;
}

export class InvitationReply {
  @ApiProperty({ description: 'Random unpadded Base64URL, 24 characters.' }) code: string;
  @ApiProperty() group_id: string;
  @ApiProperty({ description: 'Unix ms.' }) expires_at: number;
  @ApiProperty() event_id: string;
}
