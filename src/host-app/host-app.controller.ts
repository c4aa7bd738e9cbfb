import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { TokenReply } from '../auth/auth.reply';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { CurrentHostClient, HostClient, sessionOf } from './host-client';
import { HostAppApi, RetryLaterResponse } from './host-app-api.decorator';
import { HostAuthService } from './host-auth.service';
import {
  CodeLoginDto,
  HostTokenDto,
  NewPasswordDto,
  PasswordLoginDto,
  ResetPasswordDto,
  SignupDto,
  SmsInboxQueryDto,
  SmsSendDto,
} from './host-app.dto';
import { HostDoneReply, HostMeReply, SmsInboxReply, SmsSentReply, toSmsInboxReply } from './host-app.reply';
import { HostPublic } from './host-session.guard';
import { SmsService } from './sms.service';

/**
 * The bundled host application (spec 4.6, 5): phone accounts with password or SMS code, a
 * PHPSID session, and POST /app/auth/token for the session's own IM credential.
 */
@HostAppApi()
@Controller('app/auth')
export class HostAppController {
  constructor(
    private readonly auth: HostAuthService,
    private readonly sms: SmsService,
  ) {}

  @Post('sms/send')
  @HostPublic()
  @RetryLaterResponse()
  @ApiOperation({
    summary:
      'Send a 6-digit code (valid 5 minutes, single use, 5 tries) for signup, login or reset. Limited per phone number and per address (HTTP 429 with Retry-After).',
  })
  @ApiEnvelope(SmsSentReply, ENDPOINT_ERRORS.hostApp.sendSms)
  sendSms(@Body() dto: SmsSendDto, @CurrentHostClient() client: HostClient): Promise<SmsSentReply> {
    return this.sms.send(dto.phone, dto.purpose, client.address);
  }

  @Post('signup')
  @HostPublic()
  @ApiOperation({
    summary:
      'Create an account (phone, signup code, password, nickname), link it to a new IM user through the host upsert, and log in (sets PHPSID).',
  })
  @ApiEnvelope(HostMeReply, ENDPOINT_ERRORS.hostApp.signup)
  signup(@Body() dto: SignupDto, @CurrentHostClient() client: HostClient): Promise<HostMeReply> {
    return this.auth.signup(dto, client);
  }

  @Post('login')
  @HostPublic()
  @RetryLaterResponse()
  @ApiOperation({
    summary:
      'Log in with phone and password: sets the PHPSID cookie (HttpOnly, SameSite=Lax, Path=/app/auth) with a new session ID, ending the one presented.',
  })
  @ApiEnvelope(HostMeReply, ENDPOINT_ERRORS.hostApp.login)
  login(@Body() dto: PasswordLoginDto, @CurrentHostClient() client: HostClient): Promise<HostMeReply> {
    return this.auth.loginWithPassword(dto, client);
  }

  @Post('login/sms')
  @HostPublic()
  @RetryLaterResponse()
  @ApiOperation({ summary: 'Log in with phone and a login code; same session rules as POST /app/auth/login.' })
  @ApiEnvelope(HostMeReply, ENDPOINT_ERRORS.hostApp.loginWithCode)
  loginWithCode(@Body() dto: CodeLoginDto, @CurrentHostClient() client: HostClient): Promise<HostMeReply> {
    return this.auth.loginWithCode(dto, client);
  }

  @Post('password/reset')
  @HostPublic()
  @ApiOperation({ summary: 'Set a new password with a reset code; every session of the account ends.' })
  @ApiEnvelope(HostDoneReply, ENDPOINT_ERRORS.hostApp.resetPassword)
  resetPassword(@Body() dto: ResetPasswordDto): Promise<HostDoneReply> {
    return this.auth.resetPassword(dto);
  }

  @Post('logout')
  @ApiOperation({ summary: 'Log out: deletes the session and clears the cookie.' })
  @ApiEnvelope(HostDoneReply, ENDPOINT_ERRORS.hostApp.logout)
  logout(@CurrentHostClient() client: HostClient): Promise<HostDoneReply> {
    return this.auth.logout(client, sessionOf(client));
  }

  @Get('me')
  @ApiOperation({ summary: 'The logged-in account and its IM user ID.' })
  @ApiEnvelope(HostMeReply, ENDPOINT_ERRORS.hostApp.me)
  me(@CurrentHostClient() client: HostClient): Promise<HostMeReply> {
    return this.auth.me(sessionOf(client));
  }

  @Post('password')
  @ApiOperation({ summary: 'Change the password (the old one is required); every other session of the account ends.' })
  @ApiEnvelope(HostDoneReply, ENDPOINT_ERRORS.hostApp.changePassword)
  changePassword(@Body() dto: NewPasswordDto, @CurrentHostClient() client: HostClient): Promise<HostDoneReply> {
    return this.auth.changePassword(sessionOf(client), dto);
  }

  @Post('token')
  @ApiOperation({
    summary:
      "The logged-in account's IM credential: the same reply as POST /app/sdk/token. The user is always the session's; the body takes only the native push fields.",
  })
  @ApiEnvelope(TokenReply, ENDPOINT_ERRORS.hostApp.token)
  token(@Body() dto: HostTokenDto, @CurrentHostClient() client: HostClient): Promise<TokenReply> {
    return this.auth.token(sessionOf(client), dto);
  }

  @Get('dev/sms-inbox')
  @HostPublic()
  @ApiOperation({
    summary:
      'Development only (SMS_DRIVER=log, NODE_ENV other than production): the latest codes sent to a number. Absent (HTTP 404) otherwise.',
  })
  @ApiEnvelope(SmsInboxReply, ENDPOINT_ERRORS.hostApp.smsInbox)
  smsInbox(@Query() query: SmsInboxQueryDto): SmsInboxReply {
    return toSmsInboxReply(this.sms.inbox(query.phone));
  }
}
