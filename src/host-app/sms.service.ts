import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { TransactionRunner } from '../database/transaction-runner';
import { SmsPurpose } from './host-app.entities';
import { parsePhone } from './host-app-rules';
import { RetryLaterError, hitOrRetryLater } from './retry-later';
import { SMS_CODE_MAX_ATTEMPTS, SMS_CODE_TTL_MS, hashSmsCode, newSmsCode, smsCodeMatches } from './sms-codes';
import { SmsCodesRepository } from './sms-codes.repository';
import { InboxEntry, LogSmsSender, SmsSender } from './sms-sender';

/** SMS codes: sending (rate limited per phone number and per address) and checking. */
@Injectable()
export class SmsService {
  constructor(
    private readonly codes: SmsCodesRepository,
    private readonly sender: SmsSender,
    private readonly limiter: RateLimiter,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Sends a new code, which replaces the target's previous one. Whether an account exists for
   * the number is not told here: the code is sent for every purpose, and only its holder learns
   * more at the next step. The code is stored only once the provider accepted it.
   */
  async send(rawPhone: string, purpose: SmsPurpose, address: string): Promise<{ expires_in: number }> {
    const phone = parsePhone(rawPhone);
    const sms = this.config.hostApp.sms;
    const now = this.clock.now();
    const windowMs = sms.windowSeconds * 1000;
    await hitOrRetryLater(
      this.limiter,
      `host-sms:address:${address}`,
      { limit: sms.perAddress, windowMs },
      now,
      'too many SMS codes requested from this address; retry after Retry-After seconds',
    );
    const tooMany = 'too many SMS codes requested for this phone number; retry after Retry-After seconds';
    // The least time between two codes to one number, measured from the last one (not a window).
    const intervalMs = sms.phoneIntervalSeconds * 1000;
    if (intervalMs > 0) {
      const last = await this.codes.claimSend(phone, now, intervalMs);
      if (last !== null) throw new RetryLaterError(tooMany, Math.max(1, Math.ceil((last + intervalMs - now) / 1000)));
    }
    await hitOrRetryLater(this.limiter, `host-sms:phone:${phone}`, { limit: sms.perPhone, windowMs }, now, tooMany);
    const code = newSmsCode();
    await this.sender.send({ phone, purpose, code, validMinutes: SMS_CODE_TTL_MS / 60_000 });
    await this.tx.run((manager) =>
      this.codes.replace(manager, {
        phone,
        purpose,
        codeHash: hashSmsCode(phone, purpose, code),
        attempts: 0,
        createdAt: now,
        expiresAt: now + SMS_CODE_TTL_MS,
      }),
    );
    return { expires_in: SMS_CODE_TTL_MS / 1000 };
  }

  /**
   * Uses up the target's code when `code` is it. A wrong code counts a try, and the fifth wrong
   * try ends the code; an expired, used, replaced or exhausted code never matches.
   */
  async consume(phone: string, purpose: SmsPurpose, code: string): Promise<boolean> {
    const stored = await this.codes.find(phone, purpose);
    if (!stored) return false;
    if (this.clock.now() >= stored.expiresAt || stored.attempts >= SMS_CODE_MAX_ATTEMPTS) {
      await this.codes.consume(stored.id);
      return false;
    }
    if (smsCodeMatches(stored.codeHash, phone, purpose, code)) return this.codes.consume(stored.id);
    const counted = await this.codes.countWrongTry(stored.id, stored.attempts);
    if (counted && stored.attempts + 1 >= SMS_CODE_MAX_ATTEMPTS) await this.codes.consume(stored.id);
    return false;
  }

  /** A code check whose failure is a 1004 on the `code` field (sign-up, password reset). */
  async require(phone: string, purpose: SmsPurpose, code: string): Promise<void> {
    if (!(await this.consume(phone, purpose, code)))
      throw AppError.invalid('code', 'incorrect, expired or already used; request a new code');
  }

  /** The development inbox; absent (404) in production or with a real SMS driver. */
  inbox(rawPhone: string): InboxEntry[] {
    if (this.config.nodeEnv === 'production' || !(this.sender instanceof LogSmsSender)) throw new NotFoundException();
    return this.sender.read(parsePhone(rawPhone));
  }
}
