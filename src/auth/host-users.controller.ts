import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { ProfileReply } from '../users/user.mapper';
import { TokenReply, UserStatusReply } from './auth.reply';
import { AuthService } from './auth.service';
import { IssueTokenDto } from './dto/issue-token.dto';
import { ProfileFieldsDto } from './dto/profile-fields.dto';
import { SetUserDisabledDto, UserRefDto } from './dto/user-ref.dto';
import { SecretGuard } from './secret.guard';

/** Endpoints for the host backend, authenticated by the SDK secret (spec 4.1, 4.6, 5). */
@ApiTags('host backend')
@ApiBearerAuth('sdk-secret')
@UseGuards(SecretGuard)
@Controller('app/sdk')
export class HostUsersController {
  constructor(private readonly auth: AuthService) {}

  @Post('token')
  @ApiOperation({
    summary: 'Issue an IM token for a user the host has authenticated; synchronises the public profile.',
  })
  @ApiEnvelope(TokenReply, ENDPOINT_ERRORS.host.issueToken)
  issueToken(@Body() dto: IssueTokenDto): Promise<TokenReply> {
    return this.auth.issueToken(dto);
  }

  @Post('users/upsert')
  @ApiOperation({ summary: "Create or update a user's public profile without issuing a token." })
  @ApiEnvelope(ProfileReply, ENDPOINT_ERRORS.host.upsertUser)
  upsertUser(@Body() dto: ProfileFieldsDto): Promise<ProfileReply> {
    return this.auth.upsertUser(dto);
  }

  @Post('users/status')
  @ApiOperation({
    summary: "Disable or enable a user. A disabled user's tokens fail with 1003 and no token is issued.",
  })
  @ApiEnvelope(UserStatusReply, ENDPOINT_ERRORS.host.setStatus)
  setStatus(@Body() dto: SetUserDisabledDto): Promise<UserStatusReply> {
    return this.auth.setDisabled(dto.user_id, dto.disabled);
  }

  @Post('users/revoke-tokens')
  @ApiOperation({ summary: 'Forced logout: every IM token issued to the user so far stops working (1102).' })
  @ApiEnvelope(UserStatusReply, ENDPOINT_ERRORS.host.revokeTokens)
  revokeTokens(@Body() dto: UserRefDto): Promise<UserStatusReply> {
    return this.auth.revokeTokens(dto.user_id);
  }
}
