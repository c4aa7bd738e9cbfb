import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { dialectOf } from '../database/sql-dialect';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import {
  BY_CONVERSATION,
  MEMBER_COLUMNS_OF_M,
  MEMBER_FROM,
  MEMBER_WITH_CONVERSATION,
  Row,
  toMember,
  toMemberWithProgress,
} from './conversation-rows';
import { MessageCountersRepository } from './message-counters.repository';

/** Users per statement when several memberships close at once (well under any placeholder limit). */
const ID_BATCH = 500;

/**
 * A conversation's member rows and their locks, taken in the order stated at lockMembers.
 * Membership changes (join, leave, rejoin) go through the methods here so that visibility, read
 * position and unread stay consistent; the counters that sends and reads move are
 * MessageCountersRepository's.
 */
@Injectable()
export class ConversationMembersRepository {
  constructor(
    @InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>,
    private readonly counters: MessageCountersRepository,
  ) {}

  async findMember(
    conversationId: string,
    userId: string,
    manager?: EntityManager,
  ): Promise<ConversationMemberEntity | null> {
    const rows = (await (manager ?? this.members.manager).query(
      `SELECT ${MEMBER_WITH_CONVERSATION} ${MEMBER_FROM} WHERE m.conversation_id = ? AND m.user_id = ?`,
      [conversationId, userId],
    )) as Row[];
    return rows[0] ? toMemberWithProgress(rows[0]) : null;
  }

