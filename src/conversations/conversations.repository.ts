import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { executeCounted } from '../database/execute-counted';
import { queryPrepared } from '../database/prepared-query';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { GroupEntity } from '../groups/group.entity';
import { GROUP_COLUMNS, groupFromRow } from '../groups/groups.repository';
import { USER_COLUMNS, UserRow, userFromRow } from '../users/users.repository';
import { UserEntity } from '../users/user.entity';
import { directKey } from './conversation-id';
import { ConversationProgress, GROUP_SQL, effectiveMemberState } from './member-state';
import { HOME_COLUMNS, HOME_JOINS, UNREAD_TOTALS_SQL, HomeEntry, HomePosition, HomeViewer, UnreadTotals, homeEntryFromRow, homeKeysSql, homeOrder } from './home-list';

const CONVERSATION_COLUMNS = 'id, type, direct_key, group_id, last_seq, content_updated_at, last_message_at, deletion_revision, created_at';
const MEMBER_COLUMNS =
  'id, conversation_id, user_id, peer_id, is_group, read_seq, visible_from_seq, visible_to_seq, visible_to_position, visible_updated_at, visible_deletion_revision, uncounted, unread_count, last_activity_at, pinned, muted, hidden, hidden_seq, created_at, updated_at';
type Row = Record<string, string | number | null>;
const str = (value: string | number | null): string => String(value);
const strOrNull = (value: string | number | null): string | null => (value === null ? null : String(value));

/** Rows of the read paths are mapped by hand: entity hydration was a large share of their CPU. */
function toConversation(row: Row, p = ''): ConversationEntity {
  return Object.assign(new ConversationEntity(), {
    id: str(row[`${p}id`]),
    type: row[`${p}type`] as ConversationEntity['type'],
    directKey: strOrNull(row[`${p}direct_key`]),
    groupId: strOrNull(row[`${p}group_id`]),
    lastSeq: str(row[`${p}last_seq`]),
    contentUpdatedAt: Number(row[`${p}content_updated_at`]),
    lastMessageAt: Number(row[`${p}last_message_at`]),
    deletionRevision: str(row[`${p}deletion_revision`]),
    createdAt: Number(row[`${p}created_at`]),
  });
}

/**
 * A member row. With the conversation's progress, a group row gets its derived unread, last
 * activity and hidden (member-state.ts); without it (`null`), the stored values stay, which
 * only the read path, recomputing under the row lock, may use.
 */
function toMember(row: Row, progress: ConversationProgress | null, p = ''): ConversationMemberEntity {
  const member = Object.assign(new ConversationMemberEntity(), {
    id: str(row[`${p}id`]),
    conversationId: str(row[`${p}conversation_id`]),
    userId: str(row[`${p}user_id`]),
    peerId: strOrNull(row[`${p}peer_id`]),
    isGroup: Boolean(Number(row[`${p}is_group`])),
    readSeq: str(row[`${p}read_seq`]),
    visibleFromSeq: str(row[`${p}visible_from_seq`]),
    visibleToSeq: strOrNull(row[`${p}visible_to_seq`]),
    visibleToPosition: strOrNull(row[`${p}visible_to_position`]),
    visibleUpdatedAt: row[`${p}visible_updated_at`] === null ? null : Number(row[`${p}visible_updated_at`]),
    visibleDeletionRevision: strOrNull(row[`${p}visible_deletion_revision`]),
    uncounted: Number(row[`${p}uncounted`]),
    unreadCount: Number(row[`${p}unread_count`]),
    lastActivityAt: Number(row[`${p}last_activity_at`]),
    pinned: Boolean(Number(row[`${p}pinned`])),
    muted: Boolean(Number(row[`${p}muted`])),
    hidden: Boolean(Number(row[`${p}hidden`])),
    hiddenSeq: strOrNull(row[`${p}hidden_seq`]),
    createdAt: Number(row[`${p}created_at`]),
    updatedAt: Number(row[`${p}updated_at`]),
  });
  return progress ? Object.assign(member, effectiveMemberState(member, progress)) : member;
}

const aliased = (alias: string, columns: string): string =>
  columns
    .split(', ')
    .map((column) => `${alias}.${column} AS ${alias}_${column}`)
    .join(', ');

const isMysql = (manager: EntityManager): boolean => manager.connection.options.type === 'mysql';
/**
 * MySQL: keeps a statement on one conversation's member rows on the (conversation, user) key.
 * On a small table the optimizer prefers a full scan, and a scanning UPDATE locks every row of
 * every conversation it passes until commit, which other conversations' writers then queue on.
 */
