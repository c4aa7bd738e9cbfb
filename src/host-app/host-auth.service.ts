import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { hashPassword, needsRehash, verifyPassword } from '../common/security/password-hash';
import { newSessionId, sessionIdHash } from '../common/security/session-ids';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { RateLimitRule } from '../config/messaging-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { UsersService } from '../users/users.service';
import { AuthService } from '../auth/auth.service';
import { TokenReply } from '../auth/auth.reply';
import { HostClient, HostSession } from './host-client';
import { HostAccountsRepository } from './host-accounts.repository';
import { HostSessionStore } from './host-session-store';
import { HostAccountEntity } from './host-app.entities';
import { checkPassword, newImUserId, parsePhone } from './host-app-rules';
import {
  CodeLoginDto,
  HostTokenDto,
  NewPasswordDto,
  PasswordLoginDto,
  ResetPasswordDto,
  SignupDto,
} from './host-app.dto';
import { HostDoneReply, HostMeReply, toHostMeReply } from './host-app.reply';
import type { Presented } from './host-session-cookie';
import { hitOrRetryLater } from './retry-later';
import { SmsService } from './sms.service';

/** How often a session's last use is written: idle expiry is this coarse, and reads stay reads. */
const TOUCH_EVERY_MS = 60_000;

const loginFailed = (): AppError =>
  new AppError(ErrorCode.TOKEN_INVALID, 'phone number, password or code incorrect', 401);

/**
 * The bundled host application's accounts and sessions. It is a host like any other: its
 * accounts reach IM through AuthService's upsert and token issue, with the account's own
 * random IM user ID, never one taken from a request.
 */
