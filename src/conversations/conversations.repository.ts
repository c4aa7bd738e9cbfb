import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { GroupEntity } from '../groups/group.entity';
import { USER_COLUMNS, UserRow, userFromRow } from '../users/users.repository';
import { UserEntity } from '../users/user.entity';
import { directKey } from './conversation-id';

const CONVERSATION_COLUMNS = 'id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at';
const MEMBER_COLUMNS =
  'id, conversation_id, user_id, read_seq, visible_from_seq, visible_to_seq, unread_count, last_activity_at, pinned, muted, hidden, created_at, updated_at';
type Row = Record<string, string | number | null>;
const str = (value: string | number | null): string => String(value);
const strOrNull = (value: string | number | null): string | null => (value === null ? null : String(value));

/** Rows of the read paths are mapped by hand: entity hydration was a large share of their CPU. */
function toConversation(row: Row): ConversationEntity {
  return Object.assign(new ConversationEntity(), {
    id: str(row.id),
    type: row.type as ConversationEntity['type'],
    directKey: strOrNull(row.direct_key),
    groupId: strOrNull(row.group_id),
    lastSeq: str(row.last_seq),
    contentUpdatedAt: Number(row.content_updated_at),
    deletionRevision: str(row.deletion_revision),
    createdAt: Number(row.created_at),
  });
}

function toMember(row: Row): ConversationMemberEntity {
  return Object.assign(new ConversationMemberEntity(), {
    id: str(row.id),
    conversationId: str(row.conversation_id),
    userId: str(row.user_id),
    readSeq: str(row.read_seq),
    visibleFromSeq: str(row.visible_from_seq),
    visibleToSeq: strOrNull(row.visible_to_seq),
    unreadCount: Number(row.unread_count),
    lastActivityAt: Number(row.last_activity_at),
    pinned: Boolean(Number(row.pinned)),
    muted: Boolean(Number(row.muted)),
    hidden: Boolean(Number(row.hidden)),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  });
}

function prefixed(row: Row, prefix: string): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) if (key.startsWith(prefix)) out[key.slice(prefix.length)] = value;
  return out;
}

const aliased = (alias: string, columns: string): string =>
  columns
    .split(', ')
    .map((column) => `${alias}.${column} AS ${alias}_${column}`)
    .join(', ');

const GROUP_COLUMNS = 'id, public_id, name, avatar, introduction, owner_id, disabled, dismissed_at, created_at, updated_at';

