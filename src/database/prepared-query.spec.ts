import type { EntityManager } from 'typeorm';
import { queryPrepared } from './prepared-query';

type Execute = (sql: string, params: unknown[], callback: (error: Error | null, rows: unknown) => void) => void;

function fakeManager(type: 'mysql' | 'better-sqlite3', options: { inTransaction?: boolean; execute?: Execute } = {}) {
  const query = jest.fn(async () => [{ via: 'query' }]);
  const execute = jest.fn(options.execute ?? ((_sql, _params, callback) => callback(null, [{ via: 'execute' }])));
  const manager = {
    queryRunner: options.inTransaction ? {} : undefined,
    query,
    connection: { options: { type }, driver: { pool: { execute } } },
  } as unknown as EntityManager;
  return { manager, query, execute };
}

describe('queryPrepared', () => {
  it('runs on MySQL as a prepared statement of the pool, with the parameters in order', async () => {
    const { manager, query, execute } = fakeManager('mysql');
    await expect(queryPrepared(manager, 'SELECT ? AS a, ? AS b', ['1', 2])).resolves.toEqual([{ via: 'execute' }]);
    expect(execute).toHaveBeenCalledWith('SELECT ? AS a, ? AS b', ['1', 2], expect.any(Function));
    expect(query).not.toHaveBeenCalled();
  });

  it('passes a MySQL error on as the rejection', async () => {
    const failure = new Error('ER_NO_SUCH_TABLE');
    const { manager } = fakeManager('mysql', { execute: (_sql, _params, callback) => callback(failure, undefined) });
    await expect(queryPrepared(manager, 'SELECT 1', [])).rejects.toBe(failure);
  });

  it('runs on SQLite as an ordinary query', async () => {
    const { manager, query, execute } = fakeManager('better-sqlite3');
    await expect(queryPrepared(manager, 'SELECT ?', [null])).resolves.toEqual([{ via: 'query' }]);
    expect(query).toHaveBeenCalledWith('SELECT ?', [null]);
    expect(execute).not.toHaveBeenCalled();
  });

  it('refuses a transaction-bound manager (the statement would run outside the transaction)', () => {
    const { manager, query, execute } = fakeManager('mysql', { inTransaction: true });
    expect(() => queryPrepared(manager, 'SELECT 1', [])).toThrow(/outside transactions/);
    expect(query).not.toHaveBeenCalled();
    expect(execute).not.toHaveBeenCalled();
  });
});
