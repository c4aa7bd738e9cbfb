import { EventEmitter } from 'node:events';
import { DatabaseTimeoutError, guardPool } from './pool-guard';

type Callback = (error: Error | null, result?: unknown) => void;

class FakeConnection {
  destroyed = false;
  released = false;
  pending: Callback[] = [];
  query(_sql: string, _params: unknown[], callback: Callback): void {
    this.pending.push(callback);
  }
  execute(_sql: string, _params: unknown[], callback: Callback): void {
    this.pending.push(callback);
  }
  release(): void {
    this.released = true;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

class FakePool extends EventEmitter {
  waiting: Array<(error: Error | null, connection?: FakeConnection) => void> = [];
  getConnection(callback: (error: Error | null, connection?: FakeConnection) => void): void {
    this.waiting.push(callback);
  }
}

describe('guardPool', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('gives up waiting for a connection after the acquire timeout and returns a late one to the pool', () => {
    const pool = new FakePool();
    const timeouts: string[] = [];
    guardPool(pool as never, { acquireTimeoutMs: 100, queryTimeoutMs: 1000, onTimeout: (phase) => timeouts.push(phase) });
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
    const answers: unknown[] = [];
    connection.query('SELECT 1', [], (error, rows) => answers.push(error ?? rows));
    connection.execute('SELECT 2', [], (error, rows) => answers.push(error ?? rows));
    jest.advanceTimersByTime(200);
    expect(connection.destroyed).toBe(true);
    expect(answers).toHaveLength(2);
    expect(answers.every((a) => a instanceof DatabaseTimeoutError && a.phase === 'query')).toBe(true);
    connection.pending[0](null, [{ x: 1 }]);
    expect(answers).toHaveLength(2);
  });

  it('answers a fast statement normally and clears its timer', () => {
    const pool = new FakePool();
    guardPool(pool as never, { acquireTimeoutMs: 100, queryTimeoutMs: 200 });
    const connection = new FakeConnection();
    pool.emit('connection', connection);
    const answers: unknown[] = [];
    connection.query('SELECT 1', [], (error, rows) => answers.push(error ?? rows));
    connection.pending[0](null, 'rows');
    jest.advanceTimersByTime(1000);
    expect(answers).toEqual(['rows']);
    expect(connection.destroyed).toBe(false);
  });
});
