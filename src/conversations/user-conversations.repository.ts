import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted } from '../database/execute-counted';
import { queryPrepared } from '../database/prepared-query';
import { ConversationMemberEntity } from './conversation-member.entity';
import { MEMBER_COLUMNS, MEMBER_FROM, MEMBER_WITH_CONVERSATION, Row, isMysql, str, toMember, toMemberWithProgress, totalsOf } from './conversation-rows';
import { GROUP_SQL } from './member-state';
import { HOME_COLUMNS, HOME_JOINS, UNREAD_TOTALS_SQL, HomeEntry, HomePosition, HomeViewer, UnreadTotals, homeEntryFromRow, homeKeysSql, homeOrder } from './home-list';

/**
 * One user's member rows across all their conversations: the home list and unread reads of
 * sync, and the repair of their one-to-one state (unread totals, peers).
 */
@Injectable()
export class UserConversationsRepository {
  constructor(@InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>) {}

  /**
   * One page of the home list (home-list.ts) and the unread aggregate, in one statement: the
   * aggregate is a one-row derived table the page's rows are joined to, so an empty page still
   * answers it.
   */
  async homePage(viewer: HomeViewer, after: HomePosition | null, count: number): Promise<{ entries: HomeEntry[]; totals: UnreadTotals }> {
    const keys = homeKeysSql(after);
    const rows = await queryPrepared<Row>(this.members.manager, `SELECT t.total, t.unmuted, ${HOME_COLUMNS} FROM (${UNREAD_TOTALS_SQL}) t LEFT JOIN (${keys.sql}) page ON 1 = 1 ${HOME_JOINS}`, [
      viewer.id,
      viewer.id,
      ...keys.params(viewer.id, count),
    ]);
    const entries = rows.flatMap((row) => homeEntryFromRow(row, viewer) ?? []);
    entries.sort((a, b) => homeOrder(a.member, b.member));
    return { entries, totals: totalsOf(rows[0]) };
  }

  /** The home-list row of one conversation, as homePage would list it (hidden or not). */
  async homeEntry(viewer: HomeViewer, conversationId: string): Promise<HomeEntry | null> {
    const rows = (await this.members.query(
      `SELECT ${HOME_COLUMNS} FROM (SELECT m.id AS k FROM conversation_members m WHERE m.conversation_id = ? AND m.user_id = ?) page ${HOME_JOINS}`,
      [conversationId, viewer.id],
    )) as Row[];
    return rows[0] ? homeEntryFromRow(rows[0], viewer) : null;
  }

  /** The absolute unread aggregate (see UNREAD_TOTALS_SQL). */
  async unreadTotals(userId: string): Promise<UnreadTotals> {
    const rows = (await this.members.query(UNREAD_TOTALS_SQL, [userId, userId])) as Row[];
    return totalsOf(rows[0]);
  }

  /** Conversations with unread messages, most recently active first. */
  async withUnread(userId: string, count: number): Promise<ConversationMemberEntity[]> {
    const [directRows, groupRows] = (await Promise.all([
      this.members.query(
        `SELECT ${MEMBER_COLUMNS} FROM conversation_members WHERE user_id = ? AND is_group = 0 AND unread_count > 0 ORDER BY last_activity_at DESC, conversation_id DESC LIMIT ?`,
        [userId, count],
      ),
      this.members.query(
        `SELECT ${MEMBER_WITH_CONVERSATION} ${MEMBER_FROM} ` +
          `WHERE m.user_id = ? AND m.is_group = 1 AND ${GROUP_SQL.unread} > 0 ORDER BY ${GROUP_SQL.activity} DESC, m.conversation_id DESC LIMIT ?`,
        [userId, count],
      ),
    ])) as [Row[], Row[]];
    const byActivity = (a: ConversationMemberEntity, b: ConversationMemberEntity): number => homeOrder({ ...a, pinned: false }, { ...b, pinned: false });
    return [...directRows.map((row) => toMember(row, null)), ...groupRows.map(toMemberWithProgress)].sort(byActivity).slice(0, count);
  }

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
    const lock = isMysql(manager) ? ' FOR UPDATE' : '';
    const [stored] = (await manager.query(`SELECT direct_unread AS total, direct_unread_unmuted AS unmuted FROM user_unread_totals WHERE user_id = ?${lock}`, [userId])) as Row[];
    const [sums] = (await manager.query(
      'SELECT COALESCE(SUM(unread_count), 0) AS total, COALESCE(SUM(CASE WHEN muted = 0 THEN unread_count ELSE 0 END), 0) AS unmuted ' +
        'FROM conversation_members WHERE user_id = ? AND is_group = 0',
      [userId],
    )) as Row[];
    const counted = totalsOf(sums);
    if (!stored) {
      await manager.query('INSERT INTO user_unread_totals (user_id, direct_unread, direct_unread_unmuted) VALUES (?, ?, ?)', [userId, counted.total, counted.unmuted]);
      return true;
    }
    if (Number(stored.total) === counted.total && Number(stored.unmuted) === counted.unmuted) return false;
    await manager.query('UPDATE user_unread_totals SET direct_unread = ?, direct_unread_unmuted = ? WHERE user_id = ?', [counted.total, counted.unmuted, userId]);
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
      filled += await executeCounted(manager, 'UPDATE conversation_members SET peer_id = ? WHERE id = ? AND peer_id IS NULL', [str(row.peer), str(row.id)]);
    }
    return filled;
  }
}