function toGroup(row: Row): GroupEntity {
  return Object.assign(new GroupEntity(), {
    id: str(row.id),
    publicId: str(row.public_id),
    name: str(row.name),
    avatar: str(row.avatar),
    introduction: str(row.introduction),
    ownerId: str(row.owner_id),
    disabled: Boolean(Number(row.disabled)),
    dismissedAt: row.dismissed_at === null ? null : Number(row.dismissed_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  });
}

/** A conversation as resolved for one viewer: what exists of peer/group, conversation and membership. */
export interface Resolved<T> {
  target: T | null;
  conversation: ConversationEntity | null;
  member: ConversationMemberEntity | null;
}

/** Where a home-list page ended: pinned flag (0/1), last activity, conversation ID. */
export interface HomePosition {
  pinned: number;
  activity: number;
  conversationId: string;
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
  async resolveDirect(viewerId: string, peerExternalId: string): Promise<Resolved<UserEntity>> {
    const mysql = this.conversations.manager.connection.options.type === 'mysql';
    const key = mysql
      ? "CASE WHEN p.id < ? THEN CONCAT(p.id, ':', ?) ELSE CONCAT(?, ':', p.id) END"
      : "CASE WHEN p.id < CAST(? AS INTEGER) THEN p.id || ':' || ? ELSE ? || ':' || p.id END";
    const rows = (await this.conversations.query(
      `SELECT ${aliased('p', USER_COLUMNS)}, ${aliased('c', CONVERSATION_COLUMNS)}, ${aliased('m', MEMBER_COLUMNS)} FROM users p ` +
        `LEFT JOIN conversations c ON c.direct_key = ${key} ` +
        'LEFT JOIN conversation_members m ON m.conversation_id = c.id AND m.user_id = ? WHERE p.external_id = ?',
      [viewerId, viewerId, viewerId, viewerId, peerExternalId],
    )) as Row[];
    const row = rows[0];
    if (!row) return { target: null, conversation: null, member: null };
    return {
      target: userFromRow(prefixed(row, 'p_') as unknown as UserRow),
      conversation: row.c_id === null ? null : toConversation(prefixed(row, 'c_')),
      member: row.m_id === null ? null : toMember(prefixed(row, 'm_')),
    };
  }

  /** Resolves a group conversation for a viewer in one round trip (it reads the groups table). */
  async resolveGroup(viewerId: string, publicGroupId: string): Promise<Resolved<GroupEntity>> {
    const rows = (await this.conversations.query(
      `SELECT ${aliased('g', GROUP_COLUMNS)}, ${aliased('c', CONVERSATION_COLUMNS)}, ${aliased('m', MEMBER_COLUMNS)} FROM \`groups\` g ` +
        'LEFT JOIN conversations c ON c.group_id = g.id LEFT JOIN conversation_members m ON m.conversation_id = c.id AND m.user_id = ? WHERE g.public_id = ?',
      [viewerId, publicGroupId],
    )) as Row[];
    const row = rows[0];
    if (!row) return { target: null, conversation: null, member: null };
    return {
      target: toGroup(prefixed(row, 'g_')),
      conversation: row.c_id === null ? null : toConversation(prefixed(row, 'c_')),
      member: row.m_id === null ? null : toMember(prefixed(row, 'm_')),
    };
  }

  async findByIds(ids: string[]): Promise<ConversationEntity[]> {
    if (!ids.length) return [];
    const rows = (await this.conversations.query(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)) as Row[];
    return rows.map(toConversation);
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
    const rows = (await (manager ?? this.members.manager).query(`SELECT ${MEMBER_COLUMNS} FROM conversation_members WHERE conversation_id = ? AND user_id = ?`, [
      conversationId,
      userId,
    ])) as Row[];
    return rows[0] ? toMember(rows[0]) : null;
  }

  /** Members who currently receive the conversation's messages. */
  findCurrentMembers(conversationId: string, manager?: EntityManager): Promise<ConversationMemberEntity[]> {
    return (manager ? manager.getRepository(ConversationMemberEntity) : this.members).findBy({ conversationId, visibleToSeq: IsNull() });
  }

  async insertConversation(manager: EntityManager, values: { type: 'direct'; directKey: string } | { type: 'group'; groupId: string }, now: number): Promise<ConversationEntity> {
    const entity = manager.create(ConversationEntity, {
      type: values.type,
      directKey: values.type === 'direct' ? values.directKey : null,
      groupId: values.type === 'group' ? values.groupId : null,
      lastSeq: '0',
      contentUpdatedAt: now,
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
        if (manager.connection.options.type === 'mysql') query.setLock('pessimistic_read');
        const winner = await query.getOne();
        if (!winner) throw error;
        conversation = winner;
      }
    }
    for (const userId of [userA, userB]) {
      if (!(await this.findMember(conversation.id, userId, manager))) await this.addMember(manager, conversation, userId, now, '0');
    }
    return conversation;
  }

  /**
   * Opens membership: a new member sees messages after the current last sequence; a former
   * member rejoins the same way (history of the time away is not shown).
   */
  async openMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    const conversation = await this.lockConversation(manager, conversationId);
    const existing = await this.findMember(conversationId, userId, manager);
    if (!existing) return this.addMember(manager, conversation, userId, now, conversation.lastSeq);
    if (existing.visibleToSeq === null) return;
    await manager.update(
      ConversationMemberEntity,
      { id: existing.id },
      { visibleFromSeq: conversation.lastSeq, visibleToSeq: null, readSeq: conversation.lastSeq, unreadCount: 0, hidden: false, lastActivityAt: now, updatedAt: now },
    );
  }

  /** Closes membership: the member keeps read access to what was sent before, and nothing after. */
  async closeMember(manager: EntityManager, conversationId: string, userId: string, now: number): Promise<void> {
    const conversation = await this.lockConversation(manager, conversationId);
    await manager.update(ConversationMemberEntity, { conversationId, userId, visibleToSeq: IsNull() }, { visibleToSeq: conversation.lastSeq, updatedAt: now });
  }

  /**
   * Reads the conversation under the same row lock a send takes first, so a membership change
   * waits for in-flight sends and reads the last_seq they committed: the member's visible range
   * and unread then agree about every message.
   */
  private async lockConversation(manager: EntityManager, conversationId: string): Promise<ConversationEntity> {
    const query = manager.createQueryBuilder(ConversationEntity, 'c').where('c.id = :conversationId', { conversationId });
    if (manager.connection.options.type === 'mysql') query.setLock('pessimistic_write');
    const conversation = await query.getOne();
    if (!conversation) throw new Error(`conversation ${conversationId} vanished`);
    return conversation;
  }

  /**
   * After a send: every current member's conversation moves up the home list and reappears if
   * hidden; everyone but the sender gains one unread. One statement, inside the send's
   * transaction.
   */
  async recordSend(manager: EntityManager, conversationId: string, senderId: string, now: number): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(ConversationMemberEntity)
      .set({
        unreadCount: () => 'unread_count + CASE WHEN user_id = :senderId THEN 0 ELSE 1 END',
        lastActivityAt: now,
        hidden: false,
        updatedAt: now,
      })
      .where('conversation_id = :conversationId AND visible_to_seq IS NULL', { conversationId, senderId })
      .execute();
  }

  /** A message at `seq` by `senderId` became a tombstone: it no longer counts as unread for anyone. */
  async recordTombstone(manager: EntityManager, conversationId: string, senderId: string, seq: string, now: number): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(ConversationMemberEntity)
      .set({ unreadCount: () => 'unread_count - 1', updatedAt: now })
      .where(
        'conversation_id = :conversationId AND user_id <> :senderId AND read_seq < :seq AND visible_from_seq < :seq AND (visible_to_seq IS NULL OR visible_to_seq >= :seq) AND unread_count > 0',
        { conversationId, senderId, seq },
      )
      .execute();
  }

  /** Raises the content version (strictly, even within one millisecond) and, for deletes, the deletion revision. */
  async bumpContentVersion(manager: EntityManager, conversationId: string, now: number, deletion: boolean): Promise<ConversationEntity> {
    const set: Record<string, () => string> = { contentUpdatedAt: () => 'CASE WHEN content_updated_at >= :now THEN content_updated_at + 1 ELSE :now END' };
    if (deletion) set.deletionRevision = () => 'deletion_revision + 1';
    await manager.createQueryBuilder().update(ConversationEntity).set(set).where('id = :id', { id: conversationId, now }).execute();
    return manager.findOneByOrFail(ConversationEntity, { id: conversationId });
  }

  /**
   * Locks the member row for a read update. On MySQL the lock is taken before the unread
   * recount, so the recount sees every send that committed before it and a later send still
   * adds its one (see recordSend). SQLite runs transactions one at a time.
   */
  async lockMember(manager: EntityManager, memberId: string): Promise<ConversationMemberEntity> {
    const query = manager.createQueryBuilder(ConversationMemberEntity, 'cm').where('cm.id = :memberId', { memberId });
    if (manager.connection.options.type === 'mysql') query.setLock('pessimistic_write');
    const member = await query.getOne();
    if (!member) throw new Error('conversation member vanished');
    return member;
  }

  async setRead(manager: EntityManager, memberId: string, readSeq: string, unread: number, now: number): Promise<void> {
    await manager.update(ConversationMemberEntity, { id: memberId }, { readSeq, unreadCount: unread, updatedAt: now });
  }

  async updateSettings(memberId: string, changes: Partial<Pick<ConversationMemberEntity, 'pinned' | 'muted' | 'hidden'>>, now: number, manager?: EntityManager): Promise<void> {
    await (manager ?? this.members.manager).update(ConversationMemberEntity, { id: memberId }, { ...changes, updatedAt: now });
  }

  /**
   * One page of the home list: visible conversations, pinned first, then by last activity,
   * then by conversation ID, continuing after `after`. Served by IDX_conversation_members_home.
   */
  async homePage(userId: string, after: HomePosition | null, count: number): Promise<ConversationMemberEntity[]> {
    // Flags are bound as 0/1: better-sqlite3 cannot bind booleans.
    const params: Array<string | number> = [userId];
    let keyset = '';
    if (after) {
      keyset = ' AND (pinned < ? OR (pinned = ? AND last_activity_at < ?) OR (pinned = ? AND last_activity_at = ? AND conversation_id < ?))';
      params.push(after.pinned, after.pinned, after.activity, after.pinned, after.activity, after.conversationId);
    }
    params.push(count);
    const rows = (await this.members.query(
      `SELECT ${MEMBER_COLUMNS} FROM conversation_members WHERE user_id = ? AND hidden = 0${keyset} ORDER BY pinned DESC, last_activity_at DESC, conversation_id DESC LIMIT ?`,
      params,
    )) as Row[];
    return rows.map(toMember);
  }

  /** The absolute unread aggregate: everything, and what is not muted (the badge). */
  async unreadTotals(userId: string): Promise<{ total: number; unmuted: number }> {
    const row = await this.members
      .createQueryBuilder('cm')
      .select('COALESCE(SUM(cm.unread_count), 0)', 'total')
      .addSelect('COALESCE(SUM(CASE WHEN cm.muted = 0 THEN cm.unread_count ELSE 0 END), 0)', 'unmuted')
      .where('cm.user_id = :userId AND cm.unread_count > 0', { userId })
      .getRawOne<{ total: string | number; unmuted: string | number }>();
    return { total: Number(row?.total ?? 0), unmuted: Number(row?.unmuted ?? 0) };
  }

  /** Conversations with unread messages, most recently active first. */
  withUnread(userId: string, count: number): Promise<ConversationMemberEntity[]> {
    return this.members
      .createQueryBuilder('cm')
      .where('cm.user_id = :userId AND cm.unread_count > 0', { userId })
      .orderBy('cm.last_activity_at', 'DESC')
      .addOrderBy('cm.conversation_id', 'DESC')
      .limit(count)
      .getMany();
  }

  private async addMember(manager: EntityManager, conversation: ConversationEntity, userId: string, now: number, visibleFromSeq: string): Promise<void> {
    await manager.insert(ConversationMemberEntity, {
      conversationId: conversation.id,
      userId,
      readSeq: visibleFromSeq,
      visibleFromSeq,
      visibleToSeq: null,
      unreadCount: 0,
      lastActivityAt: now,
      pinned: false,
      muted: false,
      hidden: false,
      createdAt: now,
      updatedAt: now,
    });
  }
}
