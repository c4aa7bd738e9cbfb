import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { likePrefix } from '../database/like-prefix';
import { Clause, oneOf, pageSelect } from '../database/page-select';
import { UserEntity } from './user.entity';
import { USER_COLUMNS, User, UserRow, userFromRow } from './user';
import type { UserBrowseFilters, UserPosition, UserSort } from './user-browse';

/**
 * The Users list's keyset reads. Each order has an index: the primary key (newest),
 * IDX_users_last_active (last_active), IDX_users_nickname (name). Users never active sort
 * after all others: read as a second phase (by ID) once the active ones are exhausted, so each
 * phase is a plain range scan of its index instead of one OR over NULLs.
 */
@Injectable()
export class UsersBrowseRepository {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  async page(
    filters: UserBrowseFilters,
    sort: UserSort,
    after: UserPosition | null,
    limit: number,
    now: number,
  ): Promise<User[]> {
    if (filters.onlyIds && filters.onlyIds.length === 0) return [];
    const where = this.filterClauses(filters, now);
    const search = this.searchAlternatives(filters);
    // The search as a union of its alternatives, unless an ID list (open reports) bounds the rows already.
    if (search && filters.onlyIds) where.push(oneOf(search));
    const anyOf = filters.onlyIds ? undefined : search;
    const select = (clauses: Clause[], order: string, count: number) => this.select(clauses, anyOf, order, count);
    if (sort === 'newest') {
      const keyset = after ? [{ sql: 'id < ?', params: [after.id] }] : [];
      return select([...where, ...keyset], 'id DESC', limit);
    }
    if (sort === 'name') {
      const keyset = after
        ? [
            // The leading bound is redundant but lets SQLite seek the index instead of walking it from the start.
            {
              sql: 'nickname >= ? AND (nickname > ? OR (nickname = ? AND id > ?))',
              params: [after.n ?? '', after.n ?? '', after.n ?? '', after.id],
            },
          ]
        : [];
      return select([...where, ...keyset], 'nickname ASC, id ASC', limit);
    }
    const rows: User[] = [];
    if (!after || (after.a !== null && after.a !== undefined)) {
      const keyset = after
        ? [
            // Redundant bound: without it SQLite plans the OR as a multi-index OR and sorts every row below the position.
            {
              sql: 'last_active_at <= ? AND (last_active_at < ? OR (last_active_at = ? AND id < ?))',
              params: [after.a, after.a, after.a, after.id],
            },
          ]
        : [];
      const active = [...where, { sql: 'last_active_at IS NOT NULL', params: [] }, ...keyset];
      rows.push(...(await select(active, 'last_active_at DESC, id DESC', limit)));
      if (rows.length >= limit) return rows;
    }
    const idAfter = after && (after.a === null || after.a === undefined) ? [{ sql: 'id < ?', params: [after.id] }] : [];
    const never = [...where, { sql: 'last_active_at IS NULL', params: [] }, ...idAfter];
    rows.push(...(await select(never, 'id DESC', limit - rows.length)));
    return rows;
  }

  /** The search box: an exact user ID or username, or the start of a nickname, each read by its own index. */
  private searchAlternatives(filters: UserBrowseFilters): Clause[] | undefined {
    if (filters.q === undefined) return undefined;
    return [
      { sql: 'external_id = ?', params: [filters.q] },
      { sql: 'username = ?', params: [filters.q] },
      { sql: "nickname LIKE ? ESCAPE '!'", params: [likePrefix(filters.q)] },
    ];
  }

  private filterClauses(filters: UserBrowseFilters, now: number): Clause[] {
    const clauses: Clause[] = [];
    // As isDisabledAt: a disable whose end has passed no longer counts, whatever the stored flag.
    const disabledNow = '(disabled = 1 AND (disabled_until IS NULL OR disabled_until > ?))';
    if (filters.disabled === true) clauses.push({ sql: disabledNow, params: [now] });
    if (filters.disabled === false) clauses.push({ sql: `NOT ${disabledNow}`, params: [now] });
    if (filters.onlyIds)
      clauses.push({ sql: `id IN (${filters.onlyIds.map(() => '?').join(', ')})`, params: [...filters.onlyIds] });
    return clauses;
  }

  private async select(where: Clause[], anyOf: Clause[] | undefined, order: string, limit: number): Promise<User[]> {
    const { sql, params } = pageSelect({ columns: USER_COLUMNS, table: 'users', where, anyOf, order, limit });
    const rows = (await this.users.query(sql, params)) as UserRow[];
    return rows.map((row) => userFromRow(row));
  }
}
