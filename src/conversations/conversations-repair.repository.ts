import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted } from '../database/execute-counted';
import { dialectOf } from '../database/sql-dialect';
import { ConversationMemberEntity } from './conversation-member.entity';
import { Row, str, totalsOf } from './conversation-rows';

/**
 * The statements of the conversations repair (ConversationsRepairService, `npm run
 * repair:conversations`): rebuilding state that older versions did not keep or that a fault left
 * wrong, one user at a time, without blocking sends and reads.
 */
@Injectable()
export class ConversationsRepairRepository {
  constructor(
    @InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>,
  ) {}

  /** Users with one-to-one member rows, by internal ID ascending after `after`: the repair's batches. */
  async usersWithDirectRows(after: string | null, count: number): Promise<string[]> {
    const rows = (await this.members.query(
      'SELECT DISTINCT user_id FROM conversation_members WHERE is_group = 0 AND user_id > ? ORDER BY user_id LIMIT ?',
      [after ?? '0', count],
    )) as Row[];
    return rows.map((row) => str(row.user_id));
  }

  /**
   * Recounts one user's user_unread_totals row from their one-to-one member rows, inside
   * `manager`'s transaction; returns whether it was missing or wrong. The totals row is locked
   * first and the member rows are then read without locks (on MySQL the transaction's snapshot
   * starts with that read): every change of a one-to-one row's unread changes the totals row in
   * the same transaction, so a change committed before the lock is in the snapshot, and one
   * still in flight waits for the lock and adds its delta to the recount. The repair holds no
   * member-row lock, so it cannot deadlock with sends and reads.
   */
  async recountDirectTotals(manager: EntityManager, userId: string): Promise<boolean> {
    const [stored] = (await manager.query(
      `SELECT direct_unread AS total, direct_unread_unmuted AS unmuted FROM user_unread_totals WHERE user_id = ?${dialectOf(manager).forUpdate}`,
      [userId],
    )) as Row[];
    const [sums] = (await manager.query(
      'SELECT COALESCE(SUM(unread_count), 0) AS total, COALESCE(SUM(CASE WHEN muted = 0 THEN unread_count ELSE 0 END), 0) AS unmuted ' +
        'FROM conversation_members WHERE user_id = ? AND is_group = 0',
      [userId],
    )) as Row[];
    const counted = totalsOf(sums);
    if (!stored) {
      await manager.query(
        'INSERT INTO user_unread_totals (user_id, direct_unread, direct_unread_unmuted) VALUES (?, ?, ?)',
        [userId, counted.total, counted.unmuted],
      );
      return true;
    }
    if (Number(stored.total) === counted.total && Number(stored.unmuted) === counted.unmuted) return false;
    await manager.query(
      'UPDATE user_unread_totals SET direct_unread = ?, direct_unread_unmuted = ? WHERE user_id = ?',
      [counted.total, counted.unmuted, userId],
    );
    return true;
  }

  /**
   * Sets peer_id on one user's one-to-one member rows that lack it, from each conversation's
   * other member row; returns how many rows it set. Each row is written by primary key, so
   * only the rows being fixed are locked.
   */
  async fillMissingPeers(manager: EntityManager, userId: string): Promise<number> {
    const missing = (await manager.query(
      'SELECT m.id, o.user_id AS peer FROM conversation_members m JOIN conversation_members o ON o.conversation_id = m.conversation_id AND o.user_id <> m.user_id ' +
        'WHERE m.user_id = ? AND m.is_group = 0 AND m.peer_id IS NULL',
      [userId],
    )) as Row[];
    let filled = 0;
    for (const row of missing) {
      filled += await executeCounted(
        manager,
        'UPDATE conversation_members SET peer_id = ? WHERE id = ? AND peer_id IS NULL',
        [str(row.peer), str(row.id)],
      );
    }
    return filled;
  }
}
