import { Inject, Injectable, Logger } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager, QueryRunner, ReplicationMode } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { isTransientConflict } from './db-errors';
import { dialectOf } from './sql-dialect';

const MAX_ATTEMPTS = 5;
/** Backoff before another attempt: up to BASE·2^attempt ms, at most CAP, drawn at random. */
const BACKOFF_BASE_MS = 5;
const BACKOFF_CAP_MS = 100;

/** Set inside TransactionRunner.run while the guard is on (not in production). */
const inTransaction = new AsyncLocalStorage<true>();

/**
 * Whether the caller runs inside a guarded transaction: for pooled reads that bypass
 * createQueryRunner (queryPrepared). Always false in production, where the guard is off.
 */
export function insideGuardedTransaction(): boolean {
  return inTransaction.getStore() === true;
}

/**
 * Runs multi-row writes in one transaction.
 *
 * TypeORM's better-sqlite3 driver shares a single connection, so two overlapping
 * transactions would silently nest as savepoints; on SQLite transactions are therefore
 * queued one after another. On MySQL a deadlock or lock timeout rolls the whole unit back,
 * so it is safe to run it again, a bounded number of times; the unit must therefore keep its
 * state inside the callback. When the attempts (or DB_QUERY_TIMEOUT_MS) are spent, the driver's
 * error escapes as it is (a QueryFailedError for which isTransientConflict is true; the request
 * answers 503 / 1500). Every write transaction of the service runs here; the order in which
 * they take their locks, so that they do not deadlock in the first place, is described at
 * ConversationMembersRepository.lockMembers.
 *
 * Inside a transaction every query must go through its `manager`. A query through a
 * repository's own pool would wait for a free connection while this transaction holds locks
 * that the pool's other transactions queue on, and under load the pool stalls until the lock
 * timeout. Such a query is refused in tests and logged in development.
 */
@Injectable()
export class TransactionRunner {
  private queue: Promise<unknown> = Promise.resolve();
  /** The after-commit hooks of each open transaction, by its manager. */
  private readonly hooks = new WeakMap<EntityManager, Set<() => void>>();
  private retried = 0;
  private readonly logger = new Logger('TransactionRunner');
  private readonly guarded: boolean;
  /** No new attempt starts after this long, so retries cannot stretch one request much past the statement limit. */
  private readonly retryBudgetMs: number;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    this.retryBudgetMs = config.operations.database.queryTimeoutMs;
    // The guard's async context costs every promise a little, so production runs without it;
    // development and the test suites keep it.
    this.guarded = config.nodeEnv !== 'production';
    if (!this.guarded) return;
    const create = dataSource.createQueryRunner.bind(dataSource);
    const strict = config.nodeEnv === 'test';
    dataSource.createQueryRunner = (mode?: ReplicationMode): QueryRunner => {
      if (insideGuardedTransaction()) {
        const problem = new Error('a pooled query was started inside a transaction; pass the transaction manager');
        if (strict) throw problem;
        this.logger.error(problem.message, problem.stack);
      }
      return create(mode);
    };
  }

  get driver(): 'sqlite' | 'mysql' {
    return dialectOf(this.dataSource).name;
  }

  /** Units run again after a deadlock or lock timeout since start (for tests and metrics). */
  get retries(): number {
    return this.retried;
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  /**
   * `isolation` READ COMMITTED (MySQL only; SQLite transactions are serial anyway) is for units
   * that must not take gap locks, such as the outbox sequencer next to transactions still open.
   */
  run<T>(work: (manager: EntityManager) => Promise<T>, isolation?: 'READ COMMITTED'): Promise<T> {
    const unit = async (): Promise<T> => {
      // Each attempt has its own manager and hooks: those of an attempt rolled back are dropped.
      const hooks = new Set<() => void>();
      const body = async (manager: EntityManager): Promise<T> => {
        this.hooks.set(manager, hooks);
        try {
          return await (this.guarded ? inTransaction.run(true, () => work(manager)) : work(manager));
        } finally {
          this.hooks.delete(manager);
        }
      };
      const result =
        isolation && this.driver === 'mysql'
          ? await this.dataSource.transaction(isolation, body)
          : await this.dataSource.transaction(body);
      for (const hook of hooks) this.runHook(hook);
      return result;
    };
    if (this.driver === 'sqlite') {
      const result = this.queue.then(unit);
      this.queue = result.catch(() => undefined);
      return result;
    }
    return this.withRetry(unit);
  }

  /**
   * Runs `hook` once the transaction of `manager` has committed, and never if it rolls back: how
   * a write tells the rest of the service about itself (the outbox wakes its sequencer this
   * way). A hook registered twice in one transaction runs once. Outside a transaction (an
   * autocommit write, already committed) it runs at once.
   */
  afterCommit(manager: EntityManager, hook: () => void): void {
    const hooks = this.hooks.get(manager);
    if (hooks) {
      hooks.add(hook);
      return;
    }
    if (manager.queryRunner?.isTransactionActive)
      throw new Error('afterCommit needs the manager of TransactionRunner.run, not of another transaction');
    this.runHook(hook);
  }

  private runHook(hook: () => void): void {
    try {
      hook();
    } catch (error) {
      // The transaction committed: its caller gets its result whatever a listener does.
      this.logger.error(`an after-commit hook failed: ${(error as Error).message}`, (error as Error).stack);
    }
  }

  private async withRetry<T>(unit: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await unit();
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isTransientConflict(error) || Date.now() - started > this.retryBudgetMs)
          throw error;
        this.retried += 1;
        this.metrics.transactionRetries.inc();
        // Random, so that the transactions that collided do not meet again in step.
        const delay = Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
