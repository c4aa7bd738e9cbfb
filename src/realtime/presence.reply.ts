import { ApiProperty } from '@nestjs/swagger';
import type { PresenceQueryReply as PresenceQueryShape, PresenceReply as PresenceShape } from '../contract/users';

export class PresenceReply implements PresenceShape {
  @ApiProperty({ description: 'External user ID.', example: 'u_10087' }) user_id: string;
  @ApiProperty({ description: 'Connected on any device and instance now.' }) online: boolean;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Offline: the last time the user was seen connected (Unix ms); null when online or not seen lately.',
  })
  last_seen_at: number | null;
}

export class PresenceQueryReply implements PresenceQueryShape {
  @ApiProperty({
    type: [PresenceReply],
    description: "The asked users who are the caller's friends, in the order asked; everyone else is left out.",
  })
  items: PresenceReply[];
}
