import { ApiProperty } from '@nestjs/swagger';
import type { User } from '../users/user';
import { SMS_PURPOSES, SmsPurpose, type HostAccountEntity } from './host-app.entities';
import type { InboxEntry } from './sms-sender';
import type { HostAccount, HostDone, HostMe, HostSmsInbox, HostSmsSent } from '../contract/host-app';

export class HostAccountReply implements HostAccount {
  @ApiProperty({
    description: 'The IM user ID linked to the account: random, stable, and what other users see.',
    example: 'h_3f9c2a7b1d0e4c6a8b5f1e2d',
  })
  user_id: string;
  @ApiProperty({
    description: "The account's phone number (E.164); never shown to other users.",
    example: '+8613800138000',
  })
  phone: string;
  @ApiProperty({ description: 'The current IM nickname.', example: 'Alice' }) nickname: string;
  @ApiProperty({ description: 'Unix ms of sign-up.', example: 1732200000000 }) created_at: number;
}

export class HostMeReply implements HostMe {
  @ApiProperty({ type: HostAccountReply }) account: HostAccountReply;
}

export class HostDoneReply implements HostDone {
  @ApiProperty({ example: true }) done: boolean;
}

export class SmsSentReply implements HostSmsSent {
  @ApiProperty({ description: 'Seconds the code stays valid (300).', example: 300 }) expires_in: number;
}

export class SmsInboxItemReply {
  @ApiProperty({ example: '+8613800138000' }) phone: string;
  @ApiProperty({ enum: SMS_PURPOSES }) purpose: SmsPurpose;
  @ApiProperty({ example: '123456' }) code: string;
  @ApiProperty({ description: 'Unix ms.', example: 1732200000000 }) sent_at: number;
}

export class SmsInboxReply implements HostSmsInbox {
  @ApiProperty({ type: [SmsInboxItemReply], description: 'The latest codes sent to the number, newest first.' })
  items: SmsInboxItemReply[];
}

export function toHostMeReply(account: HostAccountEntity, user: User | null): HostMeReply {
  return {
    account: {
      user_id: account.imUserId,
      phone: account.phone,
      nickname: user?.nickname ?? account.nickname,
      created_at: account.createdAt,
    },
  };
}

export function toSmsInboxReply(entries: readonly InboxEntry[]): SmsInboxReply {
  return {
    items: entries.map((entry) => ({
      phone: entry.phone,
      purpose: entry.purpose,
      code: entry.code,
      sent_at: entry.sent_at,
    })),
  };
}
