import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { hashPassword, needsRehash, verifyPassword } from '../common/security/password-hash';
import { newSessionId, sessionIdHash } from '../common/security/session-ids';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import type { AdminActor } from './admin-actor';
import { AdminAccountsRepository } from './admin-accounts.repository';
import { AdminAuditService } from './admin-audit.service';
import { checkPassword } from './admin-rules';
import { totpStep } from './admin-totp';
import { AdminAccountEntity } from './admin.entities';

/** How often a session's last use is written: idle expiry is this coarse, and reads stay reads. */
const TOUCH_EVERY_MS = 60_000;

// One answer for a wrong, unknown, disabled or locked login: it names the limit as a possible
// cause without telling which applies.
export const LOGIN_FAILED_MSG = 'username or password incorrect, or too many failed attempts: try again later';
const loginFailed = (): AppError => new AppError(ErrorCode.TOKEN_INVALID, LOGIN_FAILED_MSG, 401);

@Injectable()
export class AdminAuthService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AdminAuth');

  constructor(
    private readonly accounts: AdminAccountsRepository,
    private readonly audit: AdminAuditService,
    private readonly limiter: RateLimiter,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * ADMIN_BOOTSTRAP_PASSWORD: an owner is created when no administrator exists. Two instances
   * starting together both see none; the unique username lets exactly one insert win.
   */
  async onApplicationBootstrap(): Promise<void> {
    const bootstrap = this.config.admin.bootstrap;
    if (!bootstrap || (await this.accounts.count()) > 0) return;
    try {
      await this.accounts.insert({
        username: bootstrap.username,
        passwordHash: await hashPassword(bootstrap.password),
        role: 'owner',
        now: this.clock.now(),
      });
      this.logger.log(`created the first administrator "${bootstrap.username}" (owner) from ADMIN_BOOTSTRAP_PASSWORD`);
    } catch (error) {
      if (!isUniqueViolation(error, 'username')) throw error;
    }
  }

  /**
   * Every attempt counts against the account and the address, and a successful one is refunded:
   * the limits count failures, so signing in often never locks an account. Past either limit the
   * answer is that of a wrong password, and the password is still hashed so the time taken tells
   * nothing.
   * With two-factor sign-in on, `totpCode` must be a current code not used before.
   */
  async login(
    username: string,
    password: string,
    address: string,
    previousSessionId: string | null | undefined,
    totpCode?: string,
  ): Promise<{ sessionId: string; account: AdminAccountEntity }> {
    const rule = (limit: number) => ({ limit, windowMs: this.config.admin.loginWindowSeconds * 1000 });
    const limits = [
      { key: `admin-login:account:${username.toLowerCase()}`, rule: rule(this.config.admin.loginAttemptsPerAccount) },
      { key: `admin-login:address:${address}`, rule: rule(this.config.admin.loginAttemptsPerAddress) },
    ];
    const attemptAt = this.clock.now();
    const [accountAllowed, addressAllowed] = await Promise.all(limits.map((l) => this.limiter.hit(l.key, l.rule)));
    const account = await this.accounts.findByUsername(username);
    const matches = await verifyPassword(password, account?.passwordHash ?? null);
    if (!account || !matches || account.disabled || !accountAllowed || !addressAllowed) throw loginFailed();
    // A missing, wrong or reused code answers exactly as a wrong password: the reply never says
    // that the password was right.
    if (account.totpSecret !== null) {
      const step = totpCode === undefined ? null : totpStep(account.totpSecret, totpCode, this.clock.now());
      if (step === null || !(await this.accounts.claimTotpStep(account.id, account.totpSecret, step)))
        throw loginFailed();
    }
    await Promise.all(limits.map((l) => this.limiter.refund(l.key, l.rule, attemptAt)));
    const now = this.clock.now();
    if (needsRehash(account.passwordHash)) {
      const passwordHash = await hashPassword(password);
      await this.tx.run((manager) => this.accounts.update(manager, account.id, { passwordHash }, now));
    }
    // Rotation: whatever session the browser held before is ended, and a new ID is issued.
    if (previousSessionId) await this.accounts.deleteSession(sessionIdHash(previousSessionId));
    // The account's expired sessions are swept at its login, so its rows stay a handful.
    const { sessionIdleSeconds, sessionAbsoluteSeconds } = this.config.admin;
    await this.accounts.deleteExpiredSessions(
      account.id,
      now - sessionAbsoluteSeconds * 1000,
      now - sessionIdleSeconds * 1000,
    );
    const sessionId = newSessionId();
    await this.accounts.insertSession(sessionIdHash(sessionId), account.id, now);
    return { sessionId, account };
  }

  async logout(sessionHash: string): Promise<void> {
    await this.accounts.deleteSession(sessionHash);
  }

  /** The administrator of a session ID, or a 401: 1101 without one, 1102 for an unknown, expired or disabled one. */
  async authenticate(sessionId: string | null | undefined, traceId: string): Promise<AdminActor> {
    if (sessionId === undefined) throw new AppError(ErrorCode.TOKEN_MISSING, 'admin session missing: log in', 401);
    const invalid = new AppError(ErrorCode.TOKEN_INVALID, 'admin session invalid or expired: log in again', 401);
    if (sessionId === null) throw invalid;
    const hash = sessionIdHash(sessionId);
    const session = await this.accounts.findSession(hash);
    if (!session) throw invalid;
    const now = this.clock.now();
    const { sessionIdleSeconds, sessionAbsoluteSeconds } = this.config.admin;
    if (
      now - session.createdAt >= sessionAbsoluteSeconds * 1000 ||
      now - session.lastSeenAt >= sessionIdleSeconds * 1000
    ) {
      await this.accounts.deleteSession(hash);
      throw invalid;
    }
    const account = await this.accounts.findById(session.adminId);
    if (!account || account.disabled) throw invalid;
    if (now - session.lastSeenAt >= TOUCH_EVERY_MS) await this.accounts.touchSession(session.id, now);
    return { id: account.id, username: account.username, role: account.role, sessionHash: hash, traceId };
  }

  /** The current password is required; every other session of the account ends. */
  async changePassword(actor: AdminActor, current: string, next: string): Promise<void> {
    checkPassword(next, 'new_password');
    const account = await this.accounts.findById(actor.id);
    if (!account || !(await verifyPassword(current, account.passwordHash)))
      throw AppError.invalid('current_password', 'is not your current password');
    const passwordHash = await hashPassword(next);
    await this.tx.run(async (manager) => {
      await this.accounts.update(manager, actor.id, { passwordHash }, this.clock.now());
      await this.accounts.deleteSessionsOf(actor.id, manager, actor.sessionHash);
      await this.audit.record(manager, actor, {
        action: 'admin.password_changed',
        targetType: 'admin',
        targetId: actor.username,
        before: null,
        after: null,
      });
    });
  }
}
