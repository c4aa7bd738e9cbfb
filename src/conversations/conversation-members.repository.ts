import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted } from '../database/execute-counted';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { MEMBER_COLUMNS_OF_M, MEMBER_FROM, MEMBER_WITH_CONVERSATION, Row, byConversation, isMysql, toMember, toMemberWithProgress } from './conversation-rows';

/** Users per statement when several memberships close at once (well under any placeholder limit). */
const ID_BATCH = 500;
/** 1 for a member row `m` that is not muted, else 0 (its share of the unmuted total). */
const UNMUTED_ONE = 'CASE WHEN m.muted = 0 THEN 1 ELSE 0 END';

/**
 * A conversation's member rows and the one-to-one unread totals that move with them, written in
 * the lock order stated at lockMembers. Membership changes (join, leave, rejoin) go through the
 * methods here so that visibility, read position and unread stay consistent.
 */
@Injectable()
export class ConversationMembersRepository {
  constructor(@InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>) {}

  async findMember(conversationId: string, userId: string, manager?: EntityManager): Promise<ConversationMemberEntity | null> {
    const rows = (await (manager ?? this.members.manager).query(
      `SELECT ${MEMBER_WITH_CONVERSATION} ${MEMBER_FROM} WHERE m.conversation_id = ? AND m.user_id = ?`,
      [conversationId, userId],
    )) as Row[];
    return rows[0] ? toMemberWithProgress(rows[0]) : null;
  }

  /** Members who currently receive the conversation's messages. */
  async findCurrentMembers(conversationId: string, manager?: EntityManager): Promise<ConversationMemberEntity[]> {
    const rows = (await (manager ?? this.members.manager).query(
      `SELECT ${MEMBER_WITH_CONVERSATION} ${MEMBER_FROM} WHERE m.conversation_id = ? AND m.visible_to_seq IS NULL`,
      [conversationId],
    )) as Row[];
    return rows.map(toMemberWithProgress);
  }

  /** The missing ones of a one-to-one conversation's two member rows (ConversationsRepository.ensureDirect). */
  async ensureDirectMembers(manager: EntityManager, conversation: ConversationEntity, userA: string, userB: string, now: number): Promise<void> {
    for (const [userId, peerId] of [
      [userA, userB],
      [userB, userA],
    ]) {
      if (!(await this.findMember(conversation.id, userId, manager))) await this.addMember(manager, conversation, userId, now, '0', peerId);
    }
  }

