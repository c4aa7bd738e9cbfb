/** A condition with its placeholders' values. */
export interface Clause {
  sql: string;
  params: unknown[];
}

/** The alternatives as one OR: where the rows are few already (an ID list), one read beats a union of them. */
export function oneOf(alternatives: Clause[]): Clause {
  return {
    sql: `(${alternatives.map((c) => c.sql).join(' OR ')})`,
    params: alternatives.flatMap((c) => c.params),
  };
}

export interface PageQuery {
  columns: string;
  /** The table, quoted where its name is a keyword. */
  table: string;
  /** Conditions that all hold. */
  where: Clause[];
  /** When given, a row must also meet one of these (a search: an exact ID, or a name prefix). */
  anyOf?: Clause[];
  /** Over the selected columns' unqualified names: it also orders the union of the alternatives. */
  order: string;
  limit: number;
}

/**
 * One page of a list as a single SELECT. A search's alternatives become a UNION of one read per
 * alternative, each in the page's order and cut to the page, then merged and cut again: one OR
 * over columns of different indexes makes MySQL walk the order's index, reading each row, until a
 * page matches (130,000 index entries for a common nickname prefix among 200,000 users), where
 * each alternative alone is a lookup or a range of its own index. UNION (not UNION ALL) keeps a
 * row met by two alternatives once. The same statement runs on SQLite.
 */
export function pageSelect(query: PageQuery): { sql: string; params: unknown[] } {
  const read = (clauses: Clause[]): { sql: string; params: unknown[] } => ({
    sql: `SELECT ${query.columns} FROM ${query.table}${clauses.length ? ` WHERE ${clauses.map((c) => c.sql).join(' AND ')}` : ''} ORDER BY ${query.order} LIMIT ?`,
    params: [...clauses.flatMap((c) => c.params), query.limit],
  });
  const alternatives = query.anyOf ?? [];
  if (alternatives.length === 0) return read(query.where);
  if (alternatives.length === 1) return read([...query.where, alternatives[0]]);
  const branches = alternatives.map((alternative) => read([...query.where, alternative]));
  return {
    sql: `${branches.map((branch, i) => `SELECT * FROM (${branch.sql}) AS alternative_${i}`).join(' UNION ')} ORDER BY ${query.order} LIMIT ?`,
    params: [...branches.flatMap((branch) => branch.params), query.limit],
  };
}
