import { ApiProperty } from '@nestjs/swagger';
import type * as contract from '../contract';

export class UserErasureCountsReply implements contract.UserErasureCounts {
  @ApiProperty({ example: 3 }) friendships_ended: number;
  @ApiProperty({ description: 'Friend requests sent by or to the user (pending ones rejected first).', example: 1 })
  friend_requests_deleted: number;
  @ApiProperty({ description: 'Blocks the user made.', example: 0 }) blocks_deleted: number;
  @ApiProperty({ description: 'Every group the user was in (transferred and dismissed included).', example: 2 })
  groups_left: number;
  @ApiProperty({ description: 'Owned groups passed to the longest-standing admin, else member.', example: 1 })
  groups_transferred: number;
  @ApiProperty({ description: 'Owned groups the user was alone in.', example: 0 }) groups_dismissed: number;
  @ApiProperty({ description: 'Messages turned into tombstones; 0 when ERASE_KEEPS_MESSAGES is true.', example: 120 })
  messages_tombstoned: number;
  @ApiProperty({ example: 4 }) media_deleted: number;
  @ApiProperty({ example: 0 }) client_errors_deleted: number;
  @ApiProperty({ description: '1 when an account of the bundled host application was linked to the user.', example: 0 })
  host_accounts_deleted: number;
}

export class UserErasureReply implements contract.UserErasureReply {
  @ApiProperty({
    enum: ['erased', 'not_found', 'in_progress'],
    description:
      'erased: done by this call; not_found: no user has this user_id (unknown, or already erased), nothing changed; in_progress: another erasure of the user is running, nothing changed.',
  })
  status: contract.UserErasureStatus;

  @ApiProperty({ type: Number, nullable: true, description: 'Unix ms; null unless status is erased.' })
  erased_at: number | null;

  @ApiProperty({ description: 'ERASE_KEEPS_MESSAGES: the messages were kept (anonymised) rather than tombstoned.' })
  messages_kept: boolean;

  @ApiProperty({ type: UserErasureCountsReply }) counts: UserErasureCountsReply;
}
