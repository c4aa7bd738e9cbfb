/**
 * Time limits mysql2's pool does not have: waiting for a free connection, and one statement.
 *
 * The server is told first (sessionLimits): it aborts a statement, or a lock wait, a little
 * before the client would give up, so a slow statement fails cleanly, is rolled back, and is
 * never applied later. The client-side limit is the backstop for a server that does not answer
 * at all (frozen, unreachable): a frozen or unreachable database otherwise holds every request
 * for as long as TCP keeps the connection, and mysql2's own query timeout leaves the timed-out
 * command at the head of the connection's queue, so the pooled connection would hang the next
 * request that gets it. Here a timed-out statement destroys its connection and socket (the
 * server rolls back whatever transaction it had when it notices) and the caller gets
 * `DatabaseTimeoutError` at once; the request answers 503 / 1500 (see db-errors.ts).
 */
export class DatabaseTimeoutError extends Error {
  readonly code = 'DB_TIMEOUT';

  constructor(
    readonly phase: 'acquire' | 'query',
    ms: number,
  ) {
    super(
      phase === 'acquire'
        ? `no database connection became free within ${ms} ms`
        : `the database did not answer a statement within ${ms} ms`,
    );
    this.name = 'DatabaseTimeoutError';
  }
}

type Callback = (error: Error | null, ...results: unknown[]) => void;

interface GuardedConnection {
  query: (...args: unknown[]) => unknown;
  execute: (...args: unknown[]) => unknown;
  release(): void;
  destroy(): void;
  stream?: { destroy(): void };
  _isMariaDB?: boolean;
}

interface WaitQueue {
  length: number;
  get(index: number): unknown;
  removeOne(index: number): void;
}

interface GuardedPool {
  _allConnections?: { length: number; get(index: number): GuardedConnection };
  _connectionQueue?: WaitQueue;
  getConnection(callback: (error: Error | null, connection?: GuardedConnection) => void): void;
  on(event: 'connection', listener: (connection: GuardedConnection) => void): void;
}

export interface PoolTimeouts {
  acquireTimeoutMs: number;
  queryTimeoutMs: number;
  /** Told of every timeout, for metrics. */
  onTimeout?: (phase: 'acquire' | 'query') => void;
}

const GUARDED = Symbol('guarded');

/**
 * Calls `callback` once: with the first of the real answer or the timeout; `late` gets what
 * arrives after. `onTimeout` runs with the wrapper, so it can find it where it waits.
 */
function settleOnce(
  ms: number,
  callback: Callback,
  onTimeout: (wrapper: Callback) => Error,
  late: (results: unknown[]) => void,
): Callback {
  let settled = false;
  const wrapper: Callback = (error, ...results) => {
    if (settled) return late(results);
    settled = true;
    clearTimeout(timer);
    callback(error, ...results);
  };
  const timer = setTimeout(() => {
    settled = true;
    callback(onTimeout(wrapper));
  }, ms);
  (wrapper as unknown as Record<symbol, boolean>)[GUARDED] = true;
  return wrapper;
}

/**
 * The server-side limits of a session, a little inside the client's: MariaDB's
 * max_statement_time (seconds) or MySQL's max_execution_time (milliseconds, SELECT only), and
 * InnoDB's lock wait (whole seconds; 50 by default, far beyond the client's limit), whose
 * timeout (1205) the transaction runner retries.
 */
export function sessionLimits(queryTimeoutMs: number, mariaDb: boolean): string {
  const statementMs = queryTimeoutMs - Math.max(100, Math.floor(queryTimeoutMs / 10));
  const lockWaitSeconds = Math.max(1, Math.floor(queryTimeoutMs / 2000));
  const statement = mariaDb
    ? `max_statement_time = ${(statementMs / 1000).toFixed(3)}`
    : `max_execution_time = ${statementMs}`;
  return `SET SESSION ${statement}, innodb_lock_wait_timeout = ${lockWaitSeconds}`;
}

const guarded = new WeakSet<GuardedConnection>();

function guardStatements(connection: GuardedConnection, timeouts: PoolTimeouts): void {
  if (guarded.has(connection)) return;
  guarded.add(connection);
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
          // destroy() only half-closes; the server must see the connection go.
          connection.stream?.destroy();
          return new DatabaseTimeoutError('query', timeouts.queryTimeoutMs);
        },
        () => undefined,
      );
      return original(...args);
    };
  }
  // Queued on the connection before any caller's statement; a refusal (an old server without
  // one of the variables) leaves only the client-side limit.
  connection.query(sessionLimits(timeouts.queryTimeoutMs, connection._isMariaDB === true), () => undefined);
}

/** Takes a waiter that gave up out of the pool's queue, so no connection is opened for it later. */
function dropWaiter(queue: WaitQueue | undefined, waiter: Callback): void {
  for (let i = 0; queue && i < queue.length; i++) {
    if (queue.get(i) === waiter) return queue.removeOne(i);
  }
}

export function guardPool(pool: GuardedPool, timeouts: PoolTimeouts): void {
  // Connections opened before (by the migrations) and every one opened from now on.
  const open = pool._allConnections;
  for (let i = 0; open && i < open.length; i++) guardStatements(open.get(i), timeouts);
  pool.on('connection', (connection) => guardStatements(connection, timeouts));
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) => {
    // mysql2 hands a queued waiter back to getConnection when a connection frees: it is
    // already timed.
    if ((callback as unknown as Record<symbol, boolean>)[GUARDED]) return getConnection(callback);
    return getConnection(
      settleOnce(
        timeouts.acquireTimeoutMs,
        callback as Callback,
        (waiter) => {
          timeouts.onTimeout?.('acquire');
          dropWaiter(pool._connectionQueue, waiter);
          return new DatabaseTimeoutError('acquire', timeouts.acquireTimeoutMs);
        },
        // The wait was given up: a connection that arrives afterwards goes straight back.
        ([connection]) => (connection as GuardedConnection | undefined)?.release(),
      ),
    );
  };
}
