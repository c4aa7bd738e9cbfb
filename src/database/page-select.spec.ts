import Database from 'better-sqlite3';
import { oneOf, pageSelect } from './page-select';

describe('oneOf', () => {
  it('joins the alternatives into one parenthesised OR, placeholders in order', () => {
    expect(
      oneOf([
        { sql: 'code = ?', params: ['a'] },
        { sql: "name LIKE ? ESCAPE '!'", params: ['b%'] },
      ]),
    ).toEqual({ sql: "(code = ? OR name LIKE ? ESCAPE '!')", params: ['a', 'b%'] });
  });
});

describe('pageSelect', () => {
  const base = { columns: 'id, name', table: 't', order: 'name ASC, id ASC', limit: 3 };

  it('is one plain SELECT without alternatives, or with one', () => {
    expect(pageSelect({ ...base, where: [{ sql: 'id > ?', params: [5] }] })).toEqual({
      sql: 'SELECT id, name FROM t WHERE id > ? ORDER BY name ASC, id ASC LIMIT ?',
      params: [5, 3],
    });
    expect(pageSelect({ ...base, where: [], anyOf: [{ sql: 'name = ?', params: ['x'] }] })).toEqual({
      sql: 'SELECT id, name FROM t WHERE name = ? ORDER BY name ASC, id ASC LIMIT ?',
      params: ['x', 3],
    });
  });

  it('puts the shared conditions in every alternative, each cut to the page, and the placeholders in order', () => {
    const { sql, params } = pageSelect({
      ...base,
      where: [{ sql: 'id > ?', params: [1] }],
      anyOf: [
        { sql: 'code = ?', params: ['a'] },
        { sql: 'name LIKE ?', params: ['b%'] },
      ],
    });
    expect(sql).toBe(
      'SELECT * FROM (SELECT id, name FROM t WHERE id > ? AND code = ? ORDER BY name ASC, id ASC LIMIT ?) AS alternative_0' +
        ' UNION SELECT * FROM (SELECT id, name FROM t WHERE id > ? AND name LIKE ? ORDER BY name ASC, id ASC LIMIT ?) AS alternative_1' +
        ' ORDER BY name ASC, id ASC LIMIT ?',
    );
    expect(params).toEqual([1, 'a', 3, 1, 'b%', 3, 3]);
  });

  it('answers what the OR of the alternatives answers, in order, each row once (SQLite)', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT, name TEXT)');
    const insert = db.prepare('INSERT INTO t (id, code, name) VALUES (?, ?, ?)');
    const names = ['bob', 'bea', 'al', 'bart', 'bo', 'cy', 'b', 'bb'];
    // 'bo' (ID 5) meets both alternatives.
    names.forEach((name, i) => insert.run(i + 1, i === 2 || i === 4 || i === 6 ? 'bo' : `c${i}`, name));
    const anyOf = [
      { sql: 'code = ?', params: ['bo'] },
      { sql: 'name LIKE ?', params: ['bo%'] },
    ];
    for (const limit of [1, 2, 3, 10]) {
      for (const after of [0, 2, 5]) {
        const where = [{ sql: 'id > ?', params: [after] }];
        const union = pageSelect({ ...base, limit, where, anyOf });
        const or = pageSelect({ ...base, limit, where: [...where, oneOf(anyOf)] });
        const written = pageSelect({
          ...base,
          limit,
          where: [...where, { sql: '(code = ? OR name LIKE ?)', params: ['bo', 'bo%'] }],
        });
        expect(db.prepare(union.sql).all(...union.params)).toEqual(db.prepare(or.sql).all(...or.params));
        expect(db.prepare(or.sql).all(...or.params)).toEqual(db.prepare(written.sql).all(...written.params));
      }
    }
    db.close();
  });
});
