import { ApiProperty } from '@nestjs/swagger';
import { MessageDoc } from '../messages/messages.openapi';

export class ConversationItemDoc {
  @ApiProperty() conversation_id: string;
  @ApiProperty({ enum: ['direct', 'group'] }) type: string;
  @ApiProperty() title: string;
  @ApiProperty() avatar: string;
  @ApiProperty({ nullable: true }) peer_user_id: string | null;
  @ApiProperty({ nullable: true }) group_id: string | null;
  @ApiProperty({ type: MessageDoc, nullable: true }) last_message: MessageDoc | null;
  @ApiProperty() last_seq: string;
  @ApiProperty() read_seq: string;
  @ApiProperty() unread: number;
  @ApiProperty() pinned: boolean;
  @ApiProperty() muted: boolean;
  @ApiProperty() hidden: boolean;
  @ApiProperty({ description: 'Content version (Unix ms).' }) updated_at: number;
  @ApiProperty() deletion_revision: string;
  @ApiProperty() last_activity_at: number;
  @ApiProperty({ description: 'false after leaving or removal.' }) is_member: boolean;
}

class ConversationPageDoc {
  @ApiProperty({ type: [ConversationItemDoc] }) items: ConversationItemDoc[];
  @ApiProperty({ nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

class UnreadTotalsDoc {
  @ApiProperty() total: number;
  @ApiProperty({ description: 'The badge: unread outside muted conversations.' }) total_unmuted: number;
}

class CapabilitiesDoc {
  @ApiProperty() friends: boolean;
  @ApiProperty() groups: boolean;
  @ApiProperty() calls: boolean;
  @ApiProperty() search: boolean;
  @ApiProperty() media: boolean;
}

class MediaLimitsDoc {
  @ApiProperty() max_image_bytes: number;
  @ApiProperty() max_file_bytes: number;
  @ApiProperty({ type: [String] }) image_types: string[];
}

export class SyncReplyDoc {
  @ApiProperty({ type: ConversationPageDoc }) conversations: ConversationPageDoc;
  @ApiProperty({ type: UnreadTotalsDoc }) unread: UnreadTotalsDoc;
  @ApiProperty({ type: CapabilitiesDoc, description: 'A closed capability answers 1202 on its endpoints.' }) capabilities: CapabilitiesDoc;
  @ApiProperty({ type: MediaLimitsDoc }) media_limits: MediaLimitsDoc;
  @ApiProperty() server_time: number;
}

class UnreadEntryDoc {
  @ApiProperty() conversation_id: string;
  @ApiProperty() unread: number;
  @ApiProperty() muted: boolean;
}

export class UnreadReplyDoc {
  @ApiProperty() total: number;
  @ApiProperty() total_unmuted: number;
  @ApiProperty({ type: [UnreadEntryDoc] }) conversations: UnreadEntryDoc[];
  @ApiProperty() has_more: boolean;
}

export class SettingsReplyDoc {
  @ApiProperty({ type: ConversationItemDoc }) conversation: ConversationItemDoc;
  @ApiProperty({ nullable: true }) event_id: string | null;
}
