import { ApiProperty } from '@nestjs/swagger';
import type { Capabilities } from '../config/messaging-config';
import { MediaLimits } from '../media/media-limits';
import { ConversationItem } from './conversation-item';
import { CursorPageReply } from '../common/pagination/cursor-page.reply';

export class ConversationPageReply extends CursorPageReply {
  @ApiProperty({ type: [ConversationItem] }) items: ConversationItem[];
}

export class UnreadTotalsReply {
  @ApiProperty() total: number;
  @ApiProperty({ description: 'The badge: unread outside muted conversations.' }) total_unmuted: number;
}

/** Every capability the operator can close is listed (the compiler holds it to CapabilityName). */
export class CapabilitiesReply implements Capabilities {
  @ApiProperty() friends: boolean;
  @ApiProperty() groups: boolean;
  @ApiProperty() calls: boolean;
  @ApiProperty() search: boolean;
  @ApiProperty() media: boolean;
}

export class SyncReply {
  @ApiProperty({ type: ConversationPageReply }) conversations: ConversationPageReply;
  @ApiProperty({ type: UnreadTotalsReply }) unread: UnreadTotalsReply;
  @ApiProperty({ type: CapabilitiesReply, description: 'A closed capability answers 1202 on its endpoints.' })
  capabilities: CapabilitiesReply;
  @ApiProperty({ type: MediaLimits }) media_limits: MediaLimits;
  @ApiProperty() server_time: number;
}

export class UnreadEntryReply {
  @ApiProperty() conversation_id: string;
  @ApiProperty() unread: number;
  @ApiProperty() muted: boolean;
}

export class UnreadReply {
  /** Absolute, not capped. */
  @ApiProperty() total: number;
  @ApiProperty() total_unmuted: number;
  @ApiProperty({ type: [UnreadEntryReply] }) conversations: UnreadEntryReply[];
  /** More conversations have unread messages than are listed (at most 100 are). */
  @ApiProperty() has_more: boolean;
}

export class SettingsReply {
  @ApiProperty({ type: ConversationItem }) conversation: ConversationItem;
  @ApiProperty({ type: String, nullable: true }) event_id: string | null;
}