  /** The other members of the user's one-to-one conversations (erasure tells them of the anonymised profile). */
  async directPeerIds(userId: string): Promise<string[]> {
    const rows = (await this.members.manager.query(
      'SELECT peer_id FROM conversation_members WHERE user_id = ? AND peer_id IS NOT NULL',
      [userId],
    )) as Array<{ peer_id: string | number }>;
    return rows.map((row) => String(row.peer_id));
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
  async ensureDirectMembers(
    manager: EntityManager,
    conversation: ConversationEntity,
    userA: string,
    userB: string,
    now: number,
  ): Promise<void> {
    for (const [userId, peerId] of [
      [userA, userB],
      [userB, userA],
    ]) {
      if (await this.findMember(conversation.id, userId, manager)) continue;
      try {
        await this.addMember(manager, conversation, userId, now, '0', peerId);
      } catch (error) {
        // A concurrent first call inserted the same row after this transaction's snapshot was
        // taken (MySQL): it is the row this one would have written.
        if (!isUniqueViolation(error, 'user')) throw error;
      }
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
  async openMembers(
    manager: EntityManager,
    conversationId: string,
    userIds: readonly string[],
    now: number,
  ): Promise<void> {
    if (userIds.length === 0) return;
    await this.lockMembers(manager, conversationId);
    await this.openLocked(manager, await this.lockConversation(manager, conversationId), userIds, now);
  }

  /**
   * The first members of a group conversation inserted by this same transaction. Nobody else
   * can see its rows yet, so nothing is locked: a locking read of its (empty) range would lock
   * the gap where every other new conversation's members are inserted too.
   */
  async openFirstMembers(
    manager: EntityManager,
    conversation: ConversationEntity,
    userIds: readonly string[],
    now: number,
  ): Promise<void> {
    await this.openLocked(manager, conversation, userIds, now);
  }

  private async openLocked(
    manager: EntityManager,
    conversation: ConversationEntity,
    userIds: readonly string[],
    now: number,
  ): Promise<void> {
    // Reopening resets unread without user_unread_totals: one-to-one rows are never closed.
    if (conversation.type !== 'group')
      throw new Error(`openMember on ${conversation.type} conversation ${conversation.id}`);
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
  async closeMembers(
    manager: EntityManager,
    conversationId: string,
    userIds: readonly string[],
    now: number,
  ): Promise<void> {
    if (userIds.length === 0) return;
    await this.lockMembers(manager, conversationId);
    const conversation = await this.lockConversation(manager, conversationId);
    // Every message event of the conversation is written under the lock held here, so the
    // highest one now is the last the member receives (see EventStream.listForUser). A
    // locking read: this transaction's MySQL snapshot may predate events committed before it
    // got the lock, and the member's visible_to_seq (read under the lock) counts their messages.
    const [last] = (await manager.query(
      `SELECT MAX(id) AS position FROM outbox_events WHERE conversation_id = ?${dialectOf(manager).forShare}`,
      [conversationId],
    )) as Array<{
      position: string | number | null;
    }>;
    for (let i = 0; i < userIds.length; i += ID_BATCH) {
      const batch = userIds.slice(i, i + ID_BATCH);
      await manager.query(
        `UPDATE conversation_members${dialectOf(manager).forceIndex(BY_CONVERSATION)} SET visible_to_seq = ?, visible_to_position = ?, visible_updated_at = ?, visible_deletion_revision = ?, updated_at = ?, ` +
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
    const dialect = dialectOf(manager);
    if (!dialect.locksRows) return;
    await manager.query(
      `SELECT id FROM conversation_members${dialect.forceIndex(BY_CONVERSATION)} WHERE conversation_id = ?${dialect.forUpdate}`,
      [conversationId],
    );
  }

  /**
   * Reads the conversation under the same row lock a send takes, so a membership change waits
   * for in-flight sends and reads the last_seq they committed: the member's visible range and
   * unread then agree about every message. Callers lock member rows before, never after.
   */
  private async lockConversation(manager: EntityManager, conversationId: string): Promise<ConversationEntity> {
    const query = manager
      .createQueryBuilder(ConversationEntity, 'c')
      .where('c.id = :conversationId', { conversationId });
    const conversation = await dialectOf(manager).lockForWrite(query).getOne();
    if (!conversation) throw new Error(`conversation ${conversationId} vanished`);
    return conversation;
  }

  /**
   * Locks the member row for a read update. On MySQL the lock is taken before the unread
   * recount, so the recount sees every send that committed before it and a later send still
   * adds its one (see MessageCountersRepository.recordSend). SQLite runs transactions one at a time.
   */
  async lockMember(manager: EntityManager, memberId: string): Promise<ConversationMemberEntity> {
    // A one-to-one row's totals row is locked with it, before the caller's plain reads open the
    // transaction's snapshot: updating it later could otherwise meet a send committed in between
    // (error 1020 under MariaDB's snapshot isolation). Group rows join no totals row (NULL key).
    // t.user_id is selected so the optimizer cannot eliminate the unused outer join (and its lock).
    const rows = (await manager.query(
      `SELECT ${MEMBER_COLUMNS_OF_M}, t.user_id AS t_user_id FROM conversation_members m ` +
        `LEFT JOIN user_unread_totals t ON t.user_id = CASE WHEN m.is_group = 0 THEN m.user_id END WHERE m.id = ?${dialectOf(manager).forUpdate}`,
      [memberId],
    )) as Row[];
    if (!rows[0]) throw new Error('conversation member vanished');
    // Stored values: the caller reads the conversation next and derives or recounts itself.
    return toMember(rows[0], null);
  }

  async updateSettings(
    manager: EntityManager,
    memberId: string,
    changes: Partial<Pick<ConversationMemberEntity, 'pinned' | 'muted' | 'hidden' | 'hiddenSeq'>>,
    now: number,
  ): Promise<void> {
    if (changes.muted !== undefined)
      await this.counters.applyMute(manager, await this.lockMember(manager, memberId), changes.muted);
    await manager.update(ConversationMemberEntity, { id: memberId }, { ...changes, updatedAt: now });
  }

  /** `peerId`: the other member of a one-to-one conversation, null for a group. */
  private async addMember(
    manager: EntityManager,
    conversation: ConversationEntity,
    userId: string,
    now: number,
    visibleFromSeq: string,
    peerId: string | null,
  ): Promise<void> {
    if ((conversation.type === 'direct') !== (peerId !== null))
      throw new Error(`member of ${conversation.type} conversation ${conversation.id} with peer ${peerId}`);
    if (conversation.type === 'direct') await this.counters.ensureTotals(manager, userId);
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

  /** How many conversations the user is a current member of (the admin console's user detail). */
  countCurrentForUser(userId: string): Promise<number> {
    return this.members
      .createQueryBuilder('m')
      .where('m.user_id = :userId AND m.visible_to_seq IS NULL', { userId })
      .getCount();
  }

  /** Which of `userIds` muted the conversation (notifications: offline push skips them). */
  async mutedAmong(conversationId: string, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = (await this.members.query(
      `SELECT user_id FROM conversation_members WHERE conversation_id = ? AND muted = ? AND user_id IN (${userIds.map(() => '?').join(', ')})`,
      [conversationId, 1, ...userIds],
    )) as Array<{ user_id: string | number }>;
    return new Set(rows.map((row) => String(row.user_id)));
  }
}
