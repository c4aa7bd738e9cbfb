/**
 * Time limits mysql2's pool does not have: waiting for a free connection, and one statement.
 *
 * A frozen or unreachable database otherwise holds every request for as long as TCP keeps the
 * connection (a stopped server process: for ever), and mysql2's own query timeout leaves the
 * timed-out command at the head of the connection's queue, so the pooled connection would hang
 * the next request that gets it. Here a timed-out statement destroys its connection (the server
 * rolls back whatever transaction it had when it notices) and the caller gets
 * `DatabaseTimeoutError` at once; the request answers 503 / 1500 (see db-errors.ts).
 */
export class DatabaseTimeoutError extends Error {
  readonly code = 'DB_TIMEOUT';

  constructor(readonly phase: 'acquire' | 'query', ms: number) {
    super(phase === 'acquire' ? `no database connection became free within ${ms} ms` : `the database did not answer a statement within ${ms} ms`);
    this.name = 'DatabaseTimeoutError';
  }
}

type Callback = (error: Error | null, ...results: unknown[]) => void;

interface GuardedConnection {
  query: (...args: unknown[]) => unknown;
  execute: (...args: unknown[]) => unknown;
  release(): void;
  destroy(): void;
}

interface GuardedPool {
  _allConnections?: { length: number; get(index: number): GuardedConnection };
  getConnection(callback: (error: Error | null, connection?: GuardedConnection) => void): void;
  on(event: 'connection', listener: (connection: GuardedConnection) => void): void;
}

export interface PoolTimeouts {
  acquireTimeoutMs: number;
  queryTimeoutMs: number;
  /** Told of every timeout, for metrics. */
  onTimeout?: (phase: 'acquire' | 'query') => void;
}

/** Calls `callback` once: with the first of the real answer or the timeout; `late` gets what arrives after. */
function settleOnce(ms: number, callback: Callback, onTimeout: () => Error, late: (results: unknown[]) => void): Callback {
  let settled = false;
  const timer = setTimeout(() => {
    settled = true;
    callback(onTimeout());
  }, ms);
  return (error, ...results) => {
    if (settled) return late(results);
    settled = true;
    clearTimeout(timer);
    callback(error, ...results);
  };
}

function guardStatements(connection: GuardedConnection, timeouts: PoolTimeouts): void {
  for (const method of ['query', 'execute'] as const) {
    const original = connection[method].bind(connection);
    connection[method] = (...args: unknown[]) => {
      const last = args.length - 1;
      // Without a callback the caller streams the result and handles its own errors.
      if (typeof args[last] !== 'function') return original(...args);
      args[last] = settleOnce(
        timeouts.queryTimeoutMs,
        args[last] as Callback,
        () => {
          timeouts.onTimeout?.('query');
          connection.destroy();
          return new DatabaseTimeoutError('query', timeouts.queryTimeoutMs);
        },
        () => undefined,
      );
      return original(...args);
    };
  }
}

export function guardPool(pool: GuardedPool, timeouts: PoolTimeouts): void {
  // Connections opened before (by the migrations) and every one opened from now on.
  const open = pool._allConnections;
  for (let i = 0; open && i < open.length; i++) guardStatements(open.get(i), timeouts);
  pool.on('connection', (connection) => guardStatements(connection, timeouts));
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) =>
    getConnection(
      settleOnce(
        timeouts.acquireTimeoutMs,
        callback as Callback,
        () => {
          timeouts.onTimeout?.('acquire');
          return new DatabaseTimeoutError('acquire', timeouts.acquireTimeoutMs);
        },
        // The wait was given up: a connection that arrives afterwards goes straight back.
        ([connection]) => (connection as GuardedConnection | undefined)?.release(),
      ),
    );
}
