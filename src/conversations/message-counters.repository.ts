import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { executeCounted } from '../database/execute-counted';
import { dialectOf } from '../database/sql-dialect';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { BY_CONVERSATION, Row } from './conversation-rows';
import { seqVisibleSql } from './visibility';

/** 1 for a member row `m` that is not muted, else 0 (its share of the unmuted total). */
const UNMUTED_ONE = 'CASE WHEN m.muted = 0 THEN 1 ELSE 0 END';

/**
 * The counters that sends, tombstones, reads and mutes move: a one-to-one row's unread count and
 * its user's user_unread_totals row (kept equal to the sum of that user's one-to-one unread, in
 * the same transaction as every change of it), a group row's uncounted, and a conversation's
 * content version and deletion revision (the calibration values of spec 4.7). Group unread is
 * not stored: member-state.ts derives it. The caller holds the locks stated at
 * ConversationMembersRepository.lockMembers.
 */
@Injectable()
export class MessageCountersRepository {
  /**
   * After a send, inside its transaction. One-to-one: both rows move up the home list and
   * reappear if hidden, and the peer gains one unread. Group: only the sender's row changes
   * (its own message is not unread); everyone else's state follows from the conversation.
   * Returns false when the sender is no longer a current member (a removal that committed
   * after the send's checks): the send must then be refused.
   */
  async recordSend(
    manager: EntityManager,
    conversation: Pick<ConversationEntity, 'id' | 'type'>,
    senderId: string,
    now: number,
  ): Promise<boolean> {
    if (conversation.type === 'group') {
      const changed = await executeCounted(
        manager,
        'UPDATE conversation_members SET uncounted = uncounted + 1, updated_at = ? WHERE conversation_id = ? AND user_id = ? AND visible_to_seq IS NULL',
        [now, conversation.id, senderId],
      );
      return changed === 1;
    }
    const dialect = dialectOf(manager);
    if (dialect.updatesJoinedTables) {
      // One statement: both member rows and the recipient's totals. The sender's row joins a NULL
      // key, so its totals row is not even looked up (a lookup would lock it until commit).
      await manager.query(
        `UPDATE conversation_members m${dialect.forceIndex(BY_CONVERSATION)} LEFT JOIN user_unread_totals t ON t.user_id = CASE WHEN m.user_id <> ? THEN m.user_id END ` +
          'SET m.unread_count = m.unread_count + CASE WHEN m.user_id = ? THEN 0 ELSE 1 END, m.last_activity_at = ?, m.hidden = 0, m.updated_at = ?, ' +
          `t.direct_unread = t.direct_unread + 1, t.direct_unread_unmuted = t.direct_unread_unmuted + ${UNMUTED_ONE} ` +
          'WHERE m.conversation_id = ? AND m.visible_to_seq IS NULL',
        [senderId, senderId, now, now, conversation.id],
      );
      return true;
    }
    await this.adjustDirectTotals(manager, conversation.id, 'user_id <> ? AND visible_to_seq IS NULL', [senderId], 1);
    await manager.query(
      'UPDATE conversation_members SET unread_count = unread_count + CASE WHEN user_id = ? THEN 0 ELSE 1 END, last_activity_at = ?, hidden = 0, updated_at = ? ' +
        'WHERE conversation_id = ? AND visible_to_seq IS NULL',
      [senderId, now, now, conversation.id],
    );
    return true;
  }

  /**
   * Keeps user_unread_totals where one statement cannot update both tables (SQLite): adds
   * `delta` to the totals of the members of `conversationId` matching `where` (run before the
   * member rows change, so `where` still selects them), and to the unmuted total of those not muted.
   */
  private async adjustDirectTotals(
    manager: EntityManager,
    conversationId: string,
    where: string,
    params: unknown[],
    delta: number,
  ): Promise<void> {
    await manager.query(
      'UPDATE user_unread_totals SET direct_unread = direct_unread + ?, direct_unread_unmuted = direct_unread_unmuted + ? * ' +
        '(SELECT CASE WHEN m.muted = 0 THEN 1 ELSE 0 END FROM conversation_members m WHERE m.conversation_id = ? AND m.user_id = user_unread_totals.user_id) ' +
        `WHERE user_id IN (SELECT user_id FROM conversation_members WHERE conversation_id = ? AND ${where})`,
      [delta, delta, conversationId, conversationId, ...params],
    );
  }

  /** Adds to one user's one-to-one totals: everything, and what is not muted. */
  private async addToTotals(
    manager: EntityManager,
    userId: string,
    delta: number,
    unmutedDelta: number,
  ): Promise<void> {
    if (delta === 0 && unmutedDelta === 0) return;
    await manager.query(
      'UPDATE user_unread_totals SET direct_unread = direct_unread + ?, direct_unread_unmuted = direct_unread_unmuted + ? WHERE user_id = ?',
      [delta, unmutedDelta, userId],
    );
  }

