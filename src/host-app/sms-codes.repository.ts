import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { SmsCodeEntity, SmsPurpose } from './host-app.entities';
import { SmsPhoneSendEntity } from './sms-phone-send.entity';

/** The live SMS code of each phone number and purpose (at most one: a new code replaces the old). */
@Injectable()
export class SmsCodesRepository {
  constructor(
    @InjectRepository(SmsCodeEntity) private readonly codes: Repository<SmsCodeEntity>,
    @InjectRepository(SmsPhoneSendEntity) private readonly sends: Repository<SmsPhoneSendEntity>,
  ) {}

  /**
   * Claims sending `phone` a code at `now`: null when no code went out to it after
   * `now - intervalMs` (the claim is then recorded), otherwise when the last one went out.
   * One conditional UPDATE, or the INSERT of the number's first row: of two concurrent claims
   * the database lets one through, on either driver.
   */
  async claimSend(phone: string, now: number, intervalMs: number): Promise<number | null> {
    const updated = await this.sends
      .createQueryBuilder()
      .update()
      .set({ lastSentAt: now })
      .where('phone = :phone AND last_sent_at <= :since', { phone, since: now - intervalMs })
      .execute();
    if ((updated.affected ?? 0) > 0) return null;
    try {
      await this.sends.insert({ phone, lastSentAt: now });
      return null;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const last = await this.sends.findOneBy({ phone });
    return last?.lastSentAt ?? now;
  }

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

  /**
   * Up to `batchSize` numbers whose last code went out before `cutoff` (retention, with the
   * cutoff at the interval): such a row no longer holds back a code, so deleting it changes nothing.
   */
  async pruneSendsBefore(cutoff: number, batchSize: number): Promise<number> {
    const rows = await this.sends
      .createQueryBuilder('s')
      .select('s.phone', 'phone')
      .where('s.last_sent_at < :cutoff', { cutoff })
      .limit(batchSize)
      .getRawMany<{ phone: string }>();
    if (rows.length === 0) return 0;
    // The condition again: a code sent meanwhile moved last_sent_at, and that row stays.
    const result = await this.sends
      .createQueryBuilder()
      .delete()
      .where('phone IN (:...phones) AND last_sent_at < :cutoff', { phones: rows.map((row) => row.phone), cutoff })
      .execute();
    return result.affected ?? rows.length;
  }
}
