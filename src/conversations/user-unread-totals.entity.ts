import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintId, msTime } from '../database/columns';

/**
 * A user's one-to-one unread, summed: the sum of unread_count over their one-to-one member rows,
 * and of those not muted. Every change of such a row's unread_count or muted changes this row in
 * the same transaction (ConversationMembersRepository), so sync reads one row instead of summing
 * a row per conversation. Group unread is derived per group when read and is not included.
 */
@Entity('user_unread_totals')
export class UserUnreadTotalsEntity {
  @PrimaryColumn({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  @Column({ name: 'direct_unread', type: 'bigint', default: 0, transformer: msTime })
  directUnread: number;

  @Column({ name: 'direct_unread_unmuted', type: 'bigint', default: 0, transformer: msTime })
  directUnreadUnmuted: number;
}
