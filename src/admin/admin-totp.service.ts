import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { verifyPassword } from '../common/security/password-hash';
import { TransactionRunner } from '../database/transaction-runner';
import type { AdminActor } from './admin-actor';
import { AdminAccountsRepository } from './admin-accounts.repository';
import { AdminAuditService } from './admin-audit.service';
import { newTotpSecret, totpQrCode, totpStep, totpUri } from './admin-totp';
import type { AdminAccountEntity } from './admin.entities';
import { TotpSetupReply } from './admin.reply';

/**
 * Two-factor sign-in for one's own account: setup hands out a secret, a code from it turns the
 * factor on; turning it off takes the password and a code. Each change ends the account's other
 * sessions (as a password change does) and writes an audit row, never with the secret.
 */
@Injectable()
export class AdminTotpService {
  constructor(
    private readonly accounts: AdminAccountsRepository,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async setup(actor: AdminActor): Promise<TotpSetupReply> {
    const account = await this.require(actor);
    if (account.totpSecret !== null)
      throw AppError.invalid('totp', 'two-factor sign-in is already on; turn it off first');
    const secret = newTotpSecret();
    await this.tx.run((manager) =>
      this.accounts.update(manager, account.id, { totpPendingSecret: secret }, this.clock.now()),
    );
    const uri = totpUri(secret, account.username);
    return { secret, otpauth_uri: uri, qr_code: await totpQrCode(uri) };
  }

  async enable(actor: AdminActor, code: string): Promise<void> {
    const account = await this.require(actor);
    if (account.totpSecret !== null) throw AppError.invalid('totp', 'two-factor sign-in is already on');
    if (account.totpPendingSecret === null) throw AppError.invalid('totp', 'call totp/setup first');
    const step = totpStep(account.totpPendingSecret, code, this.clock.now());
    if (step === null) throw AppError.invalid('code', 'does not match the secret from totp/setup');
    await this.change(actor, 'admin.totp_enabled', {
      totpSecret: account.totpPendingSecret,
      totpPendingSecret: null,
      // The confirming code is used: it cannot also sign in.
      totpLastStep: step,
    });
  }

  async disable(actor: AdminActor, password: string, code: string): Promise<void> {
    const account = await this.require(actor);
    if (account.totpSecret === null) throw AppError.invalid('totp', 'two-factor sign-in is off');
    if (!(await verifyPassword(password, account.passwordHash)))
      throw AppError.invalid('password', 'is not your current password');
    const step = totpStep(account.totpSecret, code, this.clock.now());
    if (step === null || !(await this.accounts.claimTotpStep(account.id, account.totpSecret, step)))
      throw AppError.invalid('code', 'is wrong or already used');
    await this.change(actor, 'admin.totp_disabled', { totpSecret: null, totpPendingSecret: null, totpLastStep: null });
  }

  private async change(
    actor: AdminActor,
    action: string,
    changes: Pick<AdminAccountEntity, 'totpSecret' | 'totpPendingSecret' | 'totpLastStep'>,
  ): Promise<void> {
    await this.tx.run(async (manager) => {
      await this.accounts.update(manager, actor.id, changes, this.clock.now());
      await this.accounts.deleteSessionsOf(actor.id, manager, actor.sessionHash);
      await this.audit.record(manager, actor, {
        action,
        targetType: 'admin',
        targetId: actor.username,
        before: { totp_enabled: action !== 'admin.totp_enabled' },
        after: { totp_enabled: action === 'admin.totp_enabled' },
      });
    });
  }

  private async require(actor: AdminActor): Promise<AdminAccountEntity> {
    const account = await this.accounts.findById(actor.id);
    if (!account) throw new Error('the guard let a deleted account through');
    return account;
  }
}