const byConversation = (manager: EntityManager): string => (isMysql(manager) ? ' FORCE INDEX (UQ_conversation_members_conv_user)' : '');
/** Users per statement when several memberships close at once (well under any placeholder limit). */
const ID_BATCH = 500;
/** 1 for a member row `m` that is not muted, else 0 (its share of the unmuted total). */
const UNMUTED_ONE = 'CASE WHEN m.muted = 0 THEN 1 ELSE 0 END';

const totalsOf = (row: Row | undefined): UnreadTotals => ({ total: Number(row?.total ?? 0), unmuted: Number(row?.unmuted ?? 0) });

/** MEMBER_COLUMNS of a member row aliased `m`, unprefixed in the result. */
const MEMBER_COLUMNS_OF_M = MEMBER_COLUMNS.split(', ')
  .map((column) => `m.${column}`)
  .join(', ');
/** A member row (unprefixed) with its conversation (c_ prefixed), read from MEMBER_FROM. */
const MEMBER_WITH_CONVERSATION = `${MEMBER_COLUMNS_OF_M}, ${aliased('c', CONVERSATION_COLUMNS)}`;
const MEMBER_FROM = 'FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id';

/** A MEMBER_WITH_CONVERSATION row as the member sees it (group state derived). */
function toMemberWithProgress(row: Row): ConversationMemberEntity {
  return toMember(row, toConversation(row, 'c_'));
}

/** A conversation as resolved for one viewer: what exists of peer/group, conversation and membership. */
export interface Resolved<T> {
  target: T | null;
  conversation: ConversationEntity | null;
  member: ConversationMemberEntity | null;
}

/** Friendship and blocks between a viewer and a peer. */
export interface Relationship {
  friends: boolean;
  blocked: boolean;
}

/** The viewer's row in a group's membership (any status), as the send and recall checks need it. */
export interface GroupRoleRow {
  role: string;
  status: string;
  mutedUntil: number;
}

/**
 * Conversations and their members. Membership changes (join, leave, rejoin) go through the
 * methods here so that visibility, read position and unread stay consistent.
 */
