import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { dialectOf } from '../database/sql-dialect';
import type { Group } from '../groups/group';
import { GROUP_COLUMNS, groupFromRow } from '../groups/group';
import { USER_COLUMNS, UserRow, userFromRow } from '../users/user';
import type { User } from '../users/user';
import type { Conversation } from '../conversations/conversation';
import { queryPrepared } from '../database/prepared-query';
import type { ConversationMember } from '../conversations/conversation';
import {
  CONVERSATION_COLUMNS,
  MEMBER_COLUMNS,
  MEMBER_FROM,
  MEMBER_WITH_CONVERSATION,
  Row,
  aliased,
  str,
  toConversation,
  toMember,
  toMemberWithProgress,
  totalsOf,
} from '../conversations/conversation-rows';
import { GROUP_SQL } from '../conversations/member-state';
import {
  HOME_COLUMNS,
  HOME_JOINS,
  UNREAD_TOTALS_SQL,
  HomeEntry,
  HomePosition,
  HomeViewer,
  UnreadTotals,
  homeEntryFromRow,
  homeKeysSql,
  homeOrder,
} from '../conversations/home-list';

/** A conversation as resolved for one viewer: what exists of peer/group, conversation and membership. */
export interface Resolved<T> {
  target: T | null;
  conversation: Conversation | null;
  member: ConversationMember | null;
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
 * Read models of conversations as one viewer sees them: the resolution of a conversation ID for
 * a viewer (every SDK call on a conversation starts there), and the home list and unread reads
 * of sync. Each is one statement that joins what it needs, including other modules' tables
 * (users, groups, friendships, blocks, messages), which is why they live here and nowhere else.
 */
@Injectable()
export class ViewerConversationsRepository {
  constructor(dataSource: DataSource) {
    this.db = dataSource.manager;
  }

  private readonly db: EntityManager;

  /**
   * One page of the home list (home-list.ts) and the unread aggregate, in one statement: the
   * aggregate is a one-row derived table the page's rows are joined to, so an empty page still
   * answers it.
   */
  async homePage(
    viewer: HomeViewer,
    after: HomePosition | null,
    count: number,
  ): Promise<{ entries: HomeEntry[]; totals: UnreadTotals }> {
    const keys = homeKeysSql(after);
    const rows = await queryPrepared<Row>(
      this.db,
      `SELECT t.total, t.unmuted, ${HOME_COLUMNS} FROM (${UNREAD_TOTALS_SQL}) t LEFT JOIN (${keys.sql}) page ON 1 = 1 ${HOME_JOINS}`,
      [viewer.internalId, viewer.internalId, ...keys.params(viewer.internalId, count)],
    );
    const entries = rows.flatMap((row) => homeEntryFromRow(row, viewer) ?? []);
    entries.sort((a, b) => homeOrder(a.member, b.member));
    return { entries, totals: totalsOf(rows[0]) };
  }

  /** The home-list row of one conversation, as homePage would list it (hidden or not). */
  async homeEntry(viewer: HomeViewer, conversationId: string): Promise<HomeEntry | null> {
    const rows = (await this.db.query(
      `SELECT ${HOME_COLUMNS} FROM (SELECT m.id AS k FROM conversation_members m WHERE m.conversation_id = ? AND m.user_id = ?) page ${HOME_JOINS}`,
      [conversationId, viewer.internalId],
    )) as Row[];
    return rows[0] ? homeEntryFromRow(rows[0], viewer) : null;
  }

  /** The absolute unread aggregate (see UNREAD_TOTALS_SQL). */
  async unreadTotals(userId: string): Promise<UnreadTotals> {
    const rows = (await this.db.query(UNREAD_TOTALS_SQL, [userId, userId])) as Row[];
    return totalsOf(rows[0]);
  }

  /** Conversations with unread messages, most recently active first. */
  async withUnread(userId: string, count: number): Promise<ConversationMember[]> {
    const [directRows, groupRows] = (await Promise.all([
      this.db.query(
        `SELECT ${MEMBER_COLUMNS} FROM conversation_members WHERE user_id = ? AND is_group = 0 AND unread_count > 0 ORDER BY last_activity_at DESC, conversation_id DESC LIMIT ?`,
        [userId, count],
      ),
      this.db.query(
        `SELECT ${MEMBER_WITH_CONVERSATION} ${MEMBER_FROM} ` +
          `WHERE m.user_id = ? AND m.is_group = 1 AND ${GROUP_SQL.unread} > 0 ORDER BY ${GROUP_SQL.activity} DESC, m.conversation_id DESC LIMIT ?`,
        [userId, count],
      ),
    ])) as [Row[], Row[]];
    const byActivity = (a: ConversationMember, b: ConversationMember): number =>
      homeOrder({ ...a, pinned: false }, { ...b, pinned: false });
    return [...directRows.map((row) => toMember(row, null)), ...groupRows.map(toMemberWithProgress)]
      .sort(byActivity)
      .slice(0, count);
  }

