import { ApiProperty } from '@nestjs/swagger';
import { UserReply } from '../users/user.mapper';

export class ProfileUpdateReply {
  @ApiProperty({ type: UserReply }) user: UserReply;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Event user.profile_updated (to the user and their friends); null when nothing changed.',
  })
  event_id: string | null;
}
