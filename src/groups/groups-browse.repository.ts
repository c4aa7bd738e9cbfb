import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { likePrefix } from '../database/like-prefix';
import { Clause, oneOf, pageSelect } from '../database/page-select';
import { GROUP_COLUMNS, Group, GroupRole, GroupRow, groupFromRow } from './group';
import type { GroupBrowseFilters, GroupPosition, GroupTableSort, MembershipOfUser } from './group-browse';
import { GroupEntity } from './group.entity';

/**
 * The Groups list's keyset reads: by the primary key (newest) or IDX_groups_name (name); for the
 * last_active order, the filters over a batch of IDs the conversations module chose.
 */
@Injectable()
export class GroupsBrowseRepository {
  constructor(@InjectRepository(GroupEntity) private readonly groups: Repository<GroupEntity>) {}

  async page(
    filters: GroupBrowseFilters,
    sort: GroupTableSort,
    after: GroupPosition | null,
    limit: number,
  ): Promise<Group[]> {
    if (filters.onlyIds && filters.onlyIds.length === 0) return [];
    const clauses = this.filterClauses(filters);
    const search = this.searchAlternatives(filters);
    // The search as a union of its alternatives, unless an ID list (open reports) bounds the rows already.
    if (search && filters.onlyIds) clauses.push(oneOf(search));
    let order = 'id DESC';
    if (sort === 'name') {
      order = 'name ASC, id ASC';
      if (after)
        clauses.push({
          // The leading bound is redundant but lets SQLite seek the index instead of walking it.
          sql: 'name >= ? AND (name > ? OR (name = ? AND id > ?))',
          params: [after.n ?? '', after.n ?? '', after.n ?? '', after.id],
        });
    } else if (after) clauses.push({ sql: 'id < ?', params: [after.id] });
    const { sql, params } = pageSelect({
      columns: GROUP_COLUMNS,
      table: '`groups`',
      where: clauses,
      anyOf: filters.onlyIds ? undefined : search,
      order,
      limit,
    });
    const rows = (await this.groups.query(sql, params)) as GroupRow[];
    return rows.map((row) => groupFromRow(row));
  }

  /** Those of `ids` that pass the filters: a primary key lookup each, the filters applied to those rows. */
  async among(filters: GroupBrowseFilters, ids: readonly string[]): Promise<Group[]> {
    const only = filters.onlyIds ? new Set(filters.onlyIds) : null;
    const wanted = only ? ids.filter((id) => only.has(id)) : ids;
    if (!wanted.length) return [];
    const search = this.searchAlternatives(filters);
    const clauses = [
      ...this.filterClauses({ ...filters, onlyIds: undefined }),
      ...(search ? [oneOf(search)] : []),
      { sql: `id IN (${wanted.map(() => '?').join(', ')})`, params: [...wanted] },
    ];
    const rows = (await this.groups.query(
      `SELECT ${GROUP_COLUMNS} FROM \`groups\` WHERE ${clauses.map((c) => c.sql).join(' AND ')}`,
      clauses.flatMap((c) => c.params),
    )) as GroupRow[];
    return rows.map((row) => groupFromRow(row));
  }

  /** The search box: an exact group ID or the start of a name, each read by its own index. */
  private searchAlternatives(filters: GroupBrowseFilters): Clause[] | undefined {
    if (filters.q === undefined) return undefined;
    return [
      { sql: 'public_id = ?', params: [filters.q] },
      { sql: "name LIKE ? ESCAPE '!'", params: [likePrefix(filters.q)] },
    ];
  }

  private filterClauses(filters: GroupBrowseFilters): Clause[] {
    const clauses: Clause[] = [];
    if (filters.disabled !== undefined) clauses.push({ sql: 'disabled = ?', params: [filters.disabled ? 1 : 0] });
    if (filters.dismissed !== undefined)
      clauses.push({ sql: filters.dismissed ? 'dismissed_at IS NOT NULL' : 'dismissed_at IS NULL', params: [] });
    if (filters.onlyIds)
      clauses.push({ sql: `id IN (${filters.onlyIds.map(() => '?').join(', ')})`, params: [...filters.onlyIds] });
    return clauses;
  }

  /** The user's first `limit` current memberships (by first join), disabled groups included. */
  async membershipsOfUser(userId: string, limit: number): Promise<MembershipOfUser[]> {
    const columns = GROUP_COLUMNS.split(', ')
      .map((c) => `g.${c} AS g_${c}`)
      .join(', ');
    const rows = (await this.groups.query(
      `SELECT ${columns}, m.role AS m_role, m.muted_until AS m_muted_until, m.joined_at AS m_joined_at
         FROM group_members m JOIN \`groups\` g ON g.id = m.group_id
        WHERE m.user_id = ? AND m.status = 'active' ORDER BY m.id ASC LIMIT ?`,
      [userId, limit],
    )) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      group: groupFromRow(row, 'g_'),
      role: String(row.m_role) as GroupRole,
      mutedUntil: Number(row.m_muted_until ?? 0),
      joinedAt: Number(row.m_joined_at),
    }));
  }
}
