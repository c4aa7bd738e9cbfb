import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { UsernameLookupQueryDto, UserProfileQueryDto } from './dto/profile-query.dto';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { ProfileReply } from '../users/user.mapper';
import { ProfileUpdateReply } from './profile.reply';
import { ProfileService } from './profile.service';

@ApiTags('profile')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@Controller('app/sdk/users')
export class ProfileController {
  constructor(private readonly profiles: ProfileService) {}

  @Get('me')
  @ApiOperation({ summary: "The caller's own profile." })
  @ApiEnvelope(ProfileReply, ENDPOINT_ERRORS.profile.me)
  me(@CurrentUser() user: AuthUser): Promise<ProfileReply> {
    return this.profiles.me(user);
  }

  @Post('me/update')
  @ApiOperation({
    summary:
      "updateCurrentUser: change the caller's nickname, username, avatar or signature (at least one). Same rules as the host sync; a taken username is 1004. " +
      'profile_updated_at moves only when something changed.',
  })
  @ApiEnvelope(ProfileUpdateReply, ENDPOINT_ERRORS.profile.update)
  update(@CurrentUser() user: AuthUser, @Body() dto: UpdateProfileDto): Promise<ProfileUpdateReply> {
    return this.profiles.update(user, dto);
  }

  @Get('profile')
  @ApiOperation({
    summary: "Another user's public profile. 1204 when the user does not exist, is disabled or has blocked the caller.",
  })
  @ApiEnvelope(ProfileReply, ENDPOINT_ERRORS.profile.profile)
  profile(@CurrentUser() user: AuthUser, @Query() query: UserProfileQueryDto): Promise<ProfileReply> {
    return this.profiles.profile(user, query);
  }

  @Get('lookup')
  @ApiOperation({
    summary:
      'Find a user by exact (case-sensitive) username. 1204 when none, or the user is disabled or has blocked the caller.',
  })
  @ApiEnvelope(ProfileReply, ENDPOINT_ERRORS.profile.lookup)
  lookup(@CurrentUser() user: AuthUser, @Query() query: UsernameLookupQueryDto): Promise<ProfileReply> {
    return this.profiles.lookup(user, query);
  }
}