@Injectable()
export class ConversationsRepository {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    @InjectRepository(ConversationMemberEntity) private readonly members: Repository<ConversationMemberEntity>,
  ) {}

  findById(id: string, manager?: EntityManager): Promise<ConversationEntity | null> {
    return (manager ? manager.getRepository(ConversationEntity) : this.conversations).findOneBy({ id });
  }

  /**
   * Resolves a one-to-one conversation for a viewer in one round trip: the peer by external
   * ID, the conversation by the pair's key (built in SQL from both IDs, lower first) and the
   * viewer's membership. Every SDK call on a conversation starts here; it reads the users
   * table, which the users module owns, for that reason only.
   */
  async resolveDirect(viewerId: string, peerExternalId: string, withRelationship = false): Promise<Resolved<UserEntity> & { relationship: Relationship | null }> {
    const mysql = isMysql(this.conversations.manager);
    const key = mysql
      ? "CASE WHEN p.id < ? THEN CONCAT(p.id, ':', ?) ELSE CONCAT(?, ':', p.id) END"
      : "CASE WHEN p.id < CAST(? AS INTEGER) THEN p.id || ':' || ? ELSE ? || ':' || p.id END";
    // A send also needs friendship and blocks between the two (the friends module's tables).
    const relationship = withRelationship
      ? ', (SELECT COUNT(*) FROM friendships f WHERE f.user_id = ? AND f.friend_id = p.id) AS r_friends, ' +
        '(SELECT COUNT(*) FROM blocks b WHERE (b.user_id = ? AND b.blocked_user_id = p.id) OR (b.user_id = p.id AND b.blocked_user_id = ?)) AS r_blocked'
      : '';
    const rows = (await this.conversations.query(
      `SELECT ${aliased('p', USER_COLUMNS)}, ${aliased('c', CONVERSATION_COLUMNS)}, ${aliased('m', MEMBER_COLUMNS)}${relationship} FROM users p ` +
        `LEFT JOIN conversations c ON c.direct_key = ${key} ` +
        'LEFT JOIN conversation_members m ON m.conversation_id = c.id AND m.user_id = ? WHERE p.external_id = ?',
      [...(withRelationship ? [viewerId, viewerId, viewerId] : []), viewerId, viewerId, viewerId, viewerId, peerExternalId],
    )) as Row[];
    const row = rows[0];
    if (!row) return { target: null, conversation: null, member: null, relationship: null };
    return {
      relationship: withRelationship ? { friends: Number(row.r_friends) > 0, blocked: Number(row.r_blocked) > 0 } : null,
      target: userFromRow(row as unknown as UserRow, 'p_'),
      conversation: row.c_id === null ? null : toConversation(row, 'c_'),
      member: row.m_id === null ? null : toMember(row, toConversation(row, 'c_'), 'm_'),
    };
  }

  /**
   * Resolves a group conversation for a viewer in one round trip. It reads the groups module's
   * tables (the group, and the viewer's role and mute in it) for the same reason.
   */
  async resolveGroup(viewerId: string, publicGroupId: string): Promise<Resolved<GroupEntity> & { role: GroupRoleRow | null }> {
    const rows = (await this.conversations.query(
      `SELECT ${aliased('g', GROUP_COLUMNS)}, ${aliased('c', CONVERSATION_COLUMNS)}, ${aliased('m', MEMBER_COLUMNS)}, ` +
        'gm.role AS gm_role, gm.status AS gm_status, gm.muted_until AS gm_muted_until FROM `groups` g ' +
        'LEFT JOIN conversations c ON c.group_id = g.id LEFT JOIN conversation_members m ON m.conversation_id = c.id AND m.user_id = ? ' +
        'LEFT JOIN group_members gm ON gm.group_id = g.id AND gm.user_id = ? WHERE g.public_id = ?',
      [viewerId, viewerId, publicGroupId],
    )) as Row[];
    const row = rows[0];
    if (!row) return { target: null, conversation: null, member: null, role: null };
    return {
      role: row.gm_role === null ? null : { role: str(row.gm_role), status: str(row.gm_status), mutedUntil: Number(row.gm_muted_until) },
      target: groupFromRow(row, 'g_'),
      conversation: row.c_id === null ? null : toConversation(row, 'c_'),
      member: row.m_id === null ? null : toMember(row, toConversation(row, 'c_'), 'm_'),
    };
  }

  async findByIds(ids: string[]): Promise<ConversationEntity[]> {
    if (!ids.length) return [];
    const rows = (await this.conversations.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)) as Row[];
    return rows.map((row) => toConversation(row));
  }

  async findByDirectKey(key: string): Promise<ConversationEntity | null> {
    const rows = (await this.conversations.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE direct_key = ?`, [key])) as Row[];
    return rows[0] ? toConversation(rows[0]) : null;
  }

  async findByGroupId(groupId: string, manager?: EntityManager): Promise<ConversationEntity | null> {
    const rows = (await (manager ?? this.conversations.manager).query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE group_id = ?`, [groupId])) as Row[];
    return rows[0] ? toConversation(rows[0]) : null;
  }

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

  async insertConversation(manager: EntityManager, values: { type: 'direct'; directKey: string } | { type: 'group'; groupId: string }, now: number): Promise<ConversationEntity> {
    const entity = manager.create(ConversationEntity, {
      type: values.type,
      directKey: values.type === 'direct' ? values.directKey : null,
      groupId: values.type === 'group' ? values.groupId : null,
      lastSeq: '0',
      contentUpdatedAt: now,
      lastMessageAt: 0,
      deletionRevision: '0',
      createdAt: now,
    });
    const result = await manager.insert(ConversationEntity, entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  /**
   * The one-to-one conversation of two users, created with both members on first need.
   * Concurrent callers converge on one row through the unique direct key.
   */
  async ensureDirect(manager: EntityManager, userA: string, userB: string, now: number): Promise<ConversationEntity> {
    const key = directKey(userA, userB);
    let conversation = await manager.findOneBy(ConversationEntity, { directKey: key });
    if (!conversation) {
      try {
        conversation = await this.insertConversation(manager, { type: 'direct', directKey: key }, now);
      } catch (error) {
        if (!isUniqueViolation(error, 'direct_key')) throw error;
        // A locking read sees the winner's committed row; a plain read would use this
        // transaction's older MySQL snapshot and miss it.
        const query = manager.createQueryBuilder(ConversationEntity, 'c').where('c.direct_key = :key', { key });
        if (isMysql(manager)) query.setLock('pessimistic_read');
        const winner = await query.getOne();
        if (!winner) throw error;
        conversation = winner;
      }
    }
    for (const [userId, peerId] of [
      [userA, userB],
      [userB, userA],
    ]) {
      if (!(await this.findMember(conversation.id, userId, manager))) await this.addMember(manager, conversation, userId, now, '0', peerId);
    }
    return conversation;
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
