import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { dialectOf } from './sql-dialect';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { guardPool } from './pool-guard';

interface MysqlPool {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

/** Puts the configured time limits on the MySQL pool and shows its use in the metrics. */
@Injectable()
export class DatabaseLimits implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (dialectOf(this.dataSource).name !== 'mysql') return;
    const pool = (this.dataSource.driver as unknown as { pool: MysqlPool & Parameters<typeof guardPool>[0] }).pool;
    const { acquireTimeoutMs, queryTimeoutMs } = this.config.operations.database;
    guardPool(pool, {
      acquireTimeoutMs,
      queryTimeoutMs,
      onTimeout: (phase) => this.metrics.databaseTimeouts.inc({ phase }),
    });
    this.metrics.watchPool(() => ({
      used: pool._allConnections.length - pool._freeConnections.length,
      free: pool._freeConnections.length,
      waiting: pool._connectionQueue.length,
    }));
  }
}
