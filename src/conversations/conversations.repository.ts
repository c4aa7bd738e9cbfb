import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { ConversationMemberEntity } from './conversation-member.entity';
import { ConversationEntity } from './conversation.entity';
import { GroupEntity } from '../groups/group.entity';
import { GROUP_COLUMNS, groupFromRow } from '../groups/groups.repository';
import { USER_COLUMNS, UserRow, userFromRow } from '../users/users.repository';
import { UserEntity } from '../users/user.entity';
import { directKey } from './conversation-id';
import { ConversationMembersRepository } from './conversation-members.repository';
import { CONVERSATION_COLUMNS, MEMBER_COLUMNS, Row, aliased, isMysql, str, toConversation, toMember } from './conversation-rows';

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
 * Conversation rows: their lookup, the one-round-trip resolution of a conversation for a viewer,
 * and their creation. Member rows are ConversationMembersRepository's.
 */
@Injectable()
export class ConversationsRepository {
  constructor(
    @InjectRepository(ConversationEntity) private readonly conversations: Repository<ConversationEntity>,
    private readonly members: ConversationMembersRepository,
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
    await this.members.ensureDirectMembers(manager, conversation, userA, userB, now);
    return conversation;
  }
}