@Injectable()
export class HostAuthService {
  constructor(
    private readonly accounts: HostAccountsRepository,
    private readonly sessions: HostSessionStore,
    private readonly sms: SmsService,
    private readonly imAuth: AuthService,
    private readonly imUsers: UsersService,
    private readonly limiter: RateLimiter,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The code is checked before anything about the number is told, so only its holder learns whether it is registered. */
  async signup(dto: SignupDto, client: HostClient): Promise<HostMeReply> {
    const phone = parsePhone(dto.phone);
    checkPassword(dto.password, 'password');
    await this.sms.require(phone, 'signup', dto.code);
    const taken = (): AppError => AppError.invalid('phone', 'is already registered; log in instead');
    if (await this.accounts.findByPhone(phone)) throw taken();
    let account: HostAccountEntity;
    try {
      account = await this.accounts.insert({
        phone,
        passwordHash: await hashPassword(dto.password),
        imUserId: newImUserId(),
        nickname: dto.nickname,
        now: this.clock.now(),
      });
    } catch (error) {
      if (isUniqueViolation(error, 'phone')) throw taken();
      throw error;
    }
    await this.imAuth.upsertUser({ user_id: account.imUserId, nickname: dto.nickname });
    return this.startSession(account, client);
  }

  /**
   * Every attempt counts against the account and the address. Past the address limit the answer
   * is HTTP 429; past the account limit it is that of a wrong password, and the password is still
   * hashed so that the time taken tells nothing.
   */
  async loginWithPassword(dto: PasswordLoginDto, client: HostClient): Promise<HostMeReply> {
    const phone = parsePhone(dto.phone);
    const attempt = await this.countAttempt(phone, client.address);
    const account = await this.accounts.findByPhone(phone);
    const matches = await verifyPassword(dto.password, account?.passwordHash ?? null);
    if (!account || !matches || !attempt.allowed) throw loginFailed();
    await this.refundAttempt(phone, client.address, attempt.at);
    if (needsRehash(account.passwordHash)) {
      const passwordHash = await hashPassword(dto.password);
      await this.tx.run((manager) =>
        this.accounts.setPasswordHash(manager, account.id, passwordHash, this.clock.now()),
      );
    }
    return this.startSession(account, client);
  }

  async loginWithCode(dto: CodeLoginDto, client: HostClient): Promise<HostMeReply> {
    const phone = parsePhone(dto.phone);
    const attempt = await this.countAttempt(phone, client.address);
    const matches = await this.sms.consume(phone, 'login', dto.code);
    const account = await this.accounts.findByPhone(phone);
    if (!account || !matches || !attempt.allowed) throw loginFailed();
    await this.refundAttempt(phone, client.address, attempt.at);
    return this.startSession(account, client);
  }

  /** The code proves the number; every session of the account ends (the client logs in afresh). */
  async resetPassword(dto: ResetPasswordDto): Promise<HostDoneReply> {
    const phone = parsePhone(dto.phone);
    checkPassword(dto.new_password, 'new_password');
    await this.sms.require(phone, 'reset', dto.code);
    const account = await this.accounts.findByPhone(phone);
    if (!account) throw AppError.invalid('phone', 'no account is registered with this number');
    const passwordHash = await hashPassword(dto.new_password);
    await this.tx.run(async (manager) => {
      await this.accounts.setPasswordHash(manager, account.id, passwordHash, this.clock.now());
      await this.sessions.deleteOfAccount(account, manager);
    });
    return { done: true };
  }

  async logout(client: HostClient, session: HostSession): Promise<HostDoneReply> {
    await this.sessions.deleteByHash(session.sessionHash);
    client.endSession();
    return { done: true };
  }

  async me(session: HostSession): Promise<HostMeReply> {
    const account = await this.requireAccount(session);
    return toHostMeReply(account, await this.imUsers.findByExternalId(account.imUserId));
  }

  /** The old password is required (and counted like a login); every other session of the account ends. */
  async changePassword(session: HostSession, dto: NewPasswordDto): Promise<HostDoneReply> {
    checkPassword(dto.new_password, 'new_password');
    const account = await this.requireAccount(session);
    const allowed = await this.limiter.hit(`host-login:account:${account.phone}`, this.loginRule(true));
    if (!(await verifyPassword(dto.old_password, account.passwordHash)) || !allowed)
      throw AppError.invalid('old_password', 'is not your current password');
    const passwordHash = await hashPassword(dto.new_password);
    await this.tx.run(async (manager) => {
      await this.accounts.setPasswordHash(manager, account.id, passwordHash, this.clock.now());
      await this.sessions.deleteOfAccount(account, manager, session.sessionHash);
    });
    return { done: true };
  }

  /**
   * The IM credential of the logged-in account, issued exactly as POST /app/sdk/token issues it.
   * The nickname sent is the IM profile's current one, so a nickname the user changed through
   * the SDK is never overwritten by the one given at sign-up.
   */
  async token(session: HostSession, dto: HostTokenDto): Promise<TokenReply> {
    const account = await this.requireAccount(session);
    const user = await this.imUsers.findByExternalId(account.imUserId);
    return this.imAuth.issueToken({
      user_id: account.imUserId,
      nickname: user?.nickname ?? account.nickname,
      platform: dto.platform,
      manufacturer: dto.manufacturer,
      package_name: dto.package_name,
    });
  }

  /** The session of a presented ID, or a 401: 1101 without one, 1102 for a malformed, unknown or expired one. */
  async authenticate(presented: Presented): Promise<HostSession> {
    if (presented === undefined) throw new AppError(ErrorCode.TOKEN_MISSING, 'not logged in: PHPSID missing', 401);
    const invalid = new AppError(ErrorCode.TOKEN_INVALID, 'not logged in: session invalid or expired', 401);
    if (presented.id === null) throw invalid;
    const hash = sessionIdHash(presented.id);
    const session = await this.sessions.findByHash(hash);
    if (!session) throw invalid;
    const now = this.clock.now();
    const { idleMs, absoluteMs } = this.lifetimes();
    if (now - session.createdAt >= absoluteMs || now - session.lastSeenAt >= idleMs) {
      await this.sessions.deleteByHash(hash);
      throw invalid;
    }
    if (now - session.lastSeenAt >= TOUCH_EVERY_MS)
      await this.sessions.touch(hash, now, Math.min(idleMs, session.createdAt + absoluteMs - now));
    return { accountId: session.accountId, sessionHash: hash };
  }

  /** Rotation: the session the client held before (if any) ends, and a new ID is issued. */
  private async startSession(account: HostAccountEntity, client: HostClient): Promise<HostMeReply> {
    if (client.presented?.id) await this.sessions.deleteByHash(sessionIdHash(client.presented.id));
    const sessionId = newSessionId();
    await this.sessions.insert(sessionIdHash(sessionId), account, this.clock.now(), this.lifetimes().idleMs);
    client.startSession(sessionId);
    return toHostMeReply(account, await this.imUsers.findByExternalId(account.imUserId));
  }

  /** Counts a login attempt: HTTP 429 past the address limit; `allowed` false past the account limit. */
  private async countAttempt(phone: string, address: string): Promise<{ allowed: boolean; at: number }> {
    const at = this.clock.now();
    await hitOrRetryLater(
      this.limiter,
      `host-login:address:${address}`,
      this.loginRule(false),
      at,
      'too many login attempts from this address; retry after Retry-After seconds',
    );
    return { allowed: await this.limiter.hit(`host-login:account:${phone}`, this.loginRule(true)), at };
  }

  /** A login that succeeded is not an attempt to guess: the limits count failures only. */
  private async refundAttempt(phone: string, address: string, at: number): Promise<void> {
    await Promise.all([
      this.limiter.refund(`host-login:address:${address}`, this.loginRule(false), at),
      this.limiter.refund(`host-login:account:${phone}`, this.loginRule(true), at),
    ]);
  }

  /** The absolute lifetime is never shorter than the idle one (checked at boot). */
  private lifetimes(): { idleMs: number; absoluteMs: number } {
    const { sessionIdleSeconds, sessionAbsoluteSeconds } = this.config.hostApp;
    return { idleMs: sessionIdleSeconds * 1000, absoluteMs: sessionAbsoluteSeconds * 1000 };
  }

  private loginRule(perAccount: boolean): RateLimitRule {
    const { loginAttemptsPerAccount, loginAttemptsPerAddress, loginWindowSeconds } = this.config.hostApp;
    return {
      limit: perAccount ? loginAttemptsPerAccount : loginAttemptsPerAddress,
      windowMs: loginWindowSeconds * 1000,
    };
  }

  private async requireAccount(session: HostSession): Promise<HostAccountEntity> {
    const account = await this.accounts.findById(session.accountId);
    // Accounts are never deleted; a session outliving its account would be a bug.
    if (!account) throw new Error('a host session names no account');
    return account;
  }
}
