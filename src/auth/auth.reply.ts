import { ApiProperty } from '@nestjs/swagger';
import { UserReply } from '../users/user.mapper';

export class TokenReply {
  @ApiProperty({ type: UserReply }) user: UserReply;
  @ApiProperty({ description: 'HS256 JWT; its payload carries `user_id` and `exp` equal to this reply.' })
  token: string;
  @ApiProperty({ description: 'Unix SECONDS; equals the JWT `exp`.', example: 1732804800 }) expire_at: number;
  @ApiProperty({
    description:
      'Native push initialisation: the merged `config` of every PUSH_RULES rule matching platform, manufacturer and package_name; {} when none match (Web).',
    type: 'object',
    additionalProperties: true,
  })
  push: Record<string, unknown>;
}

export class UserStatusReply {
  @ApiProperty({ example: 'u_10086' }) user_id: string;
  @ApiProperty({ example: false }) disabled: boolean;
}
