import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { isTransientConflict } from './db-errors';

const MAX_ATTEMPTS = 4;

/**
 * Runs multi-row writes in one transaction.
 *
 * TypeORM's better-sqlite3 driver shares a single connection, so two overlapping
 * transactions would silently nest as savepoints; on SQLite transactions are therefore
 * queued one after another. On MySQL a deadlock or lock timeout rolls the whole unit back,
 * so it is safe to run it again, a bounded number of times.
 */
@Injectable()
export class TransactionRunner {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {}

  get driver(): 'sqlite' | 'mysql' {
    return this.dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
  }

  get manager(): EntityManager {
    return this.dataSource.manager;
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (this.driver === 'sqlite') {
      const result = this.queue.then(() => this.dataSource.transaction(work));
      this.queue = result.catch(() => undefined);
      return result;
    }
    return this.withRetry(work);
  }

  private async withRetry<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isTransientConflict(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
      }
    }
  }
}
