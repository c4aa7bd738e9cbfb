import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { buildPushConfig } from '../config/push-rules';
import { ImTokenService } from '../im-token/im-token.service';
import { ProfileReply, toUserReply } from '../users/user.mapper';
import { UsersService } from '../users/users.service';
import { IssueTokenDto } from './dto/issue-token.dto';
import { ProfileFieldsDto } from './dto/profile-fields.dto';
import { TokenReply, UserStatusReply } from './auth.reply';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

function profileInput(dto: ProfileFieldsDto) {
  return {
    externalId: dto.user_id,
    nickname: dto.nickname,
    username: dto.username,
    avatar: dto.avatar,
    signature: dto.signature,
  };
}

@Injectable()
export class AuthService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly users: UsersService,
    private readonly tokens: ImTokenService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Spec 4.1: synchronise the profile, then issue a token for exactly that user. */
  async issueToken(dto: IssueTokenDto): Promise<TokenReply> {
    const user = await this.users.upsertProfile(profileInput(dto), { refuseDisabled: true });
    const { token, expireAt } = this.tokens.issue(user);
    const device =
      dto.platform && dto.manufacturer && dto.package_name
        ? { platform: dto.platform, manufacturer: dto.manufacturer, package_name: dto.package_name }
        : null;
    return {
      user: toUserReply(user, this.config.defaultAvatarUrl),
      token,
      expire_at: expireAt,
      push: buildPushConfig(this.settings.current.pushRules, device),
    };
  }

  async upsertUser(dto: ProfileFieldsDto): Promise<ProfileReply> {
    const user = await this.users.upsertProfile(profileInput(dto));
    return { user: toUserReply(user, this.config.defaultAvatarUrl) };
  }

  async setDisabled(userId: string, disabled: boolean): Promise<UserStatusReply> {
    const user = await this.users.setDisabled(userId, disabled);
    return { user_id: user.externalId, disabled: this.users.isDisabled(user) };
  }

  async revokeTokens(userId: string): Promise<UserStatusReply> {
    const user = await this.users.revokeTokens(userId);
    // A timed disable that has lapsed is not reported as still in force (the sweep clears it soon).
    return { user_id: user.externalId, disabled: this.users.isDisabled(user) };
  }
}
