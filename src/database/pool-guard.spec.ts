import { EventEmitter } from 'node:events';
import { DatabaseTimeoutError, guardPool, sessionLimits } from './pool-guard';

type Callback = (error: Error | null, result?: unknown) => void;

class FakeConnection {
  destroyed = false;
  released = false;
  streamDestroyed = false;
  _isMariaDB = true;
  sql: string[] = [];
  pending: Callback[] = [];
  stream = { destroy: () => (this.streamDestroyed = true) };
  query(sql: string, params: unknown[] | Callback, callback?: Callback): void {
    this.sql.push(sql);
    this.pending.push(callback ?? (params as Callback));
  }
  execute(sql: string, _params: unknown[], callback: Callback): void {
    this.sql.push(sql);
    this.pending.push(callback);
  }
  release(): void {
    this.released = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

class FakeQueue {
  items: unknown[] = [];
  get length(): number {
    return this.items.length;
  }
  get(index: number): unknown {
    return this.items[index];
  }
  removeOne(index: number): void {
    this.items.splice(index, 1);
  }
}

class FakePool extends EventEmitter {
  waiting: Array<(error: Error | null, connection?: FakeConnection) => void> = [];
  _connectionQueue = new FakeQueue();
  getConnection(callback: (error: Error | null, connection?: FakeConnection) => void): void {
    this.waiting.push(callback);
    this._connectionQueue.items.push(callback);
  }
}

describe('sessionLimits', () => {
  it("puts the server's statement and lock-wait limits inside the client's", () => {
    expect(sessionLimits(10_000, true)).toBe('SET SESSION max_statement_time = 9.000, innodb_lock_wait_timeout = 5');
    expect(sessionLimits(10_000, false)).toBe('SET SESSION max_execution_time = 9000, innodb_lock_wait_timeout = 5');
    expect(sessionLimits(1500, true)).toBe('SET SESSION max_statement_time = 1.350, innodb_lock_wait_timeout = 1');
  });
});

describe('guardPool', () => {
  it("sets the session limits on every connection once, before any caller's statement", () => {
    jest.useFakeTimers();
    const pool = new FakePool();
    const early = new FakeConnection();
    (pool as unknown as { _allConnections: unknown })._allConnections = { length: 1, get: () => early };
    guardPool(pool as never, { acquireTimeoutMs: 100, queryTimeoutMs: 10_000 });
    pool.emit('connection', early);
    const later = new FakeConnection();
    later._isMariaDB = false;
    pool.emit('connection', later);
    expect(early.sql).toEqual(['SET SESSION max_statement_time = 9.000, innodb_lock_wait_timeout = 5']);
    expect(later.sql).toEqual(['SET SESSION max_execution_time = 9000, innodb_lock_wait_timeout = 5']);
    jest.useRealTimers();
  });

  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives up waiting for a connection after the acquire timeout and returns a late one to the pool', () => {
    const pool = new FakePool();
    const timeouts: string[] = [];
    guardPool(pool as never, {
      acquireTimeoutMs: 100,
      queryTimeoutMs: 1000,
      onTimeout: (phase) => timeouts.push(phase),
    });
    const results: unknown[] = [];
    pool.getConnection((error, connection) => results.push(error ?? connection));
    jest.advanceTimersByTime(99);
    expect(results).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(results[0]).toBeInstanceOf(DatabaseTimeoutError);
    expect((results[0] as DatabaseTimeoutError).phase).toBe('acquire');
    const late = new FakeConnection();
    pool.waiting[0](null, late);
    expect(late.released).toBe(true);
    expect(results).toHaveLength(1);
    expect(timeouts).toEqual(['acquire']);
    // The waiter that gave up left the pool's queue: no connection is opened for it later.
    expect(pool._connectionQueue.length).toBe(0);
  });

  it('does not time a waiter twice when the pool hands it back to getConnection', () => {
    const pool = new FakePool();
    const timeouts: string[] = [];
    guardPool(pool as never, {
      acquireTimeoutMs: 100,
      queryTimeoutMs: 1000,
      onTimeout: (phase) => timeouts.push(phase),
    });
    pool.getConnection(() => undefined);
    const timed = pool.waiting[0];
    pool.getConnection(timed);
    expect(pool.waiting[1]).toBe(timed);
    jest.advanceTimersByTime(100);
    expect(timeouts).toEqual(['acquire']);
  });

  it('passes a connection that arrives in time, once', () => {
    const pool = new FakePool();
    guardPool(pool as never, { acquireTimeoutMs: 100, queryTimeoutMs: 1000 });
    const results: unknown[] = [];
    pool.getConnection((error, connection) => results.push(error ?? connection));
    const connection = new FakeConnection();
    pool.waiting[0](null, connection);
    jest.advanceTimersByTime(500);
    expect(results).toEqual([connection]);
    expect(connection.released).toBe(false);
  });

  it('destroys a connection whose statement outlives the query timeout, and ignores its late answer', () => {
    const pool = new FakePool();
    guardPool(pool as never, { acquireTimeoutMs: 100, queryTimeoutMs: 200 });
    const connection = new FakeConnection();
    pool.emit('connection', connection);
    connection.pending[0](null);
    const answers: unknown[] = [];
    connection.query('SELECT 1', [], (error, rows) => answers.push(error ?? rows));
    connection.execute('SELECT 2', [], (error, rows) => answers.push(error ?? rows));
    jest.advanceTimersByTime(200);
    expect(connection.destroyed).toBe(true);
    expect(connection.streamDestroyed).toBe(true);
    expect(answers).toHaveLength(2);
    expect(answers.every((a) => a instanceof DatabaseTimeoutError && a.phase === 'query')).toBe(true);
    connection.pending[1](null, [{ x: 1 }]);
    expect(answers).toHaveLength(2);
  });

  it('answers a fast statement normally and clears its timer', () => {
    const pool = new FakePool();
    guardPool(pool as never, { acquireTimeoutMs: 100, queryTimeoutMs: 200 });
    const connection = new FakeConnection();
    pool.emit('connection', connection);
    connection.pending[0](null);
    const answers: unknown[] = [];
    connection.query('SELECT 1', [], (error, rows) => answers.push(error ?? rows));
    connection.pending[1](null, 'rows');
    jest.advanceTimersByTime(1000);
    expect(answers).toEqual(['rows']);
    expect(connection.destroyed).toBe(false);
  });
});