  /**
   * A message at `seq` by `senderId` became a tombstone: it no longer counts as unread for
   * anyone who had it unread (for the sender it never did). A group's member rows are locked
   * before (lockMembers).
   */
  async recordTombstone(
    manager: EntityManager,
    conversation: Pick<ConversationEntity, 'id' | 'type'>,
    senderId: string,
    seq: string,
    now: number,
  ): Promise<void> {
    const range = `conversation_id = ? AND user_id <> ? AND read_seq < ? AND ${seqVisibleSql('', '?')}`;
    const params = [now, conversation.id, senderId, seq, seq, seq];
    if (conversation.type === 'group') {
      await manager.query(
        `UPDATE conversation_members${dialectOf(manager).forceIndex(BY_CONVERSATION)} SET uncounted = uncounted + 1, updated_at = ? WHERE ${range}`,
        params,
      );
    } else if (dialectOf(manager).updatesJoinedTables) {
      await manager.query(
        `UPDATE conversation_members m${dialectOf(manager).forceIndex(BY_CONVERSATION)} LEFT JOIN user_unread_totals t ON t.user_id = m.user_id ` +
          `SET m.unread_count = m.unread_count - 1, m.updated_at = ?, t.direct_unread = t.direct_unread - 1, t.direct_unread_unmuted = t.direct_unread_unmuted - ${UNMUTED_ONE} ` +
          `WHERE m.conversation_id = ? AND m.user_id <> ? AND m.read_seq < ? AND ${seqVisibleSql('m', '?')} AND m.unread_count > 0`,
        params,
      );
    } else {
      await this.adjustDirectTotals(
        manager,
        conversation.id,
        `user_id <> ? AND read_seq < ? AND ${seqVisibleSql('', '?')} AND unread_count > 0`,
        [senderId, seq, seq, seq],
        -1,
      );
      await manager.query(
        `UPDATE conversation_members SET unread_count = unread_count - 1, updated_at = ? WHERE ${range} AND unread_count > 0`,
        params,
      );
    }
  }

  /**
   * Raises the content version (strictly, even within one millisecond) and, for deletes, the
   * deletion revision, after a change of the message at `seq`; in a group, also those of the former
   * members whose window holds that message. Takes the conversation row's lock: a group's member
   * rows must be locked before (lockMembers), never after.
   */
  async bumpContentVersion(
    manager: EntityManager,
    target: Pick<ConversationEntity, 'id' | 'type'>,
    seq: string,
    now: number,
    deletion: boolean,
  ): Promise<ConversationEntity> {
    const conversationId = target.id;
    const set: Record<string, () => string> = {
      contentUpdatedAt: () => 'CASE WHEN content_updated_at >= :now THEN content_updated_at + 1 ELSE :now END',
    };
    if (deletion) set.deletionRevision = () => 'deletion_revision + 1';
    await manager
      .createQueryBuilder()
      .update(ConversationEntity)
      .set(set)
      .where('id = :id', { id: conversationId, now })
      .execute();
    const conversation = await manager.findOneByOrFail(ConversationEntity, { id: conversationId });
    if (target.type !== 'group') return conversation;
    // Former members whose window holds the message see the change too; the others see none.
    const revision = deletion ? ', visible_deletion_revision = ?' : '';
    await manager.query(
      `UPDATE conversation_members${dialectOf(manager).forceIndex(BY_CONVERSATION)} SET visible_updated_at = ?${revision} WHERE conversation_id = ? AND visible_to_seq IS NOT NULL AND ${seqVisibleSql('', '?')}`,
      [conversation.contentUpdatedAt, ...(deletion ? [conversation.deletionRevision] : []), conversationId, seq, seq],
    );
    return conversation;
  }

  /** One-to-one rows store the unread count; group rows store what does not count (member-state.ts). */
  async setRead(
    manager: EntityManager,
    member: Pick<ConversationMemberEntity, 'id' | 'isGroup' | 'userId' | 'unreadCount' | 'muted'>,
    readSeq: string,
    counts: { unread: number; uncounted: number },
    now: number,
  ): Promise<void> {
    // `member` was read under its lock (lockMember): its stored unread is what the totals hold.
    if (!member.isGroup)
      await this.addToTotals(
        manager,
        member.userId,
        counts.unread - member.unreadCount,
        member.muted ? 0 : counts.unread - member.unreadCount,
      );
    const column = member.isGroup ? 'uncounted' : 'unread_count';
    await manager.query(`UPDATE conversation_members SET read_seq = ?, ${column} = ?, updated_at = ? WHERE id = ?`, [
      readSeq,
      member.isGroup ? counts.uncounted : counts.unread,
      now,
      member.id,
    ]);
  }

  /**
   * A user's totals row, created with their first one-to-one conversation (sends only update
   * it). Read first without a lock: the row usually exists, and an insert that found it would
   * lock it for the rest of this transaction.
   */
  async ensureTotals(manager: EntityManager, userId: string): Promise<void> {
    const existing = (await manager.query('SELECT user_id FROM user_unread_totals WHERE user_id = ?', [
      userId,
    ])) as Row[];
    if (existing.length) return;
    await manager.query(
      `INSERT INTO user_unread_totals (user_id, direct_unread, direct_unread_unmuted) VALUES (?, 0, 0) ${dialectOf(manager).onConflictDoNothing('user_id')}`,
      [userId],
    );
  }

  /**
   * Moves a one-to-one row's unread out of (or back into) its user's unmuted total when its mute
   * changes. `member` was read under its lock (ConversationMembersRepository.lockMember), which
   * keeps a concurrent send from changing that unread in between.
   */
  async applyMute(
    manager: EntityManager,
    member: Pick<ConversationMemberEntity, 'isGroup' | 'userId' | 'unreadCount' | 'muted'>,
    muted: boolean,
  ): Promise<void> {
    if (member.isGroup || member.muted === muted) return;
    await this.addToTotals(manager, member.userId, 0, muted ? -member.unreadCount : member.unreadCount);
  }
}