  /**
   * Opens membership: a new member sees messages after the current last sequence; a former
   * member rejoins the same way (history of the time away is not shown).
   */
  openMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    return this.openMembers(manager, conversationId, [userId], now);
  }

  /** openMember for several users, under one lock of the member rows and the conversation (see lockMembers). */
  async openMembers(manager: EntityManager, conversationId: string, userIds: readonly string[], now: number): Promise<void> {
    if (userIds.length === 0) return;
    await this.lockMembers(manager, conversationId);
    await this.openLocked(manager, await this.lockConversation(manager, conversationId), userIds, now);
  }

  /**
   * The first members of a group conversation inserted by this same transaction. Nobody else
   * can see its rows yet, so nothing is locked: a locking read of its (empty) range would lock
   * the gap where every other new conversation's members are inserted too.
   */
  async openFirstMembers(manager: EntityManager, conversation: ConversationEntity, userIds: readonly string[], now: number): Promise<void> {
    await this.openLocked(manager, conversation, userIds, now);
  }

  private async openLocked(manager: EntityManager, conversation: ConversationEntity, userIds: readonly string[], now: number): Promise<void> {
    // Reopening resets unread without user_unread_totals: one-to-one rows are never closed.
    if (conversation.type !== 'group') throw new Error(`openMember on ${conversation.type} conversation ${conversation.id}`);
    for (const userId of userIds) {
      const existing = await this.findMember(conversation.id, userId, manager);
      if (!existing) {
        await this.addMember(manager, conversation, userId, now, conversation.lastSeq, null);
        continue;
      }
      if (existing.visibleToSeq === null) continue;
      await manager.update(
        ConversationMemberEntity,
        { id: existing.id },
        {
          visibleFromSeq: conversation.lastSeq,
          visibleToSeq: null,
          visibleToPosition: null,
          visibleUpdatedAt: null,
          visibleDeletionRevision: null,
          readSeq: conversation.lastSeq,
          unreadCount: 0,
          uncounted: 0,
          hidden: false,
          hiddenSeq: null,
          lastActivityAt: now,
          updatedAt: now,
        },
      );
    }
  }

  /**
   * Closes membership: the member keeps read access to what was sent before, and nothing after.
   * A group row's last activity, derived until now, is frozen at the conversation's.
   */
  closeMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    return this.closeMembers(manager, conversationId, [userId], now);
  }

  /** closeMember for several users, under one lock of the member rows and the conversation (see lockMembers). */
  async closeMembers(manager: EntityManager, conversationId: string, userIds: readonly string[], now: number): Promise<void> {
    if (userIds.length === 0) return;
    await this.lockMembers(manager, conversationId);
    const conversation = await this.lockConversation(manager, conversationId);
    // Every message event of the conversation is written under the lock held here, so the
    // highest one now is the last the member receives (see OutboxRepository.listForUser). A
    // locking read: this transaction's MySQL snapshot may predate events committed before it
    // got the lock, and the member's visible_to_seq (read under the lock) counts their messages.
    const share = isMysql(manager) ? ' LOCK IN SHARE MODE' : '';
    const [last] = (await manager.query(`SELECT MAX(id) AS position FROM outbox_events WHERE conversation_id = ?${share}`, [conversationId])) as Array<{
      position: string | number | null;
    }>;
    for (let i = 0; i < userIds.length; i += ID_BATCH) {
      const batch = userIds.slice(i, i + ID_BATCH);
      await manager.query(
        `UPDATE conversation_members${byConversation(manager)} SET visible_to_seq = ?, visible_to_position = ?, visible_updated_at = ?, visible_deletion_revision = ?, updated_at = ?, ` +
          'last_activity_at = CASE WHEN is_group = 1 AND last_activity_at < ? THEN ? ELSE last_activity_at END ' +
          `WHERE conversation_id = ? AND user_id IN (${batch.map(() => '?').join(', ')}) AND visible_to_seq IS NULL`,
        [
          conversation.lastSeq,
          last?.position ?? 0,
          conversation.contentUpdatedAt,
          conversation.deletionRevision,
          now,
          conversation.lastMessageAt,
          conversation.lastMessageAt,
          conversationId,
          ...batch,
        ],
      );
    }
  }

  /**
   * Locks every member row of a group conversation (MySQL), first in a transaction that changes
   * more than one of them: recall, delete and membership changes. With the order every writer
   * follows, no two transactions wait for each other:
   *
   *   group row and its membership rows (group changes, GroupAccess.lockForMember) → message
   *   row (recall, delete) → conversation member rows: these, or a sender's or reader's own row,
   *   or both rows of a one-to-one conversation, with the user_unread_totals rows they join →
   *   conversation row (sequence, content version) → rows only inserted (messages, outbox,
   *   media links) and media link deletes.
   *
   * A send holds its member row while it waits for the conversation; nobody holding the
   * conversation row waits for a member row. Rows are locked through the (conversation, user)
   * key, index entry before row, as a send's UPDATE and the range UPDATEs after this lock them:
   * locked by primary key instead, a send holding the entry and waiting for the row would block
   * a range UPDATE that holds the row and needs the entry. The range's next-key locks also keep
   * new members out until commit, so a later statement over the range meets no row it has not
   * locked. (A reader locking their own row by primary key waits for nothing after it.)
   */
  async lockMembers(manager: EntityManager, conversationId: string): Promise<void> {
    if (!isMysql(manager)) return;
    await manager.query(`SELECT id FROM conversation_members${byConversation(manager)} WHERE conversation_id = ? FOR UPDATE`, [conversationId]);
  }

  /**
   * Reads the conversation under the same row lock a send takes, so a membership change waits
   * for in-flight sends and reads the last_seq they committed: the member's visible range and
   * unread then agree about every message. Callers lock member rows before, never after.
   */
  private async lockConversation(manager: EntityManager, conversationId: string): Promise<ConversationEntity> {
    const query = manager.createQueryBuilder(ConversationEntity, 'c').where('c.id = :conversationId', { conversationId });
    if (isMysql(manager)) query.setLock('pessimistic_write');
    const conversation = await query.getOne();
    if (!conversation) throw new Error(`conversation ${conversationId} vanished`);
    return conversation;
  }

  /**
   * After a send, inside its transaction. One-to-one: both rows move up the home list and
   * reappear if hidden, and the peer gains one unread. Group: only the sender's row changes
   * (its own message is not unread); everyone else's state follows from the conversation.
   * Returns false when the sender is no longer a current member (a removal that committed
   * after the send's checks): the send must then be refused.
   */
  async recordSend(manager: EntityManager, conversation: Pick<ConversationEntity, 'id' | 'type'>, senderId: string, now: number): Promise<boolean> {
    if (conversation.type === 'group') {
      const changed = await executeCounted(
        manager,
        'UPDATE conversation_members SET uncounted = uncounted + 1, updated_at = ? WHERE conversation_id = ? AND user_id = ? AND visible_to_seq IS NULL',
        [now, conversation.id, senderId],
      );
      return changed === 1;
    }
    if (isMysql(manager)) {
      // One statement: both member rows and the recipient's totals. The sender's row joins a NULL
      // key, so its totals row is not even looked up (a lookup would lock it until commit).
      await manager.query(
        `UPDATE conversation_members m${byConversation(manager)} LEFT JOIN user_unread_totals t ON t.user_id = CASE WHEN m.user_id <> ? THEN m.user_id END ` +
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
   * SQLite's half of keeping user_unread_totals (MySQL folds it into the member update): adds
   * `delta` to the totals of the members of `conversationId` matching `where` (run before the
   * member rows change, so `where` still selects them), and to the unmuted total of those not muted.
   */
  private async adjustDirectTotals(manager: EntityManager, conversationId: string, where: string, params: unknown[], delta: number): Promise<void> {
    await manager.query(
      'UPDATE user_unread_totals SET direct_unread = direct_unread + ?, direct_unread_unmuted = direct_unread_unmuted + ? * ' +
        '(SELECT CASE WHEN m.muted = 0 THEN 1 ELSE 0 END FROM conversation_members m WHERE m.conversation_id = ? AND m.user_id = user_unread_totals.user_id) ' +
        `WHERE user_id IN (SELECT user_id FROM conversation_members WHERE conversation_id = ? AND ${where})`,
      [delta, delta, conversationId, conversationId, ...params],
    );
  }

  /** Adds to one user's one-to-one totals: everything, and what is not muted. */
  private async addToTotals(manager: EntityManager, userId: string, delta: number, unmutedDelta: number): Promise<void> {
    if (delta === 0 && unmutedDelta === 0) return;
    await manager.query('UPDATE user_unread_totals SET direct_unread = direct_unread + ?, direct_unread_unmuted = direct_unread_unmuted + ? WHERE user_id = ?', [delta, unmutedDelta, userId]);
  }

  /**
   * A message at `seq` by `senderId` became a tombstone: it no longer counts as unread for
   * anyone who had it unread (for the sender it never did). A group's member rows are locked
   * before (lockMembers).
   */
  async recordTombstone(manager: EntityManager, conversation: Pick<ConversationEntity, 'id' | 'type'>, senderId: string, seq: string, now: number): Promise<void> {
    const range = 'conversation_id = ? AND user_id <> ? AND read_seq < ? AND visible_from_seq < ? AND (visible_to_seq IS NULL OR visible_to_seq >= ?)';
    const params = [now, conversation.id, senderId, seq, seq, seq];
    if (conversation.type === 'group') {
      await manager.query(`UPDATE conversation_members${byConversation(manager)} SET uncounted = uncounted + 1, updated_at = ? WHERE ${range}`, params);
    } else if (isMysql(manager)) {
      await manager.query(
        `UPDATE conversation_members m${byConversation(manager)} LEFT JOIN user_unread_totals t ON t.user_id = m.user_id ` +
          `SET m.unread_count = m.unread_count - 1, m.updated_at = ?, t.direct_unread = t.direct_unread - 1, t.direct_unread_unmuted = t.direct_unread_unmuted - ${UNMUTED_ONE} ` +
          `WHERE ${range.replace(/\b(conversation_id|user_id|read_seq|visible_from_seq|visible_to_seq)\b/g, 'm.$1')} AND m.unread_count > 0`,
        params,
      );
    } else {
      await this.adjustDirectTotals(manager, conversation.id, 'user_id <> ? AND read_seq < ? AND visible_from_seq < ? AND (visible_to_seq IS NULL OR visible_to_seq >= ?) AND unread_count > 0', [senderId, seq, seq, seq], -1);
      await manager.query(`UPDATE conversation_members SET unread_count = unread_count - 1, updated_at = ? WHERE ${range} AND unread_count > 0`, params);
    }
  }

  /**
   * Raises the content version (strictly, even within one millisecond) and, for deletes, the
   * deletion revision, after a change of the message at `seq`; in a group, also those of the former
   * members whose window holds that message. Takes the conversation row's lock: a group's member
   * rows must be locked before (lockMembers), never after.
   */
  async bumpContentVersion(manager: EntityManager, target: Pick<ConversationEntity, 'id' | 'type'>, seq: string, now: number, deletion: boolean): Promise<ConversationEntity> {
    const conversationId = target.id;
    const set: Record<string, () => string> = { contentUpdatedAt: () => 'CASE WHEN content_updated_at >= :now THEN content_updated_at + 1 ELSE :now END' };
    if (deletion) set.deletionRevision = () => 'deletion_revision + 1';
    await manager.createQueryBuilder().update(ConversationEntity).set(set).where('id = :id', { id: conversationId, now }).execute();
    const conversation = await manager.findOneByOrFail(ConversationEntity, { id: conversationId });
    if (target.type !== 'group') return conversation;
    // Former members whose window holds the message see the change too; the others see none.
    const revision = deletion ? ', visible_deletion_revision = ?' : '';
    await manager.query(
      `UPDATE conversation_members${byConversation(manager)} SET visible_updated_at = ?${revision} WHERE conversation_id = ? AND visible_to_seq IS NOT NULL AND visible_from_seq < ? AND visible_to_seq >= ?`,
      [conversation.contentUpdatedAt, ...(deletion ? [conversation.deletionRevision] : []), conversationId, seq, seq],
    );
    return conversation;
  }

  /**
   * Locks the member row for a read update. On MySQL the lock is taken before the unread
   * recount, so the recount sees every send that committed before it and a later send still
   * adds its one (see recordSend). SQLite runs transactions one at a time.
   */
  async lockMember(manager: EntityManager, memberId: string): Promise<ConversationMemberEntity> {
    const lock = isMysql(manager) ? ' FOR UPDATE' : '';
    // A one-to-one row's totals row is locked with it, before the caller's plain reads open the
    // transaction's snapshot: updating it later could otherwise meet a send committed in between
    // (error 1020 under MariaDB's snapshot isolation). Group rows join no totals row (NULL key).
    // t.user_id is selected so the optimizer cannot eliminate the unused outer join (and its lock).
    const rows = (await manager.query(
      `SELECT ${MEMBER_COLUMNS_OF_M}, t.user_id AS t_user_id FROM conversation_members m ` +
        `LEFT JOIN user_unread_totals t ON t.user_id = CASE WHEN m.is_group = 0 THEN m.user_id END WHERE m.id = ?${lock}`,
      [memberId],
    )) as Row[];
    if (!rows[0]) throw new Error('conversation member vanished');
    // Stored values: the caller reads the conversation next and derives or recounts itself.
    return toMember(rows[0], null);
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
    if (!member.isGroup) await this.addToTotals(manager, member.userId, counts.unread - member.unreadCount, member.muted ? 0 : counts.unread - member.unreadCount);
    const column = member.isGroup ? 'uncounted' : 'unread_count';
    await manager.query(`UPDATE conversation_members SET read_seq = ?, ${column} = ?, updated_at = ? WHERE id = ?`, [
      readSeq,
      member.isGroup ? counts.uncounted : counts.unread,
      now,
      member.id,
    ]);
  }

  async updateSettings(manager: EntityManager, memberId: string, changes: Partial<Pick<ConversationMemberEntity, 'pinned' | 'muted' | 'hidden' | 'hiddenSeq'>>, now: number): Promise<void> {
    if (changes.muted !== undefined) {
      // Muting moves a one-to-one row's unread out of (or back into) the unmuted total; the
      // row's lock keeps a concurrent send from changing that unread in between.
      const member = await this.lockMember(manager, memberId);
      if (!member.isGroup && member.muted !== changes.muted) await this.addToTotals(manager, member.userId, 0, changes.muted ? -member.unreadCount : member.unreadCount);
    }
    await manager.update(ConversationMemberEntity, { id: memberId }, { ...changes, updatedAt: now });
  }

  /** `peerId`: the other member of a one-to-one conversation, null for a group. */
  private async addMember(manager: EntityManager, conversation: ConversationEntity, userId: string, now: number, visibleFromSeq: string, peerId: string | null): Promise<void> {
    if ((conversation.type === 'direct') !== (peerId !== null)) throw new Error(`member of ${conversation.type} conversation ${conversation.id} with peer ${peerId}`);
    if (conversation.type === 'direct') await this.ensureTotals(manager, userId);
    await manager.insert(ConversationMemberEntity, {
      conversationId: conversation.id,
      userId,
      peerId,
      isGroup: conversation.type === 'group',
      readSeq: visibleFromSeq,
      visibleFromSeq,
      visibleToSeq: null,
      uncounted: 0,
      hiddenSeq: null,
      unreadCount: 0,
      lastActivityAt: now,
      pinned: false,
      muted: false,
      hidden: false,
      createdAt: now,
      updatedAt: now,
    });
  }

  /**
   * A user's totals row, created with their first one-to-one conversation (sends only update
   * it). Read first without a lock: the row usually exists, and an insert that found it would
   * lock it for the rest of this transaction.
   */
  private async ensureTotals(manager: EntityManager, userId: string): Promise<void> {
    const existing = (await manager.query('SELECT user_id FROM user_unread_totals WHERE user_id = ?', [userId])) as Row[];
    if (existing.length) return;
    const ignore = isMysql(manager) ? 'ON DUPLICATE KEY UPDATE user_id = user_id' : 'ON CONFLICT (user_id) DO NOTHING';
    await manager.query(`INSERT INTO user_unread_totals (user_id, direct_unread, direct_unread_unmuted) VALUES (?, 0, 0) ${ignore}`, [userId]);
  }
}
