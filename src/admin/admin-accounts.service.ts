import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { hashPassword } from '../common/security/password-hash';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import type { AdminActor } from './admin-actor';
import { AdminAccountsRepository, AdminChanges } from './admin-accounts.repository';
import { AdminAuditRepository } from './admin-audit.repository';
import { AdminAuditService } from './admin-audit.service';
import { AuditQueryDto, CreateAdminDto, UpdateAdminDto } from './admin.dto';
import type { AdminRole } from './admin-roles';
import { AdminAccountEntity } from './admin.entities';
import { AdminListReply, AdminReply, AuditPageReply, toAdminReply, toAuditItemReply } from './admin.reply';
import { checkPassword, checkUsername } from './admin-rules';
import { pageOf } from './admin-pages';

const AUDIT_PAGE = 50;

/** What the audit log keeps of an account: never its password hash. */
const audited = (a: AdminAccountEntity) => ({
  username: a.username,
  role: a.role,
  disabled: a.disabled,
  totp_enabled: a.totpSecret !== null,
});

/** The owner's management of console accounts, and the audit log. */
@Injectable()
export class AdminAccountsService {
  constructor(
    private readonly accounts: AdminAccountsRepository,
    private readonly auditRows: AdminAuditRepository,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async list(): Promise<AdminListReply> {
    return { items: (await this.accounts.list()).map(toAdminReply) };
  }

  /** Also the CLI's (`npm run admin:create`), which has no actor: its row names the CLI. */
  async create(actor: AdminActor | null, dto: CreateAdminDto): Promise<AdminReply> {
    checkUsername(dto.username);
    checkPassword(dto.password, 'password');
    const passwordHash = await hashPassword(dto.password);
    try {
      return await this.tx.run(async (manager) => {
        const account = await this.accounts.insert(
          { username: dto.username, passwordHash, role: dto.role, now: this.clock.now() },
          manager,
        );
        if (actor)
          await this.audit.record(manager, actor, {
            action: 'admin.created',
            targetType: 'admin',
            targetId: account.username,
            before: null,
            after: audited(account),
          });
        return toAdminReply(account);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'username')) throw AppError.invalid('username', 'is already taken');
      throw error;
    }
  }

  /** Role, disabled flag, password. Disabling or a new password ends the account's sessions. */
  async update(actor: AdminActor, dto: UpdateAdminDto): Promise<AdminReply> {
    if (dto.password !== undefined) checkPassword(dto.password, 'password');
    const passwordHash = dto.password !== undefined ? await hashPassword(dto.password) : undefined;
    return this.tx.run(async (manager) => {
      const account = await this.require(dto.username, manager);
      const changes: AdminChanges = {};
      if (dto.role !== undefined && dto.role !== account.role) changes.role = dto.role;
      if (dto.disabled !== undefined && dto.disabled !== account.disabled) changes.disabled = dto.disabled;
      if (passwordHash !== undefined) changes.passwordHash = passwordHash;
      const resetTotp = dto.reset_totp === true && (account.totpSecret !== null || account.totpPendingSecret !== null);
      if (resetTotp) Object.assign(changes, { totpSecret: null, totpPendingSecret: null, totpLastStep: null });
      if (Object.keys(changes).length === 0) return toAdminReply(account);
      const after = Object.assign(new AdminAccountEntity(), account, changes, { updatedAt: this.clock.now() });
      await this.keepAnOwner(manager, account, after.role, after.disabled);
      await this.accounts.update(manager, account.id, changes, after.updatedAt);
      if (changes.disabled || passwordHash !== undefined || resetTotp)
        await this.accounts.deleteSessionsOf(account.id, manager);
      await this.audit.record(manager, actor, {
        action: 'admin.updated',
        targetType: 'admin',
        targetId: account.username,
        before: audited(account),
        after: { ...audited(after), ...(passwordHash !== undefined ? { password_reset: true } : {}) },
      });
      return toAdminReply(after);
    });
  }

  async remove(actor: AdminActor, username: string): Promise<AdminReply> {
    return this.tx.run(async (manager) => {
      const account = await this.require(username, manager);
      await this.keepAnOwner(manager, account, 'viewer', true);
      await this.accounts.delete(manager, account.id);
      await this.audit.record(manager, actor, {
        action: 'admin.deleted',
        targetType: 'admin',
        targetId: account.username,
        before: audited(account),
        after: null,
      });
      return toAdminReply(account);
    });
  }

  async auditLog(actor: AdminActor, dto: AuditQueryDto): Promise<AuditPageReply> {
    const filters = {
      adminUsername: dto.admin,
      action: dto.action,
      targetType: dto.target_type,
      targetId: dto.target_id,
      from: dto.from === undefined ? undefined : Number(dto.from),
      to: dto.to === undefined ? undefined : Number(dto.to),
    };
    const before = dto.cursor ? this.cursors.decode<string>(dto.cursor, actor.id, 'admin.audit', filters) : null;
    const rows = await this.auditRows.list(filters, before, AUDIT_PAGE + 1);
    return pageOf(rows, AUDIT_PAGE, toAuditItemReply, (last) =>
      this.cursors.encode(actor.id, 'admin.audit', filters, String(last.id)),
    );
  }

  private async require(username: string, manager: EntityManager): Promise<AdminAccountEntity> {
    const account = await this.accounts.findByUsername(username, manager);
    if (!account) throw AppError.invalid('username', 'no such administrator');
    return account;
  }

  /** The console must keep at least one enabled owner, or nobody could manage accounts again. */
  private async keepAnOwner(
    manager: EntityManager,
    account: AdminAccountEntity,
    role: AdminRole,
    disabled: boolean,
  ): Promise<void> {
    const wasOwner = account.role === 'owner' && !account.disabled;
    const staysOwner = role === 'owner' && !disabled;
    if (wasOwner && !staysOwner && (await this.accounts.countOtherActiveOwners(account.id, manager)) === 0)
      throw AppError.invalid('username', 'is the last enabled owner; make another owner first');
  }
}
