import { ApiProperty } from '@nestjs/swagger';

/** POST /app/admin/groups/members/mute */
export class AdminMemberMuteReply {
  @ApiProperty({ example: 'team-1' }) group_id: string;
  @ApiProperty({ example: 'u_10087' }) user_id: string;
  @ApiProperty({ description: 'Unix ms until which the member is muted; 0: not muted.', example: 1732203600000 })
  muted_until: number;
  @ApiProperty({ description: 'The group.member_muted event the members received.' }) event_id: string;
}

/** POST /app/admin/groups/members/remove */
export class AdminMemberRemoveReply {
  @ApiProperty({ example: 'team-1' }) group_id: string;
  @ApiProperty({ example: 'u_10087' }) user_id: string;
  @ApiProperty({ description: 'false: the user was not a current member (nothing changed).' }) removed: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The group.members_removed event; null when nothing changed.',
  })
  event_id: string | null;
}

/** POST /app/admin/groups/transfer */
export class AdminGroupTransferReply {
  @ApiProperty({ example: 'team-1' }) group_id: string;
  @ApiProperty({ description: 'The new owner (external user ID).', example: 'u_10087' }) owner_user_id: string;
  @ApiProperty({ description: 'The owner before; now an admin.', example: 'u_10086' }) previous_owner_user_id: string;
  @ApiProperty({ description: 'The group.owner_transferred event the members received.' }) event_id: string;
}

export class AdminMessageChangeItem {
  @ApiProperty({ description: 'Message ID (decimal string).', example: '1001' }) message_id: string;
  @ApiProperty({ enum: ['normal', 'recalled', 'deleted'], description: 'The status after the call.' }) status: string;
  @ApiProperty({ description: 'false: it already was so (or, for a recall, already deleted); nothing changed.' })
  changed: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The message.recalled / message.deleted event; null when nothing changed.',
  })
  event_id: string | null;
}

/** POST /app/admin/messages/recall and /delete */
export class AdminMessagesChangeReply {
  @ApiProperty({ description: 'The internal conversation ID (decimal string).', example: '17' })
  conversation_id: string;
  @ApiProperty({ type: [AdminMessageChangeItem], description: 'One per requested message, in request order.' })
  items: AdminMessageChangeItem[];
}
