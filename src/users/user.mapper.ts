import type { UserEntity } from './user.entity';

/** The user object of spec 2.3. */
export interface UserReply {
  id: string;
  user_id: string;
  username: string;
  nickname: string;
  avatar: string;
  signature: string;
  profile_updated_at: number;
}

export function toUserReply(user: UserEntity, defaultAvatarUrl: string): UserReply {
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
