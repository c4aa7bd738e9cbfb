import { Body, Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { AdminAccountsRepository } from './admin-accounts.repository';
import { AdminAuthService } from './admin-auth.service';
import { clearSessionCookie, sessionCookieOf, setSessionCookie } from './admin-session-cookie';
import { AdminLoginDto, ChangePasswordDto, TotpCodeDto, TotpDisableDto } from './admin.dto';
import { AdminTotpService } from './admin-totp.service';
import { SetAdminLocaleDto } from './admin-locale.dto';
import { AdminLocaleService } from './admin-locale.service';
import { AdminPublic, AdminRoles } from './admin.guard';
import { AdminDoneReply, AdminMeReply, TotpSetupReply, toAdminReply } from './admin.reply';

/** The console's own login: a session cookie, never an SDK secret, IM token or host session. */
@AdminApi()
@Controller('app/admin/auth')
export class AdminAuthController {
  constructor(
    private readonly auth: AdminAuthService,
    private readonly totp: AdminTotpService,
    private readonly locales: AdminLocaleService,
    private readonly accounts: AdminAccountsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('login')
  @AdminPublic()
  @ApiOperation({
    summary:
      'Log in: sets the ADMIN_SID cookie (HttpOnly, SameSite=Strict, on Path=/admin and Path=/app/admin) with a new session ID, ending the one the browser held. With two-factor sign-in on, totp_code is required.',
  })
  @ApiEnvelope(AdminMeReply, ENDPOINT_ERRORS.adminAuth.login)
  async login(
    @Body() dto: AdminLoginDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AdminMeReply> {
    const { sessionId, account } = await this.auth.login(
      dto.username,
      dto.password,
      request.ip ?? request.socket.remoteAddress ?? '',
      sessionCookieOf(request),
      dto.totp_code,
    );
    setSessionCookie(response, sessionId, this.config.admin.sessionAbsoluteSeconds, this.secure);
    return { admin: toAdminReply(account) };
  }

  @Post('logout')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Log out: deletes the session and clears the cookie.' })
  @ApiEnvelope(AdminDoneReply, ENDPOINT_ERRORS.adminAuth.logout)
  async logout(
    @CurrentAdmin() actor: AdminActor,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AdminDoneReply> {
    await this.auth.logout(actor.sessionHash);
    clearSessionCookie(response, this.secure);
    return { done: true };
  }

  @Get('me')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'The logged-in administrator.' })
  @ApiEnvelope(AdminMeReply, ENDPOINT_ERRORS.adminAuth.me)
  async me(@CurrentAdmin() actor: AdminActor): Promise<AdminMeReply> {
    const account = await this.accounts.findById(actor.id);
    if (!account) throw new Error('the guard let a deleted account through');
    return { admin: toAdminReply(account) };
  }

  @Post('password')
  @AdminRoles('viewer')
  @ApiOperation({ summary: "Change one's own password; every other session of the account ends." })
  @ApiEnvelope(AdminDoneReply, ENDPOINT_ERRORS.adminAuth.changePassword)
  async changePassword(@CurrentAdmin() actor: AdminActor, @Body() dto: ChangePasswordDto): Promise<AdminDoneReply> {
    await this.auth.changePassword(actor, dto.current_password, dto.new_password);
    return { done: true };
  }

  @Post('totp/setup')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'Start two-factor sign-in: a new TOTP secret for an authenticator app, active once confirmed with totp/enable.',
  })
  @ApiEnvelope(TotpSetupReply, ENDPOINT_ERRORS.adminAuth.totpSetup)
  totpSetup(@CurrentAdmin() actor: AdminActor): Promise<TotpSetupReply> {
    return this.totp.setup(actor);
  }

  @Post('totp/enable')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Turn two-factor sign-in on with a code from the new secret; other sessions end.' })
  @ApiEnvelope(AdminDoneReply, ENDPOINT_ERRORS.adminAuth.totpEnable)
  async totpEnable(@CurrentAdmin() actor: AdminActor, @Body() dto: TotpCodeDto): Promise<AdminDoneReply> {
    await this.totp.enable(actor, dto.code);
    return { done: true };
  }

  @Post('totp/disable')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'Turn two-factor sign-in off with the password and a current code; other sessions end.' })
  @ApiEnvelope(AdminDoneReply, ENDPOINT_ERRORS.adminAuth.totpDisable)
  async totpDisable(@CurrentAdmin() actor: AdminActor, @Body() dto: TotpDisableDto): Promise<AdminDoneReply> {
    await this.totp.disable(actor, dto.password, dto.code);
    return { done: true };
  }

  @Post('locale')
  @AdminRoles('viewer')
  @ApiOperation({
    summary: "Choose one's own console language (any role, own account only); audited as admin.locale_changed.",
  })
  @ApiEnvelope(AdminMeReply, ENDPOINT_ERRORS.adminAuth.setLocale)
  setLocale(@CurrentAdmin() actor: AdminActor, @Body() dto: SetAdminLocaleDto): Promise<AdminMeReply> {
    return this.locales.setOwn(actor, dto.locale);
  }

  private get secure(): boolean {
    return this.config.nodeEnv === 'production';
  }
}
