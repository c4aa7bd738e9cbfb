import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { TransactionRunner } from '../database/transaction-runner';
import type { AdminActor } from './admin-actor';
import { AdminAccountsRepository } from './admin-accounts.repository';
import { AdminAuditService } from './admin-audit.service';
import { AdminLocale, adminLocaleOf } from './admin-locales';
import { AdminMeReply, toAdminReply } from './admin.reply';

/** Each administrator's console language: their own choice, whatever their role, audited. */
@Injectable()
export class AdminLocaleService {
  constructor(
    private readonly accounts: AdminAccountsRepository,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Choosing the language already in force writes nothing (no audit row for a no-op). */
  async setOwn(actor: AdminActor, locale: AdminLocale): Promise<AdminMeReply> {
    return this.tx.run(async (manager) => {
      const account = await this.accounts.findById(actor.id, manager);
      if (!account) throw new Error('the guard let a deleted account through');
      const before = adminLocaleOf(account.locale);
      if (before !== locale) {
        const now = this.clock.now();
        await this.accounts.update(manager, actor.id, { locale }, now);
        await this.audit.record(manager, actor, {
          action: 'admin.locale_changed',
          targetType: 'admin',
          targetId: actor.username,
          before: { locale: before },
          after: { locale },
        });
        account.locale = locale;
        account.updatedAt = now;
      }
      return { admin: toAdminReply(account) };
    });
  }
}
