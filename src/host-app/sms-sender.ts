import { Logger } from '@nestjs/common';
import { AppError } from '../common/app-error';
import type { HostAppConfig } from '../config/host-app-config';
import { maskPhone } from './host-app-rules';
import type { SmsPurpose } from './host-app.entities';

export interface SmsMessage {
  phone: string;
  purpose: SmsPurpose;
  code: string;
  /** Minutes the code stays valid, for the text of the message. */
  validMinutes: number;
}

/** Delivers one SMS code; a failure throws (the caller answers 503 and the code is not kept). */
export abstract class SmsSender {
  abstract send(message: SmsMessage): Promise<void>;
}

export interface InboxEntry {
  phone: string;
  purpose: SmsPurpose;
  code: string;
  sent_at: number;
}

const INBOX_PER_PHONE = 10;
const INBOX_PHONES = 1000;

/**
 * Development: the code goes to one dedicated log line (the only place a code is ever logged)
 * and to an in-memory inbox read by GET /app/auth/dev/sms-inbox. Refused in production by the
 * configuration check.
 */
export class LogSmsSender extends SmsSender {
  private readonly logger = new Logger('SmsLog');
  private readonly inbox = new Map<string, InboxEntry[]>();

  constructor(private readonly now: () => number) {
    super();
  }

  send(message: SmsMessage): Promise<void> {
    this.logger.log(`SMS code for ${message.phone} (${message.purpose}): ${message.code}`);
    const entries = this.inbox.get(message.phone) ?? [];
    entries.unshift({ phone: message.phone, purpose: message.purpose, code: message.code, sent_at: this.now() });
    this.inbox.delete(message.phone);
    this.inbox.set(message.phone, entries.slice(0, INBOX_PER_PHONE));
    // Oldest phone out first (a Map iterates in insertion order).
    if (this.inbox.size > INBOX_PHONES) this.inbox.delete(this.inbox.keys().next().value as string);
    return Promise.resolve();
  }

  /** The latest codes sent to `phone`, newest first. */
  read(phone: string): InboxEntry[] {
    return this.inbox.get(phone) ?? [];
  }
}

/**
 * A provider reached over HTTP: `POST SMS_HTTP_URL` with `Authorization: Bearer SMS_HTTP_KEY`
 * and the JSON `{phone, code, purpose, valid_minutes, text}`; any 2xx is delivered. The key and
 * the code never appear in an error or log line (only the status or the failure's kind).
 */
export class HttpSmsSender extends SmsSender {
  private readonly logger = new Logger('SmsHttp');

  constructor(private readonly sms: Pick<HostAppConfig['sms'], 'httpUrl' | 'httpKey' | 'httpTimeoutMs'>) {
    super();
  }

  async send(message: SmsMessage): Promise<void> {
    let status: number;
    try {
      const response = await fetch(this.sms.httpUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.sms.httpKey}` },
        body: JSON.stringify({
          phone: message.phone,
          code: message.code,
          purpose: message.purpose,
          valid_minutes: message.validMinutes,
          text: `Your verification code is ${message.code}. It is valid for ${message.validMinutes} minutes.`,
        }),
        redirect: 'error',
        signal: AbortSignal.timeout(this.sms.httpTimeoutMs),
      });
      status = response.status;
      await response.body?.cancel();
    } catch (error) {
      const kind = (error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable';
      this.logger.warn(`SMS provider ${kind} for ${maskPhone(message.phone)}`);
      throw AppError.unavailable('the SMS provider did not answer');
    }
    if (status < 200 || status > 299) {
      this.logger.warn(`SMS provider answered HTTP ${status} for ${maskPhone(message.phone)}`);
      throw AppError.unavailable('the SMS provider refused the message');
    }
  }
}
