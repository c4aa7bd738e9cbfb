import { ApiProperty } from '@nestjs/swagger';
import type { User } from './user';
import type * as contract from '../contract';

/** The user object of spec 2.3. */
export class UserReply {
  @ApiProperty({ description: 'Internal IM user ID (decimal string).', example: '42' }) id: string;
  @ApiProperty({ description: 'External user ID.', example: 'u_10086' }) user_id: string;
  @ApiProperty({ description: 'Public account name; "" when none.', example: 'alice' }) username: string;
  @ApiProperty({ example: 'Alice' }) nickname: string;
  @ApiProperty({ description: 'URL; the default avatar when none was set.' }) avatar: string;
  @ApiProperty({ example: '' }) signature: string;
  @ApiProperty({ description: 'Unix ms of the last real profile change.', example: 1732200000000 })
  profile_updated_at: number;
}

/** One user: the host's upsert and the SDK's profile reads. */
export class ProfileReply {
  @ApiProperty({ type: UserReply }) user: UserReply;
}

export function toUserReply(user: User, defaultAvatarUrl: string): contract.UserReply {
  return {
    id: String(user.id),
    user_id: user.externalId,
    username: user.username ?? '',
    nickname: user.nickname,
    avatar: user.avatar || defaultAvatarUrl,
    signature: user.signature,
    profile_updated_at: user.profileUpdatedAt,
  };
}
