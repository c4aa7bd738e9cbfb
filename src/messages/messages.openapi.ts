import { ApiProperty } from '@nestjs/swagger';

export class MessageDoc {
  @ApiProperty({ description: 'Message ID (decimal string).' }) mid: string;
  @ApiProperty({ description: 'The caller\'s ID of the conversation.' }) conversation_id: string;
  @ApiProperty({ description: 'Position in the conversation: 1, 2, 3… with no gap (decimal string).' }) conversation_seq: string;
  @ApiProperty({ description: 'External user ID of the sender.' }) sender_id: string;
  @ApiProperty() client_message_id: string;
  @ApiProperty({ enum: ['text', 'image', 'file', 'custom'] }) type: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true, description: 'null for recalled or deleted messages (tombstones).' }) content: Record<string, unknown> | null;
  @ApiProperty({ enum: ['normal', 'recalled', 'deleted'] }) status: string;
  @ApiProperty() created_at: number;
  @ApiProperty() updated_at: number;
}

export class SendReplyDoc {
  @ApiProperty({ type: MessageDoc }) message: MessageDoc;
  @ApiProperty({ description: 'The outbox event of the send; a retry answers the original one.' }) event_id: string;
}

export class MessageChangeDoc {
  @ApiProperty({ type: MessageDoc }) message: MessageDoc;
  @ApiProperty({ nullable: true, description: 'null when nothing changed (already in that state).' }) event_id: string | null;
}

export class ReadReplyDoc {
  @ApiProperty() conversation_id: string;
  @ApiProperty() read_seq: string;
  @ApiProperty({ description: 'Exact unread count after the read.' }) unread: number;
  @ApiProperty({ nullable: true }) event_id: string | null;
}

export class MessageWindowDoc {
  @ApiProperty() conversation_id: string;
  @ApiProperty({ enum: ['unchanged', 'reset', 'page'], description: 'The calibration outcome.' }) outcome: string;
  @ApiProperty({ type: [MessageDoc], description: 'In sequence order; tombstones included (they keep mid and sequence).' }) messages: MessageDoc[];
  @ApiProperty({ nullable: true }) has_more_before: boolean | null;
  @ApiProperty({ nullable: true }) has_more_after: boolean | null;
  @ApiProperty({ description: 'Calibration value: the last visible sequence.' }) last_seq: string;
  @ApiProperty({ description: 'Calibration value: the content version (Unix ms, strictly increasing).' }) updated_at: number;
  @ApiProperty({ description: 'Calibration value: raised by every delete.' }) deletion_revision: string;
  @ApiProperty() read_seq: string;
  @ApiProperty() unread: number;
}

export class SearchPageDoc {
  @ApiProperty({ type: [MessageDoc] }) items: MessageDoc[];
  @ApiProperty({ nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
  @ApiProperty({ nullable: true, description: 'Pass as before_mid for the next page.' }) next_before_mid: string | null;
}
