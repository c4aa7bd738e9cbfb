import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import type { AdminRole } from './admin-roles';
import { AdminAccountEntity, AdminSessionEntity } from './admin.entities';

export type AdminChanges = Partial<
  Pick<
    AdminAccountEntity,
    'role' | 'disabled' | 'passwordHash' | 'totpSecret' | 'totpPendingSecret' | 'totpLastStep' | 'locale'
  >
>;

/** Admin accounts and their sessions. */
@Injectable()
export class AdminAccountsRepository {
  constructor(
    @InjectRepository(AdminAccountEntity) private readonly accounts: Repository<AdminAccountEntity>,
    @InjectRepository(AdminSessionEntity) private readonly sessions: Repository<AdminSessionEntity>,
  ) {}

  private repo(manager?: EntityManager): Repository<AdminAccountEntity> {
    return manager ? manager.getRepository(AdminAccountEntity) : this.accounts;
  }

  count(): Promise<number> {
    return this.accounts.count();
  }

  findById(id: string, manager?: EntityManager): Promise<AdminAccountEntity | null> {
    return this.repo(manager).findOneBy({ id });
  }

  findByUsername(username: string, manager?: EntityManager): Promise<AdminAccountEntity | null> {
    return this.repo(manager).findOneBy({ username });
  }

  list(): Promise<AdminAccountEntity[]> {
    return this.accounts.find({ order: { id: 'ASC' } });
  }

  /** Enabled owners other than `exceptId`: the console must always keep one. */
  countOtherActiveOwners(exceptId: string, manager: EntityManager): Promise<number> {
    return manager
      .getRepository(AdminAccountEntity)
      .createQueryBuilder('a')
      .where('a.role = :role AND a.disabled = :disabled AND a.id <> :id', {
        role: 'owner',
        disabled: false,
        id: exceptId,
      })
      .getCount();
  }

  /** A unique violation on the username propagates: the name is taken (or a concurrent bootstrap won). */
  async insert(
    account: { username: string; passwordHash: string; role: AdminRole; now: number },
    manager?: EntityManager,
  ): Promise<AdminAccountEntity> {
    const entity = this.repo(manager).create({
      username: account.username,
      passwordHash: account.passwordHash,
      role: account.role,
      disabled: false,
      locale: 'en',
      totpSecret: null,
      totpPendingSecret: null,
      totpLastStep: null,
      createdAt: account.now,
      updatedAt: account.now,
    });
    entity.id = await insertRow(manager ?? this.accounts.manager, AdminAccountEntity, entity);
    return entity;
  }

  async update(manager: EntityManager, id: string, changes: AdminChanges, now: number): Promise<void> {
    await manager.update(AdminAccountEntity, { id }, { ...changes, updatedAt: now });
  }

  /**
   * Records `step` as the account's last accepted TOTP step when it is newer than the recorded
   * one; false when it is not, so of two logins with the same code exactly one gets through.
   */
  async claimTotpStep(id: string, secret: string, step: number): Promise<boolean> {
    const result = await this.accounts
      .createQueryBuilder()
      .update(AdminAccountEntity)
      .set({ totpLastStep: step })
      .where('id = :id AND totp_secret = :secret AND (totp_last_step IS NULL OR totp_last_step < :step)', {
        id,
        secret,
        step,
      })
      .execute();
    return (result.affected ?? 0) === 1;
  }

  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(AdminSessionEntity, { adminId: id });
    await manager.delete(AdminAccountEntity, { id });
  }

  async insertSession(hash: string, adminId: string, now: number): Promise<void> {
    await this.sessions.insert({ sessionIdHash: hash, adminId, createdAt: now, lastSeenAt: now });
  }

  findSession(hash: string): Promise<AdminSessionEntity | null> {
    return this.sessions.findOneBy({ sessionIdHash: hash });
  }

  async touchSession(id: string, now: number): Promise<void> {
    await this.sessions.update({ id }, { lastSeenAt: now });
  }

  async deleteSession(hash: string): Promise<void> {
    await this.sessions.delete({ sessionIdHash: hash });
  }

  /** Every session of the account except, when given, the one with `keepHash`. */
  async deleteSessionsOf(adminId: string, manager?: EntityManager, keepHash?: string): Promise<void> {
    const qb = (manager ?? this.sessions.manager)
      .createQueryBuilder()
      .delete()
      .from(AdminSessionEntity)
      .where('admin_id = :adminId', { adminId });
    if (keepHash) qb.andWhere('session_id_hash <> :keepHash', { keepHash });
    await qb.execute();
  }

  /** The account's sessions past the absolute lifetime or idle too long. */
  async deleteExpiredSessions(adminId: string, createdBefore: number, seenBefore: number): Promise<void> {
    await this.sessions
      .createQueryBuilder()
      .delete()
      .from(AdminSessionEntity)
      .where('admin_id = :adminId AND (created_at < :createdBefore OR last_seen_at < :seenBefore)', {
        adminId,
        createdBefore,
        seenBefore,
      })
      .execute();
  }
}
