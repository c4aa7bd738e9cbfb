import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { SmsCodeEntity, SmsPurpose } from './host-app.entities';

/** The live SMS code of each phone number and purpose (at most one: a new code replaces the old). */
@Injectable()
export class SmsCodesRepository {
  constructor(@InjectRepository(SmsCodeEntity) private readonly codes: Repository<SmsCodeEntity>) {}

  find(phone: string, purpose: SmsPurpose): Promise<SmsCodeEntity | null> {
    return this.codes.findOneBy({ phone, purpose });
  }

  /** Replaces the target's code: the previous one stops working. */
  async replace(manager: EntityManager, code: Omit<SmsCodeEntity, 'id'>): Promise<void> {
    await manager.delete(SmsCodeEntity, { phone: code.phone, purpose: code.purpose });
    await manager.insert(SmsCodeEntity, code);
  }

  /** Uses the code up; false when another request used or replaced it first. */
  async consume(id: string): Promise<boolean> {
    const result = await this.codes.delete({ id });
    return (result.affected ?? 0) > 0;
  }

  /** Counts a wrong try, unless the code was replaced or used meanwhile; returns whether it was counted. */
  async countWrongTry(id: string, attempts: number): Promise<boolean> {
    const result = await this.codes.update({ id, attempts }, { attempts: attempts + 1 });
    return (result.affected ?? 0) > 0;
  }

  /** Up to `batchSize` codes that expired before `cutoff` (retention). */
  async pruneExpired(cutoff: number, batchSize: number): Promise<number> {
    const rows = await this.codes
      .createQueryBuilder('c')
      .select('c.id', 'id')
      .where('c.expires_at < :cutoff', { cutoff })
      .limit(batchSize)
      .getRawMany<{ id: string | number }>();
    if (rows.length === 0) return 0;
    await this.codes.delete(rows.map((row) => String(row.id)));
    return rows.length;
  }
}