  /**
   * Resolves a one-to-one conversation for a viewer in one round trip: the peer by external
   * ID, the conversation by the pair's key (built in SQL from both IDs, lower first) and the
   * viewer's membership. Every SDK call on a conversation starts here; it reads the users
   * table, which the users module owns, for that reason only.
   */
  async resolveDirect(
    viewerId: string,
    peerExternalId: string,
    withRelationship = false,
  ): Promise<Resolved<User> & { relationship: Relationship | null }> {
    const sql = dialectOf(this.db);
    // The pair's key as directKey() builds it: lower internal ID first.
    const key = `CASE WHEN p.id < ${sql.integerParam} THEN ${sql.concat('p.id', "':'", '?')} ELSE ${sql.concat('?', "':'", 'p.id')} END`;
    // A send also needs friendship and blocks between the two (the friends module's tables).
    const relationship = withRelationship
      ? ', (SELECT COUNT(*) FROM friendships f WHERE f.user_id = ? AND f.friend_id = p.id) AS r_friends, ' +
        '(SELECT COUNT(*) FROM blocks b WHERE (b.user_id = ? AND b.blocked_user_id = p.id) OR (b.user_id = p.id AND b.blocked_user_id = ?)) AS r_blocked'
      : '';
    // Prepared (MySQL): every SDK call on a conversation starts with this join.
    const rows = await queryPrepared<Row>(
      this.db,
      `SELECT ${aliased('p', USER_COLUMNS)}, ${aliased('c', CONVERSATION_COLUMNS)}, ${aliased('m', MEMBER_COLUMNS)}${relationship} FROM users p ` +
        `LEFT JOIN conversations c ON c.direct_key = ${key} ` +
        'LEFT JOIN conversation_members m ON m.conversation_id = c.id AND m.user_id = ? WHERE p.external_id = ?',
      [
        ...(withRelationship ? [viewerId, viewerId, viewerId] : []),
        viewerId,
        viewerId,
        viewerId,
        viewerId,
        peerExternalId,
      ],
    );
    const row = rows[0];
    if (!row) return { target: null, conversation: null, member: null, relationship: null };
    return {
      relationship: withRelationship
        ? { friends: Number(row.r_friends) > 0, blocked: Number(row.r_blocked) > 0 }
        : null,
      target: userFromRow(row as unknown as UserRow, 'p_'),
      conversation: row.c_id === null ? null : toConversation(row, 'c_'),
      member: row.m_id === null ? null : toMember(row, toConversation(row, 'c_'), 'm_'),
    };
  }

  /**
   * Resolves a group conversation for a viewer in one round trip. It reads the groups module's
   * tables (the group, and the viewer's role and mute in it) for the same reason.
   */
  async resolveGroup(
    viewerId: string,
    publicGroupId: string,
  ): Promise<Resolved<Group> & { role: GroupRoleRow | null }> {
    const rows = await queryPrepared<Row>(
      this.db,
      `SELECT ${aliased('g', GROUP_COLUMNS)}, ${aliased('c', CONVERSATION_COLUMNS)}, ${aliased('m', MEMBER_COLUMNS)}, ` +
        'gm.role AS gm_role, gm.status AS gm_status, gm.muted_until AS gm_muted_until FROM `groups` g ' +
        'LEFT JOIN conversations c ON c.group_id = g.id LEFT JOIN conversation_members m ON m.conversation_id = c.id AND m.user_id = ? ' +
        'LEFT JOIN group_members gm ON gm.group_id = g.id AND gm.user_id = ? WHERE g.public_id = ?',
      [viewerId, viewerId, publicGroupId],
    );
    const row = rows[0];
    if (!row) return { target: null, conversation: null, member: null, role: null };
    return {
      role:
        row.gm_role === null
          ? null
          : { role: str(row.gm_role), status: str(row.gm_status), mutedUntil: Number(row.gm_muted_until) },
      target: groupFromRow(row, 'g_'),
      conversation: row.c_id === null ? null : toConversation(row, 'c_'),
      member: row.m_id === null ? null : toMember(row, toConversation(row, 'c_'), 'm_'),
    };
  }
}
