import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { UserDoc, UserEnvelopeDoc } from '../auth/auth.openapi';
import { ApiEnvelope } from '../common/openapi';
import { AuthUser, CurrentUser } from '../im-token/auth-user';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { UsernameLookupQueryDto, UserProfileQueryDto } from './dto/profile-query.dto';
import { UpdateProfileDto } from './dto/update-profile.dto';
import { ProfileReply, ProfileService, ProfileUpdateReply } from './profile.service';

class ProfileUpdateReplyDoc {
  @ApiProperty({ type: UserDoc }) user: UserDoc;
  @ApiProperty({ type: String, nullable: true, description: 'Event user.profile_updated (to the user and their friends); null when nothing changed.' }) event_id: string | null;
}

const SDK_CODES = [1003, 1004, 1101, 1102, 1103, 1500];

@ApiTags('profile')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard)
@Controller('app/sdk/users')
export class ProfileController {
  constructor(private readonly profiles: ProfileService) {}

  @Get('me')
  @ApiOperation({ summary: 'The caller\'s own profile.' })
  @ApiEnvelope(UserEnvelopeDoc, SDK_CODES)
  me(@CurrentUser() user: AuthUser): Promise<ProfileReply> {
    return this.profiles.me(user);
  }

  @Post('me/update')
  @ApiOperation({
    summary:
      'updateCurrentUser: change the caller\'s nickname, username, avatar or signature (at least one). Same rules as the host sync; a taken username is 1004. ' +
      'profile_updated_at moves only when something changed.',
  })
  @ApiEnvelope(ProfileUpdateReplyDoc, SDK_CODES)
  update(@CurrentUser() user: AuthUser, @Body() dto: UpdateProfileDto): Promise<ProfileUpdateReply> {
    return this.profiles.update(user, dto);
  }

  @Get('profile')
  @ApiOperation({ summary: 'Another user\'s public profile. 1204 when the user does not exist, is disabled or has blocked the caller.' })
  @ApiEnvelope(UserEnvelopeDoc, [...SDK_CODES, 1204])
  profile(@CurrentUser() user: AuthUser, @Query() query: UserProfileQueryDto): Promise<ProfileReply> {
    return this.profiles.profile(user, query);
  }

  @Get('lookup')
  @ApiOperation({ summary: 'Find a user by exact (case-sensitive) username. 1204 when none, or the user is disabled or has blocked the caller.' })
  @ApiEnvelope(UserEnvelopeDoc, [...SDK_CODES, 1204])
  lookup(@CurrentUser() user: AuthUser, @Query() query: UsernameLookupQueryDto): Promise<ProfileReply> {
    return this.profiles.lookup(user, query);
  }
}
