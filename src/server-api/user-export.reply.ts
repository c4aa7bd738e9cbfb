import { ApiProperty } from '@nestjs/swagger';
import type * as contract from '../contract';
import { MessageReply } from '../messages/message.mapper';

export class ExportedProfileReply implements contract.ExportedProfile {
  @ApiProperty({ example: 'u_10086' }) user_id: string;
  @ApiProperty({ description: '"" when none.' }) username: string;
  @ApiProperty() nickname: string;
  @ApiProperty({ description: 'As set; "" when none (the default avatar).' }) avatar: string;
  @ApiProperty() signature: string;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({ description: 'Unix ms.' }) profile_updated_at: number;
}

export class ExportedRelationReply implements contract.ExportedRelation {
  @ApiProperty({ description: "The other user's user_id." }) user_id: string;
  @ApiProperty({ description: 'Unix ms.' }) since: number;
}

export class ExportedGroupReply implements contract.ExportedGroup {
  @ApiProperty() group_id: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['owner', 'admin', 'member'] }) role: contract.GroupRole;
  @ApiProperty({ description: 'Unix ms.' }) joined_at: number;
}

export class ExportedReportReply implements contract.ExportedReport {
  @ApiProperty({ enum: ['user', 'group'] }) target_type: 'user' | 'group';
  @ApiProperty({ description: "The reported user's user_id or group's group_id, as the reporter named it." })
  target_id: string;
  @ApiProperty({ minimum: 1, maximum: 8 }) reason_code: number;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'As the reporter sent it; "" when none.' }) conversation_id: string;
  @ApiProperty({ type: [String] }) message_ids: string[];
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
}

const FIRST_PAGE_ONLY = 'On the first page (no cursor); null on later pages.';

export class UserExportReply implements contract.UserExportReply {
  @ApiProperty({ example: 'u_10086' }) user_id: string;
  @ApiProperty({ description: 'Unix ms.' }) exported_at: number;
  @ApiProperty({ type: ExportedProfileReply, nullable: true, description: FIRST_PAGE_ONLY })
  profile: ExportedProfileReply | null;
  @ApiProperty({ type: [ExportedRelationReply], nullable: true, description: `Friends. ${FIRST_PAGE_ONLY}` })
  friends: ExportedRelationReply[] | null;
  @ApiProperty({ type: [ExportedRelationReply], nullable: true, description: `Users they block. ${FIRST_PAGE_ONLY}` })
  blocks: ExportedRelationReply[] | null;
  @ApiProperty({ type: [ExportedGroupReply], nullable: true, description: `Current groups. ${FIRST_PAGE_ONLY}` })
  groups: ExportedGroupReply[] | null;
  @ApiProperty({ type: [ExportedReportReply], nullable: true, description: `Reports they filed. ${FIRST_PAGE_ONLY}` })
  reports: ExportedReportReply[] | null;
  @ApiProperty({
    type: [MessageReply],
    description: "A page of the user's own messages, oldest first; conversation_id as the user sees it.",
  })
  messages: MessageReply[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as cursor for the next page; null on the last.' })
  next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}
