import { Column, Entity, PrimaryColumn } from 'typeorm';
import { msTime } from '../database/columns';

/**
 * When a code last went out to a phone number, whatever its purpose: SMS_PHONE_INTERVAL_SECONDS
 * is the least time between two codes to one number, claimed by a conditional write so that of
 * two concurrent requests one wins, on every instance.
 */
@Entity('host_sms_phone_sends')
export class SmsPhoneSendEntity {
  @PrimaryColumn({ type: 'varchar', length: 16 })
  phone: string;

  @Column({ name: 'last_sent_at', type: 'bigint', transformer: msTime })
  lastSentAt: number;
}
