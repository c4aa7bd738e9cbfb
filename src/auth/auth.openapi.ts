import { ApiProperty } from '@nestjs/swagger';

export class UserDoc {
  @ApiProperty({ description: 'Internal IM user ID (decimal string).', example: '42' }) id: string;
  @ApiProperty({ description: 'External user ID.', example: 'u_10086' }) user_id: string;
  @ApiProperty({ description: 'Public account name; "" when none.', example: 'alice' }) username: string;
  @ApiProperty({ example: 'Alice' }) nickname: string;
  @ApiProperty({ description: 'URL; the default avatar when none was set.' }) avatar: string;
  @ApiProperty({ example: '' }) signature: string;
  @ApiProperty({ description: 'Unix ms of the last real profile change.', example: 1732200000000 }) profile_updated_at: number;
}

export class TokenReplyDoc {
  @ApiProperty({ type: UserDoc }) user: UserDoc;
  @ApiProperty({ description: 'HS256 JWT; its payload carries `user_id` and `exp` equal to this reply.' }) token: string;
  @ApiProperty({ description: 'Unix SECONDS; equals the JWT `exp`.', example: 1732804800 }) expire_at: number;
  @ApiProperty({
    description: 'Native push initialisation: the merged `config` of every PUSH_RULES rule matching platform, manufacturer and package_name; {} when none match (Web).',
    type: 'object',
    additionalProperties: true,
  })
  push: Record<string, unknown>;
}

export class UserEnvelopeDoc {
  @ApiProperty({ type: UserDoc }) user: UserDoc;
}

export class UserStatusDoc {
  @ApiProperty({ example: 'u_10086' }) user_id: string;
  @ApiProperty({ example: false }) disabled: boolean;
}
