import { ApiProperty } from '@nestjs/swagger';
import { MessageReply } from './message.mapper';
import { CursorPageReply } from '../common/pagination/cursor-page.reply';

const WINDOW_OUTCOMES = ['unchanged', 'reset', 'page'] as const;
export type WindowOutcome = (typeof WINDOW_OUTCOMES)[number];

export class SendReply {
  @ApiProperty({ type: MessageReply }) message: MessageReply;
  @ApiProperty({ description: 'The outbox event of the send; a retry answers the original one.' }) event_id: string;
}

export class MessageChangeReply {
  @ApiProperty({ type: MessageReply }) message: MessageReply;
  @ApiProperty({ type: String, nullable: true, description: 'null when nothing changed (already in that state).' })
  event_id: string | null;
}

export class ReadReply {
  @ApiProperty() conversation_id: string;
  @ApiProperty() read_seq: string;
  @ApiProperty({ description: 'Exact unread count after the read.' }) unread: number;
  @ApiProperty({ type: String, nullable: true }) event_id: string | null;
}

export class MessageWindowReply {
  @ApiProperty() conversation_id: string;
  /**
   * unchanged: keep the current window (no messages resent); reset: replace it with `messages`; page: a history or
   * locate window.
   */
  @ApiProperty({ enum: WINDOW_OUTCOMES, description: 'The calibration outcome.' }) outcome: WindowOutcome;
  @ApiProperty({
    type: [MessageReply],
    description: 'In sequence order; tombstones included (they keep mid and sequence).',
  })
  messages: MessageReply[];
  /** Whether older / newer visible messages exist beyond this window; null when unchanged. */
  @ApiProperty({ type: Boolean, nullable: true }) has_more_before: boolean | null;
  @ApiProperty({ type: Boolean, nullable: true }) has_more_after: boolean | null;
  @ApiProperty({ description: 'Calibration value: the last visible sequence.' }) last_seq: string;
  @ApiProperty({ description: 'Calibration value: the content version (Unix ms, strictly increasing).' })
  updated_at: number;
  @ApiProperty({ description: 'Calibration value: raised by every delete.' }) deletion_revision: string;
  @ApiProperty() read_seq: string;
  @ApiProperty() unread: number;
}

export class SearchPageReply extends CursorPageReply {
  @ApiProperty({ type: [MessageReply] }) items: MessageReply[];
  @ApiProperty({ type: String, nullable: true, description: 'Pass as before_mid for the next page.' }) next_before_mid:
    string | null;
}
