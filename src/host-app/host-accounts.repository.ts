import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { insertRow } from '../database/insert-row';
import { HostAccountEntity } from './host-app.entities';

/** Host application accounts. */
@Injectable()
export class HostAccountsRepository {
  constructor(@InjectRepository(HostAccountEntity) private readonly accounts: Repository<HostAccountEntity>) {}

  findById(id: string): Promise<HostAccountEntity | null> {
    return this.accounts.findOneBy({ id });
  }

  findByPhone(phone: string): Promise<HostAccountEntity | null> {
    return this.accounts.findOneBy({ phone });
  }

  /** The account linked to the IM user with this external ID (erasure), if any. */
  findByImUserId(imUserId: string): Promise<HostAccountEntity | null> {
    return this.accounts.findOneBy({ imUserId });
  }

  async deleteById(id: string): Promise<void> {
    await this.accounts.delete({ id });
  }

  /** A unique violation on the phone propagates: the number is registered (or a concurrent sign-up won). */
  async insert(account: {
    phone: string;
    passwordHash: string;
    imUserId: string;
    nickname: string;
    now: number;
  }): Promise<HostAccountEntity> {
    const entity = this.accounts.create({
      phone: account.phone,
      passwordHash: account.passwordHash,
      imUserId: account.imUserId,
      nickname: account.nickname,
      createdAt: account.now,
      updatedAt: account.now,
    });
    entity.id = await insertRow(this.accounts.manager, HostAccountEntity, entity);
    return entity;
  }

  async setPasswordHash(manager: EntityManager, id: string, passwordHash: string, now: number): Promise<void> {
    await manager.update(HostAccountEntity, { id }, { passwordHash, updatedAt: now });
  }
}
